package dev.mosaic.transport;

import dev.mosaic.transport.impl.DefaultTransportSender;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.Closeable;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The indexer-side {@link PartitionSender}: watches the searchers in ZooKeeper and, for each file,
 * streams it to one random live searcher per datacenter (which relays it inside its datacenter),
 * retrying other searchers of a datacenter with backoff. Once a first datacenter accepted a
 * version, it advances the {@link PartitionManifest} (setting {@code write-manifest}; the indexer
 * does not need to). Lifecycle: LATENT → {@link #start()} → STARTED → {@link #close()} → CLOSED.
 *
 * <p>Thread safety: safe for concurrent use after {@link #start()}.
 */
public interface TransportSender extends PartitionSender, Closeable {

  /** A builder; node id, datacenter and Curator client are required. */
  static Builder builder() {
    return new Builder();
  }

  /** Starts watching discovery and the manifest; call once. */
  void start() throws Exception;

  /** The live view of searchers this sender delivers to. */
  SearcherDiscovery discovery();

  /** The manifest this sender advances. */
  PartitionManifest manifest();

  /**
   * Fails deliveries not yet finished with a {@link java.util.concurrent.CancellationException};
   * closes the actor system only if the builder created it; idempotent.
   */
  @Override
  void close();

  /** Configuration of a {@link TransportSender}; not thread safe. */
  final class Builder {
    private String nodeId;
    private String dc;
    private CuratorFramework curator;
    private TransportSettings settings;
    private ActorSystem<?> system;
    private MeterRegistry registry;
    private TransportSecurity security;

    private Builder() {}

    /**
     * How connections from this sender are secured. Default: {@link TransportSecurity#fromConfig}
     * of the actor system's config for this node id — mutual TLS with the configured keystores, or
     * with the JVM's development CA when none are configured.
     */
    public Builder security(TransportSecurity security) {
      this.security = Objects.requireNonNull(security, "security");
      return this;
    }

    /** This sender's name in logs, headers and the manifest, e.g. {@code indexer-1}. */
    public Builder nodeId(String nodeId) {
      this.nodeId = nodeId;
      return this;
    }

    /** The datacenter the sender runs in (for per-link byte counters). */
    public Builder dc(String dc) {
      this.dc = dc;
      return this;
    }

    /** A started Curator client; not closed by the sender. */
    public Builder curator(CuratorFramework curator) {
      this.curator = curator;
      return this;
    }

    /** Overrides the settings of the actor system's {@code mosaic.transport} config. */
    public Builder settings(TransportSettings settings) {
      this.settings = settings;
      return this;
    }

    /** Runs on this actor system (not closed by the sender); by default the sender makes one. */
    public Builder actorSystem(ActorSystem<?> system) {
      this.system = system;
      return this;
    }

    /** Where the meters go; a {@link SimpleMeterRegistry} by default. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = registry;
      return this;
    }

    /** Builds a LATENT sender. */
    public TransportSender build() {
      Objects.requireNonNull(nodeId, "nodeId is required");
      Objects.requireNonNull(dc, "dc is required");
      Objects.requireNonNull(curator, "curator is required");
      return new DefaultTransportSender(
          nodeId,
          dc,
          curator,
          settings,
          system,
          registry == null ? new SimpleMeterRegistry() : registry,
          security);
    }
  }
}
