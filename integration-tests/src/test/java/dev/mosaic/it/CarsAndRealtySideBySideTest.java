package dev.mosaic.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import dev.mosaic.api.schema.BuiltInSchemas;
import dev.mosaic.api.schema.IndexSchema;
import dev.mosaic.api.schema.ProtoTypes;
import dev.mosaic.api.schema.SchemaFileLoader;
import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.deploy.MosaicConfig;
import dev.mosaic.deploy.SearcherRole;
import dev.mosaic.partition.PartitionFileId;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * A cluster of two indexes on real ZooKeeper and Kafka: cars (the default index) and realty, each
 * with its own topics, partitions, manifest, indexers and stores, served by the same searchers, and
 * each queried through HTTP under {@code /indexes/<name>/}.
 */
@Timeout(500)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CarsAndRealtySideBySideTest {
  private static LocalCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    Map<String, String> o = SharedCluster.testOverrides();
    o.put(
        "mosaic.indexes", "[{name = cars}, {name = realty, partitions = 8, topic-partitions = 2}]");
    o.put("mosaic.feed.partners", "6");
    o.put("mosaic.feed.offers", "600");
    o.put("mosaic.indexer.nodes", "1");
    o.put("mosaic.searcher.nodes-per-dc", "1");
    cluster = new LocalCluster(MosaicConfig.withOverrides(o)).start();
    // a still feed, so that counts can be compared with what the partners list
    cluster.simulator("cars").pause();
    cluster.simulator("realty").pause();
    // a snapshot published just before the pause may not be consumed yet (an indexer's lag is as
    // of its last poll): wait until every searcher counts what the partners list, then converge
    Awaitility.await("every searcher counts what the partners of both indexes list")
        .atMost(Duration.ofSeconds(120))
        .pollInterval(Duration.ofMillis(200))
        .ignoreExceptions()
        .until(CarsAndRealtySideBySideTest::countsEqualTheListings);
    cluster.awaitConverged(Duration.ofSeconds(120));
  }

  private static boolean countsEqualTheListings() throws Exception {
    long cars = carsListed();
    long realty = realtyListed();
    for (SearcherRole s : cluster.runningSearchers()) {
      SearcherClient.Answer c = SearcherClient.post(s.httpAddress(), "/indexes/cars/count", "{}");
      SearcherClient.Answer r = SearcherClient.post(s.httpAddress(), "/indexes/realty/count", "{}");
      if (c.status() != 200
          || r.status() != 200
          || c.body().get("total").asLong() != cars
          || r.body().get("total").asLong() != realty) {
        return false;
      }
    }
    return true;
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  private static long total(String address, String path, String body) throws Exception {
    SearcherClient.Answer a = SearcherClient.post(address, path, body);
    assertThat(a.status()).as(path + " " + body + ": " + a.raw()).isEqualTo(200);
    return a.body().get("total").asLong();
  }

  @Test
  @Order(1)
  void everySearcherServesEachIndexFromItsOwnPartitions() throws Exception {
    assertThat(cluster.indexNames()).containsExactly("cars", "realty");
    assertThat(cluster.latestVersions("realty").keySet()).allMatch(p -> p >= 0 && p < 8);
    assertThat(cluster.latestVersions("cars").keySet()).allMatch(p -> p >= 0 && p < 16);
    long cars = carsListed();
    long realty = realtyListed();
    for (SearcherRole s : cluster.runningSearchers()) {
      String a = s.httpAddress();
      assertThat(total(a, "/indexes/cars/count", "{}")).as(s.nodeId()).isEqualTo(cars);
      assertThat(total(a, "/indexes/realty/count", "{}")).as(s.nodeId()).isEqualTo(realty);
      assertThat(total(a, "/count", "{}")).as("the default index, " + s.nodeId()).isEqualTo(cars);
      long rent =
          total(a, "/indexes/realty/count", "{\"filter\": {\"eq\": {\"deal_type\": \"rent\"}}}");
      long sale =
          total(a, "/indexes/realty/count", "{\"filter\": {\"eq\": {\"deal_type\": \"sale\"}}}");
      assertThat(rent).isPositive();
      assertThat(sale).isPositive();
      assertThat(rent + sale).isEqualTo(realty);
      assertThat(s.servedVersions("realty").keySet()).isSubsetOf(List.of(0, 1, 2, 3, 4, 5, 6, 7));
    }
  }

  /** The cars the partners list, and the freshness probe's offers (it probes the cars index). */
  private static long carsListed() {
    return cluster.simulator("cars").offerCount() + cluster.config().probe.offers;
  }

  /** The realty partners' offers and the realty freshness probe's (each index has its probe). */
  private static long realtyListed() {
    return cluster.simulator("realty").offerCount() + cluster.config().probe.offers;
  }

  @Test
  @Order(2)
  void realtyHitsCarryTheirPayloadAsJson() throws Exception {
    String a = cluster.runningSearchers().getFirst().httpAddress();
    SearcherClient.Answer r =
        SearcherClient.post(
            a,
            "/indexes/realty/search",
            "{\"filter\": {\"eq\": {\"property_type\": \"house\"}}, \"orderBy\": [\"price\"],"
                + " \"limit\": 2}");
    assertThat(r.status()).as(r.raw()).isEqualTo(200);
    assertThat(r.body().get("hits")).hasSize(2);
    assertThat(r.raw()).contains("\"property_type\":\"house\"").contains("\"area_m2\"");
  }

  @Test
  @Order(3)
  void aRealtySchemaVersionIsRolledOutAndBackWhileCarsKeepServingTheSameFiles() throws Exception {
    String text;
    try (InputStream in =
        getClass().getClassLoader().getResourceAsStream(BuiltInSchemas.REALTY_RESOURCE)) {
      text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    IndexSchema v2 =
        SchemaFileLoader.parse(
            text.replaceFirst("\"version\"\\s*:\\s*1", "\"version\": 2"),
            "realty v2",
            ProtoTypes.builtIn());
    assertThat(v2.schema().version()).isEqualTo(2);
    long realty = realtyListed();
    Map<String, Map<Integer, PartitionFileId>> carsBefore = new TreeMap<>();
    for (SearcherRole s : cluster.runningSearchers()) {
      carsBefore.put(s.nodeId(), s.servedFiles("cars"));
    }

    cluster.switchSchema("realty", v2.schema(), Duration.ofSeconds(180));
    assertThat(cluster.servedSchemaVersion("realty")).isEqualTo(2);
    for (SearcherRole s : cluster.runningSearchers()) {
      assertThat(s.node().index("realty").generations().schemaVersion()).hasValue(2);
      assertThat(s.servedFiles("realty").values()).allMatch(id -> id.schemaVersion() == 2);
      assertThat(total(s.httpAddress(), "/indexes/realty/count", "{}")).isEqualTo(realty);
      assertThat(s.servedFiles("cars")).as("cars untouched").isEqualTo(carsBefore.get(s.nodeId()));
      assertThat(total(s.httpAddress(), "/indexes/cars/count", "{}")).isEqualTo(carsListed());
    }

    // the rollback: back to the previous schema version, whose files the stores still hold
    cluster.switchSchema("realty", BuiltInSchemas.realty().schema(), Duration.ofSeconds(120));
    for (SearcherRole s : cluster.runningSearchers()) {
      assertThat(s.node().index("realty").generations().schemaVersion()).hasValue(1);
      assertThat(s.servedFiles("realty").values()).allMatch(id -> id.schemaVersion() == 1);
      assertThat(total(s.httpAddress(), "/indexes/realty/count", "{}")).isEqualTo(realty);
      assertThat(s.servedFiles("cars")).isEqualTo(carsBefore.get(s.nodeId()));
    }
  }

  @Test
  @Order(4)
  void aRealtyChangeBecomesSearchableWhileCarsStayAsTheyWere() throws Exception {
    long cars = carsListed();
    RealtyOffer flat =
        RealtyOfferGenerator.seeded(99).next().toBuilder()
            .setPartnerId("it-partner")
            .setOfferId("it-partner-1")
            .setDedupKey("it-realty-1")
            .build();
    long now = System.currentTimeMillis();
    cluster
        .feedLoader("realty")
        .publish(
            FeedSnapshot.newBuilder()
                .setPartnerId("it-partner")
                .setSnapshotId(1)
                .setCreatedAtMillis(now)
                .addOffers(RealtyOffers.toOffer(flat, now))
                .build());
    String byId = "{\"filter\": {\"eq\": {\"offer_id\": \"it-partner-1\"}}}";
    for (SearcherRole s : cluster.runningSearchers()) {
      Awaitility.await()
          .atMost(60, TimeUnit.SECONDS)
          .pollInterval(Duration.ofMillis(200))
          .until(() -> total(s.httpAddress(), "/indexes/realty/count", byId) == 1);
      assertThat(total(s.httpAddress(), "/indexes/cars/count", byId)).isZero();
      assertThat(total(s.httpAddress(), "/indexes/cars/count", "{}")).isEqualTo(cars);
    }
  }
}
