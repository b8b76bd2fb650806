package dev.mosaic.searcher;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.feed.CarOffer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query cost limits over real HTTP on a node with small limits: paging depth ({@code skip +
 * limit}), facets, facet values, stats, sort keys, fields. Each refusal is a 400 naming the limit,
 * and the query exactly at the limit passes.
 */
class QueryCostLimitsHttpTest {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir static Path root;
  static SearcherNode node;

  @BeforeAll
  static void start() throws Exception {
    List<CarOffer> cars = CarOfferGenerator.builder().seed(11).build().next(300);
    node =
        SearcherNode.builder(root)
            .port(0)
            .scanInterval(Duration.ZERO)
            .queryLimits(new QueryLimits(20, 50, 64, 8, 64, 2, 5, 2, 2, 3, Duration.ofSeconds(10)))
            .build();
    node.start();
    SearcherHttpTest.publish(node.store(), 0, 1, cars);
    node.generations().reopen().join();
  }

  @AfterAll
  static void stop() {
    if (node != null) {
      node.close();
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

  private static void refused(String path, String body, String... fragments) throws Exception {
    HttpResponse<String> r = post(path, body);
    assertThat(r.statusCode()).as(body).isEqualTo(400);
    assertThat(r.body()).contains(fragments);
  }

  private static void accepted(String path, String body) throws Exception {
    HttpResponse<String> r = post(path, body);
    assertThat(r.statusCode()).as(body + " -> " + r.body()).isEqualTo(200);
  }

  @Test
  void pagingPastTheResultWindowIsRefusedNamingTheLimit() throws Exception {
    accepted("/search", "{\"skip\": 30, \"limit\": 20}");
    refused("/search", "{\"skip\": 31, \"limit\": 20}", "skip + limit = 51", "maxResultWindow");
    refused(
        "/search",
        "{\"skip\": " + Integer.MAX_VALUE + ", \"limit\": 1}",
        "over the maximum result window of 50");
  }

  @Test
  void tooManyFacetsAreRefusedBeforeAnyWorkEvenFiveThousand() throws Exception {
    accepted("/count", "{\"facets\": [\"mark\", \"color\"]}");
    refused("/count", "{\"facets\": [\"mark\", \"color\", \"region\"]}", "facets: 3", "maxFacets");
    String many =
        IntStream.range(0, 5000).mapToObj(i -> "\"mark\"").collect(Collectors.joining(","));
    long t0 = System.nanoTime();
    refused("/search", "{\"facets\": [" + many + "]}", "facets: 5000 entries", "maxFacets");
    assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(5));
  }

  @Test
  void facetValuesOverTheMaximumAreRefusedAskedOrReturned() throws Exception {
    accepted("/count", "{\"facets\": [{\"field\": \"mark\", \"top\": 5}]}");
    refused(
        "/count",
        "{\"facets\": [{\"field\": \"mark\", \"top\": 6}]}",
        "facets[0].top: 6",
        "maxFacetValues");
    refused(
        "/count",
        "{\"facets\": [{\"field\": \"mark\", \"values\": [\"a\",\"b\",\"c\",\"d\",\"e\",\"f\"]}]}",
        "facets[0].values: 6 entries",
        "maxFacetValues");
    // "all" over a field with more than 5 distinct values among the matches
    refused(
        "/count",
        "{\"facets\": [{\"field\": \"offer_id\", \"all\": true}]}",
        "facets[0]: field 'offer_id' has",
        "maxFacetValues");
  }

  @Test
  void tooManyStatsSortKeysOrFieldsAreRefused() throws Exception {
    accepted("/count", "{\"stats\": [\"price\", \"year\"]}");
    refused("/count", "{\"stats\": [\"price\", \"year\", \"mileage\"]}", "stats: 3", "maxStats");
    refused(
        "/count",
        "{\"stats\": [{\"field\": \"price\", \"bounds\": [1,2,3,4,5,6]}]}",
        "stats[0].bounds: 6 entries",
        "maxFacetValues");
    accepted("/search", "{\"orderBy\": [\"price\", \"-year\"]}");
    refused(
        "/search",
        "{\"orderBy\": [\"price\", \"-year\", \"mileage\"]}",
        "orderBy: 3",
        "maxOrderBy");
    accepted("/search", "{\"fields\": [\"price\", \"year\", \"mileage\"]}");
    refused(
        "/search",
        "{\"fields\": [\"price\", \"year\", \"mileage\", \"published\"]}",
        "fields: 4",
        "maxFields");
  }
}
