package dev.mosaic.transport;

import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.PartitionSender;
import dev.mosaic.transport.impl.DefaultTransportSender;
import java.io.Closeable;

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
  final class Builder extends TransportEndpointBuilder<Builder> {
    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** Builds a LATENT sender. */
    public TransportSender build() {
      requireCommon();
      return new DefaultTransportSender(
          nodeId, dc, curator, settings, system, registryOrDefault(), security);
    }
  }
}
