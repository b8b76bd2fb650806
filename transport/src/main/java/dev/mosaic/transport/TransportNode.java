package dev.mosaic.transport;

import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.transport.impl.DefaultTransportNode;
import java.io.Closeable;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The transport of one searcher: listens for partition files, streams them into its {@link
 * ReceivingStore}, acknowledges, relays files that came from outside to every other live searcher
 * of its datacenter, serves and runs catch-up against the {@link PartitionManifest}, and registers
 * itself in ZooKeeper (re-registering after a session expiry). Several nodes may run in one JVM, on
 * one shared actor system or each on its own. Lifecycle: LATENT → {@link #start()} → STARTED →
 * {@link #close()} → CLOSED.
 *
 * <p>Thread safety: safe for concurrent use after {@link #start()}.
 */
public interface TransportNode extends Closeable {

  /** A builder; node id, datacenter, Curator client and store are required. */
  static Builder builder() {
    return new Builder();
  }

  /**
   * Binds, registers in discovery and starts catch-up; call once.
   *
   * @throws Exception when the port cannot be bound
   */
  void start() throws Exception;

  /** This node as registered in discovery (with the bound port when the builder said 0). */
  SearcherEndpoint endpoint();

  /** Freshness against the manifest, for the searcher's {@code /health}. */
  TransportHealth health();

  /** The live view of searchers this node relays to and fetches from. */
  SearcherDiscovery discovery();

  /** The manifest this node catches up with. */
  PartitionManifest manifest();

  /** Compares the store with the manifest now and fetches what is missing (asynchronously). */
  void catchUpNow();

  /**
   * Deregisters, unbinds, aborts transfers in progress (their staged bytes are deleted; published
   * files stay), and closes the actor system only if the builder created it; idempotent.
   */
  @Override
  void close();

  /** Configuration of a {@link TransportNode}; not thread safe. */
  final class Builder extends TransportEndpointBuilder<Builder> {
    private String bindHost = "127.0.0.1";
    private int bindPort;
    private String advertisedHost;
    private int advertisedPort = -1;
    private String httpAddress = "";
    private ReceivingStore store;
    private Supplier<Optional<String>> refusal = Optional::empty;

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** Where the transport listens; port 0 picks a free port. Default 127.0.0.1:0. */
    public Builder bind(String host, int port) {
      this.bindHost = host;
      this.bindPort = port;
      return this;
    }

    /**
     * The address registered in discovery when it differs from the bind address (NAT, a proxy,
     * binding 0.0.0.0). Default: the bind host and the bound port.
     */
    public Builder advertise(String host, int port) {
      this.advertisedHost = host;
      this.advertisedPort = port;
      return this;
    }

    /** The searcher's HTTP API base address, registered for clients. Default empty. */
    public Builder httpAddress(String httpAddress) {
      this.httpAddress = httpAddress;
      return this;
    }

    /** The searcher's partition store. */
    public Builder store(ReceivingStore store) {
      this.store = store;
      return this;
    }

    /**
     * Asked before every incoming delivery: a present value refuses it with that reason (e.g. the
     * searcher is overloaded or unhealthy); the sender then tries another searcher. NOTE: called on
     * a stream thread, must be fast and must not block.
     */
    public Builder refuseWhen(Supplier<Optional<String>> refusal) {
      this.refusal = Objects.requireNonNull(refusal, "refusal");
      return this;
    }

    /** Builds a LATENT node. */
    public TransportNode build() {
      requireCommon();
      Objects.requireNonNull(store, "store is required");
      // validates names early
      new SearcherEndpoint(nodeId, dc, bindHost, bindPort, httpAddress);
      return new DefaultTransportNode(
          nodeId,
          dc,
          bindHost,
          bindPort,
          advertisedHost,
          advertisedPort,
          httpAddress,
          curator,
          store,
          settings,
          system,
          registryOrDefault(),
          refusal,
          security);
    }
  }
}
