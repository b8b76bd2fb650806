package dev.mosaic.searcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mosaic.api.OfferPartitioning;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The HTTP API over a real node serving real car partitions. */
class SearcherHttpTest {
  private static final int PARTITIONS = 4;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String ADMIN_TOKEN = "test-operator-token-7f3a9c";
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir static Path root;
  static SearcherNode node;
  static List<CarOffer> cars;
  static Map<Integer, List<CarOffer>> byPartition = new TreeMap<>();

  @BeforeAll
  static void startNode() throws IOException {
    cars = CarOfferGenerator.builder().seed(42).build().next(400);
    for (CarOffer c : cars) {
      byPartition
          .computeIfAbsent(
              OfferPartitioning.partitionOf(c.getDedupKey(), PARTITIONS), k -> new ArrayList<>())
          .add(c);
    }
    node =
        SearcherNode.builder(root)
            .port(0)
            .maxLimit(100)
            .scanInterval(Duration.ZERO)
            .allowUploads(1 << 20)
            .adminToken(ADMIN_TOKEN)
            .healthContributor(
                new HealthContributor() {
                  @Override
                  public String name() {
                    return "transport";
                  }

                  @Override
                  public Health check() {
                    return Health.up("fresh");
                  }
                })
            .build();
    node.start();
    for (var e : byPartition.entrySet()) {
      publish(node.store(), e.getKey(), 1, e.getValue());
    }
    node.generations().reopen().join();
  }

  @AfterAll
  static void stopNode() {
    if (node != null) {
      node.close();
    }
  }

  static byte[] partitionBytes(List<CarOffer> offers) {
    DatabaseBuilder b = DatabaseBuilder.create(CarsSchema.SCHEMA);
    offers.forEach(c -> b.add(CarOffers.toDocument(c)));
    return b.toByteArray();
  }

  static void publish(ReceivingStore store, int partition, long version, List<CarOffer> offers)
      throws IOException {
    byte[] bytes = partitionBytes(offers);
    try (var staged =
        store.stage(new PartitionFileId(CarsSchema.VERSION, partition, version), bytes.length)) {
      Files.write(staged.path(), bytes);
      staged.publish();
    }
  }

