package dev.mosaic.deploy;

import dev.mosaic.indexer.IndexerNode;
import dev.mosaic.indexer.RebuildListener;
import dev.mosaic.searcher.IndexMeters;
import dev.mosaic.transport.TransportSender;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One indexer as the launcher runs it: an {@link IndexerNode} in the indexers' consumer group,
 * recording versions in the partition manifest (the one its own {@link TransportSender} watches)
 * and handing files to that sender (one copy per datacenter, which marks them accepted), with its
 * own Curator client; optionally serving its meters at {@code /metrics} (see {@link
 * #metricsEndpoint}).
 *
 * <p>Lifecycle: LATENT → {@link #start()} → STARTED → {@link #close()} → CLOSED, by CAS.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class IndexerRole implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(IndexerRole.class);

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final String nodeId;
  private final String dc;
  private final Path outputDir;
  private final MosaicConfig config;
  private final String zkConnect;
  private final String bootstrapServers;
  private final ActorSystem system;
  private final RebuildListener listener;
  private final MeterRegistry registry;
  private final IndexConfig index;
  private CuratorFramework curator;
  private TransportSender sender;
  private IndexerNode node;
  private String metricsHost;
  private int metricsPort;
  private MetricsEndpoint metrics;

  /**
   * A LATENT indexer.
   *
   * @param system a shared classic actor system for the sender, or null for a private one
   * @param listener told about every rebuilt file
   * @param registry where the node and its sender register their meters, or null for a Prometheus
   *     registry of its own (needed by {@link #metricsEndpoint})
   */
  public IndexerRole(
      String nodeId,
      String dc,
      Path outputDir,
      MosaicConfig config,
      String zkConnect,
      String bootstrapServers,
      ActorSystem system,
      RebuildListener listener,
      MeterRegistry registry) {
    this(
        nodeId,
        dc,
        outputDir,
        config,
        config.defaultIndex(),
        zkConnect,
        bootstrapServers,
        system,
        listener,
        registry);
  }

  /**
   * A LATENT indexer of one index: its topics, partitions, schema, consumer group and manifest (in
   * the index's ZooKeeper root). Its meters carry the tag {@code index=<name>}.
   *
   * @param system a shared classic actor system for the sender, or null for a private one
   * @param listener told about every rebuilt file
   * @param registry where the node and its sender register their meters (tagged with the index), or
   *     null for a Prometheus registry of its own (needed by {@link #metricsEndpoint})
   */
  public IndexerRole(
      String nodeId,
      String dc,
      Path outputDir,
      MosaicConfig config,
      IndexConfig index,
      String zkConnect,
      String bootstrapServers,
      ActorSystem system,
      RebuildListener listener,
      MeterRegistry registry) {
    this.index = Objects.requireNonNull(index, "index");
    this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
    this.dc = Objects.requireNonNull(dc, "dc");
    this.outputDir = Objects.requireNonNull(outputDir, "outputDir");
    this.config = Objects.requireNonNull(config, "config");
    this.zkConnect = Objects.requireNonNull(zkConnect, "zkConnect");
    this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    this.system = system;
    this.listener = listener == null ? (id, file, documents) -> {} : listener;
    this.registry =
        registry == null ? new PrometheusMeterRegistry(PrometheusConfig.DEFAULT) : registry;
  }

  /**
   * Serves the indexer's meters at {@code http://host:port/metrics} once started.
   *
   * @param port 0 for any free port
   * @throws IllegalStateException unless LATENT, or when the registry given to the constructor is
   *     not a Prometheus registry
   */
  public IndexerRole metricsEndpoint(String host, int port) {
    if (state.get() != State.LATENT) {
      throw new IllegalStateException("indexer " + nodeId + " is " + state.get());
    }
    if (!(registry instanceof PrometheusMeterRegistry)) {
      throw new IllegalStateException(
          "indexer "
              + nodeId
              + " registers its meters in a "
              + registry.getClass().getSimpleName()
              + ", which cannot be served at /metrics: pass a PrometheusMeterRegistry or null");
    }
    this.metricsHost = Objects.requireNonNull(host, "host");
    this.metricsPort = port;
    return this;
  }

  /**
   * Connects to ZooKeeper, starts the sender, joins the consumer group.
   *
   * @throws IllegalStateException unless LATENT, or when the offers topic is missing
   * @throws IOException when ZooKeeper cannot be reached or the output directory not written
   */
  public IndexerRole start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("indexer " + nodeId + " is " + state.get());
    }
    try {
      curator = ZooKeeperClients.started(zkConnect, config);
      MeterRegistry meters = IndexMeters.tagged(registry, index.name());
      TransportSender.Builder sb =
          TransportSender.builder()
              .nodeId(nodeId)
              .dc(dc)
              .curator(curator)
              .settings(config.transportSettings().toBuilder().zkRoot(index.zkRoot()).build())
              .meterRegistry(meters);
      if (system != null) {
        sb.actorSystem(Adapter.toTyped(system));
      }
      sender = sb.build();
      sender.start();
      MosaicConfig.Indexer ic = config.indexer;
      node =
          IndexerNode.builder()
              .bootstrapServers(bootstrapServers)
              .offersTopic(index.offersTopic())
              .deadLetterTopic(index.deadLetterTopic())
              .groupId(index.groupId())
              .partitions(index.partitions())
              .schema(index.schema().schema())
              .outputDir(outputDir)
              .sender(sender)
              .manifest(sender.manifest())
              .debounce(ic.debounce)
              .maxDelay(ic.maxDelay)
              .rebuildThreads(ic.rebuildThreads)
              .retainVersions(ic.retainVersions)
              .meterRegistry(meters)
              .rebuildListener(listener)
              .nodeName(nodeId)
              .build();
      node.start();
      if (metricsHost != null) {
        metrics =
            new MetricsEndpoint(
                    nodeId, metricsHost, metricsPort, (PrometheusMeterRegistry) registry)
                .start();
      }
      LOG.info("indexer {} of {} started, writing to {}", nodeId, index, outputDir);
      return this;
    } catch (Exception e) {
      close();
      throw e instanceof IOException io
          ? io
          : new IOException("indexer " + nodeId + " did not start: " + e, e);
    }
  }

  /** Node id. */
  public String nodeId() {
    return nodeId;
  }

  /** True while started. */
  public boolean isRunning() {
    return state.get() == State.STARTED;
  }

  /** The indexer node (ownership, lag, dirty partitions). */
  public IndexerNode node() {
    return node;
  }

  /** The index it builds. */
  public IndexConfig index() {
    return index;
  }

  /** The registry of the node's and its sender's meters (tagged with the index). */
  public MeterRegistry registry() {
    return registry;
  }

  /** The {@code /metrics} address, or null when not served. */
  public String metricsUrl() {
    MetricsEndpoint m = metrics;
    return m == null ? null : m.url();
  }

  /** The sender. */
  public TransportSender sender() {
    return sender;
  }

  /** Stops following, then the sender, then the ZooKeeper client; idempotent. */
  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) == State.CLOSED) {
      return;
    }
    if (metrics != null) {
      metrics.close();
    }
    if (node != null) {
      try {
        node.close();
      } catch (RuntimeException e) {
        LOG.warn("closing indexer node {} failed", nodeId, e);
      }
    }
    if (sender != null) {
      sender.close();
    }
    if (curator != null) {
      curator.close();
    }
    LOG.info("indexer {} stopped", nodeId);
  }

  @Override
  public String toString() {
    return "indexer " + nodeId;
  }
}
