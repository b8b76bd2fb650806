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
 * Every query limit over real HTTP: a node with small structural limits, and a node whose time
 * budget is so small that every query producing hits runs over it. The first node has no operator
 * token, so its admin endpoints are disabled.
 */
class QueryLimitsHttpTest {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  @TempDir static Path root;
  @TempDir static Path slowRoot;
  static SearcherNode limited;
  static SearcherNode noTime;

  @BeforeAll
  static void start() throws Exception {
    List<CarOffer> cars = CarOfferGenerator.builder().seed(7).build().next(200);
    limited =
        SearcherNode.builder(root)
            .port(0)
            .scanInterval(Duration.ZERO)
            .maxLimit(20)
            .maxClauses(6)
            .maxDepth(3)
            .maxInValues(4)
            .build();
    noTime =
        SearcherNode.builder(slowRoot)
            .port(0)
            .scanInterval(Duration.ZERO)
            .queryTimeBudget(Duration.ofNanos(1))
            .build();
    for (SearcherNode n : List.of(limited, noTime)) {
      n.start();
      SearcherHttpTest.publish(n.store(), 0, 1, cars);
      n.generations().reopen().join();
    }
  }

  @AfterAll
  static void stop() {
    for (SearcherNode n : new SearcherNode[] {limited, noTime}) {
      if (n != null) {
        n.close();
      }
    }
  }

  static HttpResponse<String> post(SearcherNode n, String path, String body) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.port() + path))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static String eqs(int n) {
    return IntStream.range(0, n)
        .mapToObj(i -> "{\"eq\": {\"mark\": \"m" + i + "\"}}")
        .collect(Collectors.joining(",", "{\"or\": [", "]}"));
  }

  @Test
  void aLimitOverTheMaximumIsRefused() throws Exception {
    HttpResponse<String> r = post(limited, "/search", "{\"limit\": 21}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("limit: 21 is over the maximum of 20");
    assertThat(post(limited, "/search", "{\"limit\": 20}").statusCode()).isEqualTo(200);
  }

  @Test
  void tooManyClausesAreRefusedAndTheLimitItselfIsAccepted() throws Exception {
    // an "or" of 5 equalities is 6 clauses: the maximum
    assertThat(post(limited, "/count", "{\"filter\": " + eqs(5) + "}").statusCode()).isEqualTo(200);
    HttpResponse<String> r = post(limited, "/search", "{\"filter\": " + eqs(6) + "}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("more than the maximum of 6 clauses");
    r = post(limited, "/count", "{\"filter\": " + eqs(6) + "}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("more than the maximum of 6 clauses");
  }

  @Test
  void nestingDeeperThanTheMaximumIsRefused() throws Exception {
    String depth3 = "{\"not\": {\"not\": {\"eq\": {\"mark\": \"x\"}}}}";
    assertThat(post(limited, "/count", "{\"filter\": " + depth3 + "}").statusCode()).isEqualTo(200);
    HttpResponse<String> r = post(limited, "/search", "{\"filter\": {\"and\": [" + depth3 + "]}}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("filter.and[0].not.not:").contains("maximum depth of 3");
    // JSON nested far beyond any limit is refused without a stack overflow
    String deep = "{\"not\": ".repeat(5000) + "{\"all\": {}}" + "}".repeat(5000);
    r = post(limited, "/count", "{\"filter\": " + deep + "}");
    assertThat(r.statusCode()).isEqualTo(400);
  }

  @Test
  void anInListLongerThanTheMaximumIsRefused() throws Exception {
    assertThat(
            post(limited, "/count", "{\"filter\": {\"in\": {\"mark\": [\"a\",\"b\",\"c\",\"d\"]}}}")
                .statusCode())
        .isEqualTo(200);
    HttpResponse<String> r =
        post(
            limited,
            "/count",
            "{\"filter\": {\"in\": {\"mark\": [\"a\",\"b\",\"c\",\"d\",\"e\"]}}}");
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("filter.in.mark: 5 values is over the maximum of 4");
  }

  @Test
  void aQueryOverItsTimeBudgetIsCancelledWithAClearErrorAndTheNodeKeepsServing() throws Exception {
    for (int i = 0; i < 3; i++) {
      HttpResponse<String> r = post(noTime, "/search", "{\"limit\": 10}");
      assertThat(r.statusCode()).isEqualTo(400);
      assertThat(r.body()).contains("query cancelled: over its time budget of 0 ms");
    }
    assertThat(get(noTime, "/health").statusCode()).isEqualTo(200);
    // the budget is per node: the other node answers the same query
    assertThat(post(limited, "/search", "{\"limit\": 10}").statusCode()).isEqualTo(200);
  }

  @Test
  void withoutAnOperatorTokenAdminEndpointsAreDisabled() throws Exception {
    HttpResponse<String> r = post(limited, "/partitions/0/pin?version=1", "");
    assertThat(r.statusCode()).isEqualTo(403);
    assertThat(r.body()).contains("admin endpoints are disabled").contains("adminToken");
    assertThat(
            HTTP.send(
                    HttpRequest.newBuilder(
                            URI.create(
                                "http://127.0.0.1:" + limited.port() + "/partitions/0/unpin"))
                        .header("Authorization", "Bearer anything-at-all-0123456")
                        .POST(HttpRequest.BodyPublishers.noBody())
                        .build(),
                    HttpResponse.BodyHandlers.ofString())
                .statusCode())
        .isEqualTo(403);
  }

  static HttpResponse<String> get(SearcherNode n, String path) throws Exception {
    return HTTP.send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + n.port() + path)).GET().build(),
        HttpResponse.BodyHandlers.ofString());
  }
}