  static HttpResponse<String> post(String path, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  /** A POST carrying the operator token. */
  static HttpResponse<String> admin(String path) throws Exception {
    return adminAs(path, "Bearer " + ADMIN_TOKEN);
  }

  static HttpResponse<String> adminAs(String path, String authorization) throws Exception {
    HttpRequest.Builder b =
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + path))
            .POST(HttpRequest.BodyPublishers.noBody());
    if (authorization != null) {
      b.header("Authorization", authorization);
    }
    return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
  }

  static HttpResponse<String> get(String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + node.port() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }

  @Test
  void searchRoundTripFiltersSortsPagesAndDecodesThePayload() throws Exception {
    String mark = cars.get(0).getMark();
    List<CarOffer> expected =
        cars.stream()
            .filter(c -> c.getMark().equals(mark) && c.getYear() >= 2010)
            .sorted(Comparator.comparingLong(CarOffer::getPriceRub).reversed())
            .toList();
    String query =
        """
        {"filter": {"and": [{"eq": {"mark": "%s"}}, {"gte": {"year": 2010}}]},
         "orderBy": [{"field": "price", "order": "desc"}],
         "skip": 1, "limit": 3, "fields": ["price", "year", "published"]}
        """
            .formatted(mark);
    HttpResponse<String> r = post("/search", query);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("total").asLong()).isEqualTo(expected.size());
    assertThat(body.get("generation").asLong()).isPositive();
    assertThat(body.get("tookMs").asDouble()).isGreaterThanOrEqualTo(0);
    JsonNode hits = body.get("hits");
    assertThat(hits).hasSize(Math.min(3, Math.max(0, expected.size() - 1)));
    for (int i = 0; i < hits.size(); i++) {
      JsonNode hit = hits.get(i);
      CarOffer want = expected.get(i + 1);
      assertThat(hit.get("values").get("price").asLong()).isEqualTo(want.getPriceRub());
      assertThat(hit.get("values").get("year").asInt()).isEqualTo(want.getYear());
      assertThat(hit.get("values").get("published").asText())
          .isEqualTo(java.time.Instant.ofEpochMilli(want.getPublishedAtMillis()).toString());
      assertThat(hit.get("values").has("mileage")).isFalse();
      assertThat(hit.get("payload").get("mark").asText()).isEqualTo(mark);
      assertThat(hit.get("partition").asInt())
          .isEqualTo(
              OfferPartitioning.partitionOf(
                  hit.get("payload").get("dedup_key").asText(), PARTITIONS));
    }
  }

  @Test
  void countAnswersTheTotalOfAFilterWithInOrNotAndBetween() throws Exception {
    List<String> regions = List.of(cars.get(0).getRegion(), cars.get(1).getRegion());
    long expected =
        cars.stream()
            .filter(
                c ->
                    (regions.contains(c.getRegion()) || c.getPriceRub() < 500_000)
                        && !(c.getMileageKm() >= 10_000 && c.getMileageKm() <= 50_000))
            .count();
    String query =
        """
        {"filter": {"and": [
          {"or": [{"in": {"region": ["%s", "%s"]}}, {"lt": {"price": 500000}}]},
          {"not": {"between": {"mileage": [10000, 50000]}}}]}}
        """
            .formatted(regions.get(0), regions.get(1));
    HttpResponse<String> r = post("/count", query);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(JSON.readTree(r.body()).get("total").asLong()).isEqualTo(expected);
  }

  @Test
  void countWithFacetsAndStatsAnswersValueCountsAndRanges() throws Exception {
    String region = cars.get(0).getRegion();
    List<CarOffer> inRegion = cars.stream().filter(c -> c.getRegion().equals(region)).toList();
    Map<String, Long> byMark = new TreeMap<>();
    inRegion.forEach(c -> byMark.merge(c.getMark(), 1L, Long::sum));
    HttpResponse<String> r =
        post(
            "/count",
            """
            {"filter": {"eq": {"region": "%s"}},
             "facets": [{"field": "mark", "all": true}],
             "stats": [{"field": "year", "bounds": [2010]}]}
            """
                .formatted(region));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(r.body());
    assertThat(body.get("total").asLong()).isEqualTo(inRegion.size());
    Map<String, Long> got = new TreeMap<>();
    body.get("facets")
        .get(0)
        .get("counts")
        .forEach(e -> got.put(e.get("value").asText(), e.get("count").asLong()));
    assertThat(got).isEqualTo(byMark);
    JsonNode year = body.get("stats").get(0);
    assertThat(year.get("min").asInt())
        .isEqualTo(inRegion.stream().mapToInt(CarOffer::getYear).min().orElseThrow());
    assertThat(year.get("max").asInt())
        .isEqualTo(inRegion.stream().mapToInt(CarOffer::getYear).max().orElseThrow());
    long before2010 = inRegion.stream().filter(c -> c.getYear() < 2010).count();
    assertThat(year.get("buckets").get(0).asLong()).isEqualTo(before2010);
  }

  @Test
  void searchWithExplainAddsTheTraceOfEveryPartitionAndTheMerge() throws Exception {
    String mark = cars.get(0).getMark();
    long expected = cars.stream().filter(c -> c.getMark().equals(mark)).count();
    HttpResponse<String> r =
        post(
            "/search",
            """
            {"filter": {"eq": {"mark": "%s"}}, "orderBy": ["price"], "limit": 2,
             "payload": false, "explain": true}
            """
                .formatted(mark));
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    JsonNode body = JSON.readTree(r.body());
    JsonNode trace = body.get("explain");
    assertThat(trace).as(r.body()).isNotNull();
    assertThat(trace.get("matches").asLong()).isEqualTo(body.get("hits").size());
    assertThat(trace.get("micros").asDouble()).isPositive();
    JsonNode steps = trace.get("children");
    JsonNode merge = steps.get(steps.size() - 1);
    assertThat(merge.get("step").asText()).startsWith("merge partitions");
    long conditionMatches = 0;
    for (int i = 0; i < steps.size() - 1; i++) {
      assertThat(steps.get(i).get("step").asText()).startsWith("partition ");
      conditionMatches += steps.get(i).get("children").get(0).get("matches").asLong();
    }
    assertThat(conditionMatches).isEqualTo(expected).isEqualTo(body.get("total").asLong());

    HttpResponse<String> plain =
        post("/search", "{\"filter\": {\"eq\": {\"mark\": \"%s\"}}}".formatted(mark));
    assertThat(JSON.readTree(plain.body()).has("explain")).isFalse();
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          malformed JSON            | {"filter": {"eq": {"mark": "BMW"}}     | malformed JSON
          not an object             | [1, 2]                                  | expected a JSON object
          unknown top-level key     | {"limt": 5}                             | unknown key 'limt'
          unknown field             | {"filter": {"eq": {"colour": "red"}}}   | filter.eq.colour: unknown field 'colour'
          unknown operator          | {"filter": {"like": {"mark": "B"}}}     | unknown operator 'like'
          wrong value type          | {"filter": {"gt": {"price": "cheap"}}}  | filter.gt.price: field 'price' is LONG and needs a 64-bit integer, got the string "cheap"
          int out of range          | {"filter": {"eq": {"year": 99999999999}}} | field 'year' is INT
          in needs an array         | {"filter": {"in": {"mark": "BMW"}}}     | expected an array of values
          sort on non-sortable      | {"orderBy": ["mark"]}                   | cannot sort on field 'mark': it is FILTERABLE
          sort on unknown field     | {"orderBy": ["-speed"]}                 | orderBy[0]: unknown field 'speed'
          limit over maximum        | {"limit": 101}                          | limit: 101 is over the maximum of 100
          negative skip             | {"skip": -1}                            | skip: must be >= 0
          return non-sortable field | {"fields": ["color"]}                   | fields[0]: field 'color' is FILTERABLE
          facet on unknown field    | {"facets": [{"field": "colour"}]}      | facets[0].field: unknown field 'colour'
          stats on filterable field | {"stats": ["mark"]}                     | stats[0]: no statistics on field 'mark': it is FILTERABLE
          facet top over maximum    | {"facets": [{"field": "mark", "top": 5000}]} | facets[0].top: 5000 is over the maximum of 1000
          explain not a boolean     | {"explain": "yes"}                      | explain: expected true or false but got
          bad timestamp             | {"filter": {"gte": {"published": "yesterday"}}} | cannot parse "yesterday" as an ISO-8601 instant
          """)
  void badSearchesAnswer400NamingTheProblem(String name, String body, String message)
      throws Exception {
    HttpResponse<String> r = post("/search", body);
    assertThat(r.statusCode()).as(r.body()).isEqualTo(400);
    assertThat(JSON.readTree(r.body()).get("error").asText()).contains(message);
  }

  @Test
  void emptyBodyAndBadCountAnswer400() throws Exception {
    HttpResponse<String> r = post("/search", "");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("body is empty");
    r = post("/count", "{\"filter\": {\"eq\": {\"price\": true}}}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("field 'price' is LONG");
    r = post("/count", "{\"orderBy\": [\"price\"]}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("unknown key 'orderBy'");
  }

  @Test
  void healthMetricsAndPartitionsDescribeTheNode() throws Exception {
    HttpResponse<String> health = get("/health");
    assertThat(health.statusCode()).isEqualTo(200);
    JsonNode h = JSON.readTree(health.body());
    assertThat(h.get("status").asText()).isEqualTo("UP");
    assertThat(health.body()).contains("\"transport\"").contains("fresh");

    post("/search", "{}");
    HttpResponse<String> metrics = get("/metrics");
    assertThat(metrics.statusCode()).isEqualTo(200);
    assertThat(metrics.body())
        .contains("mosaic_searcher_query_seconds_bucket")
        .contains("mosaic_searcher_reopen_seconds_count")
        .contains("mosaic_searcher_generation_age_seconds")
        .contains("mosaic_searcher_mapped_bytes")
        .contains("mosaic_searcher_partitions_serving")
        .contains("mosaic_searcher_store_files");

    HttpResponse<String> partitions = get("/partitions");
    assertThat(partitions.statusCode()).isEqualTo(200);
    JsonNode p = JSON.readTree(partitions.body());
    assertThat(p.get("partitions")).hasSize(PARTITIONS);
    JsonNode first = p.get("partitions").get(0);
    assertThat(first.get("crc32c").asText()).matches("[0-9a-f]{8}");
    assertThat(first.get("sizeBytes").asLong()).isPositive();
    assertThat(first.get("pinned").asBoolean()).isFalse();
  }

  @Test
  void pinRollsAPartitionBackAndUnpinRollsItForward() throws Exception {
    int partition = 2;
    List<CarOffer> fewer = byPartition.get(partition).subList(0, 5);
    publish(node.store(), partition, 2, fewer);
    node.generations().reopen().join();
    long all = cars.size();
    long withNew = all - byPartition.get(partition).size() + 5;
    assertThat(JSON.readTree(post("/count", "{}").body()).get("total").asLong()).isEqualTo(withNew);

    JsonNode served = JSON.readTree(get("/partitions/served").body());
    assertThat(served.get("served")).hasSize(PARTITIONS);
    assertThat(served.get("served").get("2").asLong()).isEqualTo(2);
    long before = served.get("generation").asLong();

    HttpResponse<String> r = admin("/partitions/2/pin?version=1");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(JSON.readTree(r.body()).get("pinned").asBoolean()).isTrue();
    assertThat(JSON.readTree(post("/count", "{}").body()).get("total").asLong()).isEqualTo(all);
    // the pin answered once the generation serves it: the cheap poll shows the rollback
    HttpResponse<String> servedNow = get("/partitions/served");
    served = JSON.readTree(servedNow.body());
    assertThat(served.get("served").get("2").asLong()).isEqualTo(1);
    assertThat(served.get("generation").asLong()).isGreaterThan(before);
    // the generation is the entity tag: a poller that saw it gets 304 and no body until it moves
    String tag = servedNow.headers().firstValue("ETag").orElseThrow();
    assertThat(tag).isEqualTo("\"g" + served.get("generation").asLong() + "\"");
    HttpResponse<String> unchanged =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + node.port() + "/partitions/served"))
                .header("If-None-Match", tag)
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(unchanged.statusCode()).isEqualTo(304);
    assertThat(unchanged.body()).isEmpty();

    r = admin("/partitions/2/unpin");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    assertThat(JSON.readTree(post("/count", "{}").body()).get("total").asLong()).isEqualTo(withNew);

    // put partition 2 back as it was for the other tests
    publish(node.store(), partition, 3, byPartition.get(partition));
    node.generations().reopen().join();
  }

  @Test
  void anUnauthenticatedCallerCannotPinAndAWrongTokenIsRefused() throws Exception {
    HttpResponse<String> r = post("/partitions/1/pin?version=1", "");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(401);
    assertThat(r.body()).contains("Authorization: Bearer");
    assertThat(r.headers().firstValue("WWW-Authenticate"))
        .hasValueSatisfying(h -> h.startsWith("Bearer"));
    r = adminAs("/partitions/1/pin?version=1", "Bearer not-the-operator-token");
    assertThat(r.statusCode()).as(r.body()).isEqualTo(403);
    assertThat(r.body()).contains("wrong operator token");
    assertThat(adminAs("/partitions/1/unpin", null).statusCode()).isEqualTo(401);
    assertThat(adminAs("/schema?version=1", "Basic b3A6b3A=").statusCode()).isEqualTo(401);
    HttpResponse<String> upload =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + node.port() + "/partitions/1/versions/9"))
                .PUT(HttpRequest.BodyPublishers.ofByteArray(new byte[] {1, 2, 3}))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(upload.statusCode()).isEqualTo(401);
    // nothing changed: the partition is still not pinned, and reads stay open
    r = get("/partitions");
    assertThat(r.statusCode()).isEqualTo(200);
    for (JsonNode p : JSON.readTree(r.body()).get("partitions")) {
      assertThat(p.get("pinned").asBoolean()).as(p.toString()).isFalse();
    }
    assertThat(post("/count", "{}").statusCode()).isEqualTo(200);
  }

  @Test
  void badPinRequestsAnswer400() throws Exception {
    assertThat(admin("/partitions/x/pin?version=1").body())
        .contains("partition: expected a non-negative integer but got 'x'");
    HttpResponse<String> r = admin("/partitions/1/pin");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("version: missing");
    r = admin("/partitions/1/pin?version=77");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("has no version 77");
    r = admin("/partitions/1/unpin");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("is not pinned");
    r = admin("/schema?version=9");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("holds no partition of schema version 9");
    r = admin("/schema");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("version: missing");
  }

  @Test
  void uploadPublishesThroughTheStoreAndRejectsCorruptFilesWith400() throws Exception {
    int partition = 1;
    byte[] bytes = partitionBytes(byPartition.get(partition));
    byte[] corrupt = bytes.clone();
    corrupt[corrupt.length / 2] ^= 0x10;
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + node.port() + "/partitions/1/versions/50"))
                .header("Authorization", "Bearer " + ADMIN_TOKEN)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(corrupt))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("v1/1/50").contains("fails verification");

    r =
        HTTP.send(
            HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + node.port() + "/partitions/1/versions/51"))
                .header("Authorization", "Bearer " + ADMIN_TOKEN)
                .PUT(HttpRequest.BodyPublishers.ofByteArray(bytes))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    org.awaitility.Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              try (Generation g = node.generations().acquire()) {
                return g.files().get(partition).version() == 51;
              }
            });
  }

  @Test
  void healthIsDownUntilAGenerationIsOpen(@TempDir Path empty) throws Exception {
    try (SearcherNode idle =
        SearcherNode.builder(empty).port(0).scanInterval(Duration.ZERO).build()) {
      idle.start();
      HttpResponse<String> r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + idle.port() + "/health"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.body()).contains("\"DOWN\"").contains("no generation open yet");
      r =
          HTTP.send(
              HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + idle.port() + "/search"))
                  .POST(HttpRequest.BodyPublishers.ofString("{}"))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(503);
    }
  }
}
