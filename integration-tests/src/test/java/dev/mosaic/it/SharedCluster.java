package dev.mosaic.it;

import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.deploy.MosaicConfig;
import dev.mosaic.deploy.SearcherRole;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolver;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One {@link LocalCluster} shared by every test class of the run that asks for it (a {@link
 * LocalCluster} parameter): real ZooKeeper and real Kafka (KRaft) in-process, two indexers, two
 * datacenters of two searchers, the feed simulator. It is started by the first test that needs it
 * and closed when the run ends. Tests that break something put it back (see {@link #heal}).
 *
 * <p>The configuration is the launcher's, made small for a 2-core machine: P=16, 12 partners, and a
 * freshness probe that only runs when a test asks.
 */
public final class SharedCluster implements ParameterResolver {
  private static final Logger LOG = LoggerFactory.getLogger(SharedCluster.class);
  private static final ExtensionContext.Namespace NAMESPACE =
      ExtensionContext.Namespace.create(SharedCluster.class);

  /** The test configuration's overrides of the launcher defaults. */
  public static Map<String, String> testOverrides() {
    Map<String, String> o = new LinkedHashMap<>();
    o.put("mosaic.partitions", "16");
    o.put("mosaic.kafka.topic-partitions", "4");
    o.put("mosaic.feed.partners", "12");
    o.put("mosaic.feed.offers", "1500");
    o.put("mosaic.feed.interval", "3s");
    o.put("mosaic.indexer.debounce", "100ms");
    o.put("mosaic.indexer.max-delay", "500ms");
    o.put("mosaic.indexer.rebuild-threads", "1");
    o.put("mosaic.searcher.query-threads", "2");
    o.put("mosaic.probe.interval", "1h");
    o.put("mosaic.probe.timeout", "60s");
    o.put("mosaic.local.ready-timeout", "240s");
    o.put("mosaic.zookeeper.session-timeout", "30s");
    o.put("mosaic.transport.catch-up-interval", "2s");
    o.put("mosaic.transport.catch-up-grace", "1s");
    o.put("mosaic.transport.retry-backoff-max", "1s");
    return o;
  }

  @Override
  public boolean supportsParameter(ParameterContext parameter, ExtensionContext context) {
    return parameter.getParameter().getType() == LocalCluster.class;
  }

  @Override
  public Object resolveParameter(ParameterContext parameter, ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NAMESPACE)
        .computeIfAbsent("cluster", k -> new Resource(start()), Resource.class)
        .cluster();
  }

  private static LocalCluster start() {
    long t0 = System.nanoTime();
    LocalCluster cluster = new LocalCluster(MosaicConfig.withOverrides(testOverrides()));
    try {
      cluster.start();
    } catch (Exception e) {
      cluster.close();
      throw new IllegalStateException("the shared local cluster did not start", e);
    }
    LOG.info("shared cluster started in {} ms", (System.nanoTime() - t0) / 1_000_000);
    return cluster;
  }

  /** Closed by JUnit when the run ends. */
  private record Resource(LocalCluster cluster) implements AutoCloseable {
    @Override
    public void close() {
      cluster.close();
    }
  }

  /**
   * Puts the cluster back into its normal shape after a fault: every searcher and indexer running,
   * the feed flowing, and a probe change visible on every searcher.
   */
  public static void heal(LocalCluster cluster) throws Exception {
    for (SearcherRole s : cluster.searchers()) {
      if (!s.isRunning()) {
        try {
          cluster.startSearcher(s.nodeId());
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }
    }
    for (int i = 1; i <= cluster.config().indexer.nodes; i++) {
      String id = "indexer-" + i;
      if (cluster.runningIndexers().stream().noneMatch(x -> x.nodeId().equals(id))) {
        cluster.startIndexer(id);
      }
    }
    cluster.simulator().resume();
    Map<String, Duration> seen = cluster.probe().measure(Duration.ofSeconds(90));
    List<String> running = cluster.runningSearchers().stream().map(SearcherRole::nodeId).toList();
    if (!seen.keySet().containsAll(running)) {
      throw new IllegalStateException(
          "cluster did not heal: probe seen on " + seen.keySet() + " of " + running);
    }
  }
}
