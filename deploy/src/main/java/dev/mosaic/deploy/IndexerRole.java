package dev.mosaic.deploy;

import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.indexer.IndexerNode;
import dev.mosaic.indexer.RebuildListener;
import dev.mosaic.indexer.ZooKeeperIndexManifest;
import dev.mosaic.transport.TransportSender;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
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
 * recording versions in the {@link ZooKeeperIndexManifest} and handing files to its own {@link
 * TransportSender} (one copy per datacenter, which then advances the partition manifest), with its
 * own Curator client.
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
  private CuratorFramework curator;
  private TransportSender sender;
  private IndexerNode node;

  /**
   * A LATENT indexer.
   *
   * @param system a shared classic actor system for the sender, or null for a private one
   * @param listener told about every rebuilt file
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
    this.nodeId = Objects.requireNonNull(nodeId, "nodeId");
    this.dc = Objects.requireNonNull(dc, "dc");
    this.outputDir = Objects.requireNonNull(outputDir, "outputDir");
    this.config = Objects.requireNonNull(config, "config");
    this.zkConnect = Objects.requireNonNull(zkConnect, "zkConnect");
    this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    this.system = system;
    this.listener = listener == null ? (id, file, documents) -> {} : listener;
    this.registry = registry == null ? new SimpleMeterRegistry() : registry;
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
      TransportSender.Builder sb =
          TransportSender.builder()
              .nodeId(nodeId)
              .dc(dc)
              .curator(curator)
              .settings(config.transportSettings())
              .meterRegistry(registry);
      if (system != null) {
        sb.actorSystem(Adapter.toTyped(system));
      }
      sender = sb.build();
      sender.start();
      MosaicConfig.Indexer ic = config.indexer;
      node =
          IndexerNode.builder()
              .bootstrapServers(bootstrapServers)
              .offersTopic(config.offersTopic)
              .deadLetterTopic(config.deadLetterTopic)
              .groupId(ic.groupId)
              .partitions(config.partitions)
              .schema(CarsSchema.SCHEMA)
              .outputDir(outputDir)
              .sender(sender)
              .manifest(new ZooKeeperIndexManifest(curator, config.zkRoot + "/index-manifest"))
              .deliveredManifest(sender.manifest())
              .debounce(ic.debounce)
              .maxDelay(ic.maxDelay)
              .rebuildThreads(ic.rebuildThreads)
              .retainVersions(ic.retainVersions)
              .meterRegistry(registry)
              .rebuildListener(listener)
              .build();
      node.start();
      LOG.info("indexer {} started, writing to {}", nodeId, outputDir);
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
