package dev.mosaic.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mosaic.transport.impl.TransportMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A small local cluster (real ZooKeeper and Kafka in-process, one indexer, one searcher) proves the
 * operator's view end to end: every metric the Grafana dashboard in {@code deploy/grafana} queries
 * is in a running searcher's or indexer's {@code /metrics}, the indexers serve {@code /metrics} on
 * their own port, and start-up reports its steps as progress lines.
 */
class DashboardOnRunningClusterTest {
  private static final Path REPO = Path.of("").toAbsolutePath().getParent();
  private static final Pattern METRIC = Pattern.compile("\\bmosaic_[a-z0-9_]+");
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final List<String> PROGRESS = new CopyOnWriteArrayList<>();
  private static LocalCluster cluster;

  /** Metrics that appear on their first event, proven by a scrape after that event. */
  private static final Set<String> EVENT_ONLY = Set.of("mosaic_transport_retries_total");

  @BeforeAll
  static void start() throws Exception {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("mosaic.partitions", "4");
    o.put("mosaic.kafka.topic-partitions", "2");
    o.put("mosaic.feed.partners", "3");
    o.put("mosaic.feed.offers", "60");
    o.put("mosaic.feed.interval", "1s");
    o.put("mosaic.indexer.nodes", "1");
    o.put("mosaic.indexer.debounce", "50ms");
    o.put("mosaic.indexer.max-delay", "200ms");
    o.put("mosaic.indexer.rebuild-threads", "1");
    o.put("mosaic.searcher.dcs", "[dc-a, dc-b]");
    o.put("mosaic.searcher.nodes-per-dc", "1");
    o.put("mosaic.searcher.query-threads", "1");
    o.put("mosaic.probe.interval", "500ms");
    o.put("mosaic.indexes", LocalQueries.indexesValue(List.of("cars", "realty")));
    o.put("mosaic.local.ready-timeout", "120s");
    cluster = new LocalCluster(MosaicConfig.withOverrides(o)).onProgress(PROGRESS::add);
    cluster.start();
  }

  @AfterAll
  static void stop() {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  void startUpPrintsEachStepWithItsElapsedTime() {
    assertThat(PROGRESS).allMatch(l -> l.matches("\\[ *\\d+\\.\\ds\\] .+"), "timestamped lines");
    String all = String.join("\n", PROGRESS);
    assertThat(all)
        .contains("ZooKeeper up at")
        .contains("Kafka (KRaft) up at")
        .contains("topics offers (2 partitions)")
        .contains("searcher dc-b-1 started (2/2)")
        .contains("indexer indexer-1 started (1/1), metrics at http://127.0.0.1:")
        .contains("feed loaded 3/3 partners")
        .contains("local cluster ready");
  }

  @Test
  void everyMetricTheDashboardQueriesIsInARunningNodesMetrics() throws Exception {
    JsonNode dashboard =
        new ObjectMapper().readTree(REPO.resolve("deploy/grafana/mosaic-dashboard.json").toFile());
    Set<String> referenced = new TreeSet<>();
    for (JsonNode panel : dashboard.path("panels")) {
      for (JsonNode t : panel.path("targets")) {
        Matcher m = METRIC.matcher(t.path("expr").asText());
        while (m.find()) {
          referenced.add(m.group());
        }
      }
    }
    assertThat(referenced)
        .contains("mosaic_indexer_consumer_lag", "mosaic_indexer_rebuild_duration_seconds_sum");

    // the probe keeps partitions changing: a delivery and a rebuild have happened by now
    cluster.awaitConverged(Duration.ofSeconds(60));
    // and the probe has timed a change on some searcher (its timer appears on its first sample)
    await().atMost(Duration.ofSeconds(60)).until(() -> cluster.probe().samples() > 0);
    StringBuilder scrapes = new StringBuilder();
    for (SearcherRole s : cluster.runningSearchers()) {
      scrapes.append(get(s.httpAddress() + "/metrics"));
    }
    String indexerScrape = "";
    for (IndexerRole i : cluster.runningIndexers()) {
      indexerScrape = get(i.metricsUrl());
      scrapes.append(indexerScrape);
    }
    assertThat(indexerScrape)
        .as("the indexer's own /metrics, tagged with its node id and index")
        .contains("mosaic_indexer_consumer_lag{index=\"cars\",node=\"indexer-1\"}")
        .contains(
            "mosaic_indexer_rebuild_duration_seconds_count{index=\"cars\",node=\"indexer-1\"}");

    // counted per kind on the first event only: a healthy cluster has had no retry yet
    PrometheusMeterRegistry events = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    new TransportMetrics(events).retry("entry");
    String eventScrape = events.scrape();
    List<String> missing = new ArrayList<>();
    for (String metric : referenced) {
      boolean running = exported(scrapes, metric);
      boolean afterEvent = EVENT_ONLY.contains(metric) && exported(eventScrape, metric);
      if (!running && !afterEvent) {
        missing.add(metric);
      }
    }
    assertThat(missing).as("dashboard metrics no running node exports").isEmpty();
  }

  @Test
  void eachIndexHasItsFreshnessProbeTimedOnEverySearcher() throws Exception {
    List<String> all = cluster.runningSearchers().stream().map(SearcherRole::nodeId).toList();
    for (String index : List.of("cars", "realty")) {
      FreshnessProbe probe = cluster.probe(index);
      assertThat(probe.index()).isEqualTo(index);
      assertThat(probe.measure(Duration.ofSeconds(60)).keySet())
          .containsExactlyInAnyOrderElementsOf(all);
    }
    for (SearcherRole s : cluster.runningSearchers()) {
      assertThat(get(s.httpAddress() + "/metrics"))
          .contains("mosaic_probe_freshness_seconds_count{index=\"cars\"}")
          .contains("mosaic_probe_freshness_seconds_count{index=\"realty\"}");
    }
  }

  @Test
  void theIndexerMetricsEndpointServesOnlyMetrics() throws Exception {
    String url = cluster.runningIndexers().getFirst().metricsUrl();
    HttpResponse<String> other =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url.replace("/metrics", "/status"))).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(other.statusCode()).isEqualTo(404);
    assertThat(other.body()).contains("serves only /metrics");
    HttpResponse<String> post =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url))
                .POST(HttpRequest.BodyPublishers.ofString("x"))
                .build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(post.statusCode()).isEqualTo(405);
  }

  private static boolean exported(CharSequence scrape, String metric) {
    return Pattern.compile("(?m)^" + Pattern.quote(metric) + "[{ ]").matcher(scrape).find();
  }

  private static String get(String url) throws Exception {
    HttpResponse<String> r =
        HTTP.send(
            HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10)).build(),
            HttpResponse.BodyHandlers.ofString());
    assertThat(r.statusCode()).as(url).isEqualTo(200);
    assertThat(r.headers().firstValue("Content-Type"))
        .hasValueSatisfying(ct -> assertThat(ct).startsWith("text/plain"));
    return r.body();
  }
}
