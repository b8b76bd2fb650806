package dev.mosaic.transport;

import dev.mosaic.transport.impl.DefaultTransportNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.Closeable;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.pekko.actor.typed.ActorSystem;

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
  final class Builder {
    private String nodeId;
    private String dc;
    private String bindHost = "127.0.0.1";
    private int bindPort;
    private String advertisedHost;
    private int advertisedPort = -1;
    private String httpAddress = "";
    private CuratorFramework curator;
    private ReceivingStore store;
    private TransportSettings settings;
    private ActorSystem<?> system;
    private MeterRegistry registry;
    private Supplier<Optional<String>> refusal = Optional::empty;
    private TransportSecurity security;

    private Builder() {}

    /**
     * How connections to and from this node are secured. Default: {@link
     * TransportSecurity#fromConfig} of the actor system's config for this node id — mutual TLS with
     * the configured keystores, or with the JVM's development CA when none are configured.
     */
    public Builder security(TransportSecurity security) {
      this.security = Objects.requireNonNull(security, "security");
      return this;
    }

    /** Unique node id (no '/'), e.g. {@code searcher-a1}. */
    public Builder nodeId(String nodeId) {
      this.nodeId = nodeId;
      return this;
    }

    /** The node's datacenter (no '/'). */
    public Builder dc(String dc) {
      this.dc = dc;
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

    /** A started Curator client; not closed by the node. Use one client per node. */
    public Builder curator(CuratorFramework curator) {
      this.curator = curator;
      return this;
    }

    /** The searcher's partition store. */
    public Builder store(ReceivingStore store) {
      this.store = store;
      return this;
    }

    /** Overrides the settings of the actor system's {@code mosaic.transport} config. */
    public Builder settings(TransportSettings settings) {
      this.settings = settings;
      return this;
    }

    /** Runs on this actor system (not closed by the node); by default the node makes one. */
    public Builder actorSystem(ActorSystem<?> system) {
      this.system = system;
      return this;
    }

    /** Where the meters go; a {@link SimpleMeterRegistry} by default. */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = registry;
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
      Objects.requireNonNull(nodeId, "nodeId is required");
      Objects.requireNonNull(dc, "dc is required");
      Objects.requireNonNull(curator, "curator is required");
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
          registry == null ? new SimpleMeterRegistry() : registry,
          refusal,
          security);
    }
  }
}
