package dev.mosaic.searcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mosaic.transport.impl.TransportMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The Grafana dashboard in {@code deploy/grafana} is valid JSON and queries only metrics that
 * exist: searcher metrics must appear in a running searcher's {@code /metrics}; transport counters
 * and timers in a Prometheus scrape of the transport's own {@link TransportMetrics}; the
 * transport's gauges, the indexer's meters (whose nodes need ZooKeeper or Kafka) and the local
 * cluster's freshness probe timer must be registered under the matching Micrometer name in those
 * modules' sources.
 */
class DashboardMetricsTest {
  private static final Path REPO = Path.of("").toAbsolutePath().getParent();
  private static final Path DASHBOARD = REPO.resolve("deploy/grafana/mosaic-dashboard.json");
  private static final Pattern METRIC = Pattern.compile("\\bmosaic_[a-z0-9_]+");
  private static final Pattern SUFFIX = Pattern.compile("(_bucket|_count|_sum|_max|_total)$");

  @TempDir Path store;

  @Test
  void everyMetricTheDashboardQueriesIsExported() throws Exception {
    JsonNode dashboard = new ObjectMapper().readTree(DASHBOARD.toFile());
    assertThat(dashboard.path("title").asText()).isEqualTo("Mosaic");
    Set<String> referenced = new TreeSet<>();
    List<JsonNode> targets = new ArrayList<>();
    for (JsonNode panel : dashboard.path("panels")) {
      panel.path("targets").forEach(targets::add);
    }
    assertThat(targets).as("dashboard panel queries").hasSizeGreaterThan(10);
    for (JsonNode t : targets) {
      Matcher m = METRIC.matcher(t.path("expr").asText());
      boolean any = false;
      while (m.find()) {
        referenced.add(m.group());
        any = true;
      }
      assertThat(any).as("query names a Mosaic metric: %s", t.path("expr").asText()).isTrue();
    }
    // the rows the operator needs
    assertThat(referenced)
        .contains(
            "mosaic_searcher_query_seconds_bucket",
            "mosaic_searcher_reopen_seconds_count",
            "mosaic_transport_bytes_total",
            "mosaic_indexer_consumer_lag",
            "mosaic_indexer_rebuild_duration_seconds_sum");

    String searcherScrape = searcherMetrics();
    PrometheusMeterRegistry transport = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    TransportMetrics tm = new TransportMetrics(transport);
    tm.bytesSent("dc-a", "dc-b", 10);
    tm.bytesReceived("dc-a", "dc-b", 10);
    tm.delivery("entry", true, Duration.ofMillis(3));
    tm.retry("entry");
    String transportScrape = transport.scrape();
    String sources =
        sources(
            REPO.resolve("transport/src/main/java"),
            REPO.resolve("indexer/src/main/java"),
            REPO.resolve("deploy/src/main/java"));

    List<String> missing = new ArrayList<>();
    for (String metric : referenced) {
      boolean found;
      if (metric.startsWith("mosaic_searcher_")) {
        found = exported(searcherScrape, metric);
      } else if (exported(transportScrape, metric)) {
        found = true;
      } else {
        found = registeredInSources(sources, metric);
      }
      if (!found) {
        missing.add(metric);
      }
    }
    assertThat(missing).as("dashboard metrics nobody exports").isEmpty();
  }

  private static boolean exported(String scrape, String metric) {
    return Pattern.compile("(?m)^" + Pattern.quote(metric) + "[{ ]").matcher(scrape).find();
  }

  /** True when some {@code X.builder("mosaic.a.b")} registers the meter Prometheus names so. */
  private static boolean registeredInSources(String sources, String metric) {
    String base = SUFFIX.matcher(metric).replaceAll("");
    boolean timer = base.endsWith("_seconds");
    if (timer) {
      base = base.substring(0, base.length() - "_seconds".length());
    }
    String micrometerName = base.replace('_', '.');
    String builder = timer ? "Timer" : metric.endsWith("_total") ? "Counter" : "Gauge";
    return sources.contains(builder + ".builder(\"" + micrometerName + "\"");
  }

  private static String sources(Path... roots) throws IOException {
    StringBuilder all = new StringBuilder();
    for (Path root : roots) {
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
          // builders are often split over lines: join them
          all.append(Files.readString(f).replaceAll("\\s*\\n\\s*", ""));
        }
      }
    }
    return all.toString();
  }

  /** A real node's /metrics after it served a generation, a search and a count. */
  private String searcherMetrics() throws Exception {
    try (SearcherNode node =
        SearcherNode.builder(store).port(0).scanInterval(Duration.ZERO).build()) {
      node.start();
      TestFiles.publish(node.store(), 0, 1);
      TestFiles.publish(node.store(), 1, 1);
      node.generations().reopen().join();
      HttpClient http = HttpClient.newHttpClient();
      String base = "http://127.0.0.1:" + node.port();
      for (String endpoint : List.of("/search", "/count")) {
        String body = endpoint.equals("/search") ? "{\"limit\": 1}" : "{}";
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(base + endpoint))
                    .POST(HttpRequest.BodyPublishers.ofString(body))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(endpoint + ": " + r.body()).isEqualTo(200);
      }
      // a second version retires the first one: reopen and unmap timers get samples
      TestFiles.publish(node.store(), 0, 2);
      node.generations().reopen().join();
      return http.send(
              HttpRequest.newBuilder(URI.create(base + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString())
          .body();
    }
  }
}
