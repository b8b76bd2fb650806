package dev.mosaic.searcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import dev.mosaic.api.realty.RealtySchema;
import dev.mosaic.api.schema.BuiltInSchemas;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One node serving a cars index and a realty index side by side: each answers under {@code
 * /indexes/<name>/} from its own store, the unprefixed paths answer for the first index, payloads
 * of either type come back as JSON, and meters carry the index name.
 */
class SeveralIndexesHttpTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir static Path root;
  static SearcherNode node;
  static List<CarOffer> cars;
  static List<RealtyOffer> flats;

  @BeforeAll
  static void startNode() throws Exception {
    cars = CarOfferGenerator.builder().seed(7).build().next(120);
    flats = RealtyOfferGenerator.seeded(7).next(90);
    node =
        SearcherNode.builder(root.resolve("store"))
            .indexName("cars")
            .index(
                "realty",
                root.resolve("store-realty"),
                new PayloadDecoder().register(BuiltInSchemas.realty().types()))
            .port(0)
            .scanInterval(Duration.ZERO)
            .build();
    node.start();
    DatabaseBuilder carFile = DatabaseBuilder.create(CarsSchema.SCHEMA);
    cars.forEach(c -> carFile.add(CarOffers.toDocument(c)));
    publish(node.index("cars").store(), CarsSchema.VERSION, carFile.toByteArray());
    DatabaseBuilder flatFile = DatabaseBuilder.create(RealtySchema.SCHEMA);
    flats.forEach(f -> flatFile.add(RealtyOffers.toDocument(f)));
    publish(node.index("realty").store(), RealtySchema.VERSION, flatFile.toByteArray());
    node.index("cars").generations().reopen().join();
    node.index("realty").generations().reopen().join();
  }

  @AfterAll
  static void stopNode() {
    if (node != null) {
      node.close();
    }
  }

  private static void publish(ReceivingStore store, int schemaVersion, byte[] bytes)
      throws Exception {
    try (var staged = store.stage(new PartitionFileId(schemaVersion, 0, 1), bytes.length)) {
      Files.write(staged.path(), bytes);
      staged.publish();
    }
  }

  private static HttpResponse<String> send(String path, String body) throws Exception {
    HttpRequest.Builder r =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + path));
    if (body != null) {
      r.header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
    }
    return HTTP.send(r.build(), HttpResponse.BodyHandlers.ofString());
  }

  private static long count(String path, String body) throws Exception {
    HttpResponse<String> r = send(path, body);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    return JSON.readTree(r.body()).get("total").asLong();
  }

  @Test
  void eachIndexCountsItsOwnDocuments() throws Exception {
    assertThat(count("/indexes/cars/count", "{}")).isEqualTo(cars.size());
    assertThat(count("/indexes/realty/count", "{}")).isEqualTo(flats.size());
    long rentals = flats.stream().filter(f -> f.getDealType().equals("rent")).count();
    assertThat(rentals).isPositive().isLessThan(flats.size());
    assertThat(count("/indexes/realty/count", "{\"filter\": {\"eq\": {\"deal_type\": \"rent\"}}}"))
        .isEqualTo(rentals);
  }

  @Test
  void theUnprefixedPathsServeTheFirstIndex() throws Exception {
    assertThat(count("/count", "{}")).isEqualTo(cars.size());
  }

  @Test
  void realtyPayloadsComeBackAsJson() throws Exception {
    HttpResponse<String> r =
        send(
            "/indexes/realty/search",
            "{\"filter\": {\"eq\": {\"offer_id\": \""
                + flats.getFirst().getOfferId()
                + "\"}}, \"limit\": 1}");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode hit = JSON.readTree(r.body()).get("hits").get(0);
    assertThat(hit.toString())
        .contains("\"deal_type\":\"" + flats.getFirst().getDealType() + "\"")
        .contains("\"city\":\"" + flats.getFirst().getCity() + "\"");
  }

  @Test
  void aFieldOfTheOtherIndexIsABadQuery() throws Exception {
    assertThat(
            send("/indexes/cars/count", "{\"filter\": {\"eq\": {\"deal_type\": \"rent\"}}}")
                .statusCode())
        .isEqualTo(400);
  }

  @Test
  void anUnknownIndexAnswers404NamingTheServedOnes() throws Exception {
    HttpResponse<String> r = send("/indexes/travel/count", "{}");
    assertThat(r.statusCode()).isEqualTo(404);
    assertThat(r.body()).contains("travel").contains("cars").contains("realty");
    HttpResponse<String> list = send("/indexes", null);
    assertThat(JSON.readTree(list.body()).get("indexes").toString())
        .isEqualTo("[\"cars\",\"realty\"]");
  }

  @Test
  void metersCarryTheIndexName() throws Exception {
    count("/indexes/realty/count", "{}");
    String metrics = send("/metrics", null).body();
    assertThat(metrics)
        .containsPattern("mosaic_searcher_query_seconds_count\\{[^}]*index=\"realty\"")
        .containsPattern("mosaic_searcher_partitions_serving\\{[^}]*index=\"cars\"");
  }

  @Test
  void partitionsAreListedPerIndex() throws Exception {
    HttpResponse<String> r = send("/indexes/realty/partitions", null);
    assertThat(r.statusCode()).isEqualTo(200);
    assertThat(r.body()).contains("\"schemaVersion\":" + RealtySchema.VERSION);
  }
}
