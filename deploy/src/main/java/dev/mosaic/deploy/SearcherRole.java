package dev.mosaic.deploy;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.searcher.Generation;
import dev.mosaic.searcher.HealthContributor;
import dev.mosaic.searcher.SearcherNode;
import dev.mosaic.transport.SearcherDiscovery;
import dev.mosaic.transport.TransportHealth;
import dev.mosaic.transport.TransportNode;
import io.micrometer.core.instrument.Timer;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One searcher as the launcher runs it: a {@link SearcherNode} (store, generations, HTTP API) fed
 * by its own {@link TransportNode} (receiver, relay, catch-up, registration in ZooKeeper under its
 * datacenter), with its own Curator client and its own actor system (so that stopping it ends its
 * HTTP connections too, as a process exit would). The transport's staleness check is part of the
 * node's {@code /health}, and the transport's meters are in its {@code /metrics}.
 *
 * <p>Lifecycle: LATENT → {@link #start()} → STARTED → {@link #close()} → CLOSED, by CAS. A closed
 * searcher is restarted by building a new one over the same store directory.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class SearcherRole implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SearcherRole.class);

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  /**
   * What a searcher is.
   *
   * @param nodeId unique node id, e.g. {@code dc-a-1}
   * @param dc its datacenter
   * @param storeDir its store directory
   * @param host the interface both servers bind
   * @param advertisedHost the host other nodes and clients reach it by (empty: {@code host})
   * @param httpPort HTTP port (0: any)
   * @param transportPort transport port (0: any)
   */
  public record Spec(
      String nodeId,
      String dc,
      Path storeDir,
      String host,
      String advertisedHost,
      int httpPort,
      int transportPort) {
    /** Checks the fields. */
    public Spec {
      Objects.requireNonNull(nodeId, "nodeId");
      Objects.requireNonNull(dc, "dc");
      Objects.requireNonNull(storeDir, "storeDir");
      Objects.requireNonNull(host, "host");
      Objects.requireNonNull(advertisedHost, "advertisedHost");
    }

    /** The host to register and print: the advertised one, else the bind host. */
    public String reachableHost() {
      return advertisedHost.isEmpty() ? host : advertisedHost;
    }

    /** The same searcher on fixed ports (to restart it where clients know it). */
    public Spec onPorts(int http, int transport) {
      return new Spec(nodeId, dc, storeDir, host, advertisedHost, http, transport);
    }
  }

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final Spec spec;
  private final MosaicConfig config;
  private final String zkConnect;
  private ActorSystem system;
  private CuratorFramework curator;
  private SearcherDiscovery discovery;
  private SearcherNode node;
  private TransportNode transport;

  /** A LATENT searcher. */
  public SearcherRole(Spec spec, MosaicConfig config, String zkConnect) {
    this.spec = Objects.requireNonNull(spec, "spec");
    this.config = Objects.requireNonNull(config, "config");
    this.zkConnect = Objects.requireNonNull(zkConnect, "zkConnect");
  }

  /**
   * Starts the node (store scan, first generation, HTTP), then its transport (bind, register,
   * catch-up).
   *
   * @throws IllegalStateException unless LATENT
   * @throws IOException when a port cannot be bound or ZooKeeper cannot be reached
   */
  public SearcherRole start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("searcher " + spec.nodeId() + " is " + state.get());
    }
    try {
      system = ActorSystem.create("mosaic-" + spec.nodeId(), LocalCluster.pekkoConfig(config));
      MosaicConfig.Searcher s = config.searcher;
      curator = ZooKeeperClients.started(zkConnect, config);
      discovery = SearcherDiscovery.watching(curator, config.transportSettings().zkRoot());
      discovery.start();
      SearcherNode.Builder b =
          SearcherNode.builder(spec.storeDir())
              .host(spec.host())
              .port(spec.httpPort())
              .keepVersions(s.keepVersions)
              .scanInterval(s.scanInterval)
              .queryThreads(s.queryThreads)
              .queryQueue(s.queryQueue)
              .queryLimits(s.queryLimits)
              .maxRequestBytes(s.maxRequestBytes)
              .maxFileBytes(s.maxFileBytes)
              .freeSpaceReserve(s.freeSpaceReserve)
              .arenaGroupSize(s.arenaGroupSize)
              .maxUnmapBacklog(s.maxUnmapBacklog)
              .verifyOnStart(s.verifyOnStart)
              .datacenter(spec.dc())
              .peerDiscovery(discovery)
              .actorSystem(system);
      AdminToken.read(s.adminTokenFile, s.adminTokenEnv, System::getenv).ifPresent(b::adminToken);
      node = b.build();
      node.start();
      TransportNode.Builder tb =
          TransportNode.builder()
              .nodeId(spec.nodeId())
              .dc(spec.dc())
              .bind(spec.host(), spec.transportPort())
              .advertise(spec.reachableHost(), -1)
              .httpAddress(httpAddress())
              .curator(curator)
              .store(node.store())
              .settings(config.transportSettings())
              .meterRegistry(node.meterRegistry())
              .actorSystem(Adapter.toTyped(system));
      transport = tb.build();
      transport.start();
      node.useManifest(transport.manifest());
      TransportHealth health = transport.health();
      node.addHealthContributor(
          new HealthContributor() {
            @Override
            public String name() {
              return "transport";
            }

            @Override
            public Health check() {
              return health.stale() ? Health.down(health.describe()) : Health.up(health.describe());
            }
          });
      LOG.info(
          "searcher {} of {} serving http://{}, transport on {}",
          spec.nodeId(),
          spec.dc(),
          hostPort(),
          transport.endpoint());
      return this;
    } catch (Exception e) {
      close();
      throw e instanceof IOException io
          ? io
          : new IOException("searcher " + spec.nodeId() + " did not start: " + e, e);
    }
  }

  /** Its spec. */
  public Spec spec() {
    return spec;
  }

  /** Node id. */
  public String nodeId() {
    return spec.nodeId();
  }

  /** Datacenter. */
  public String dc() {
    return spec.dc();
  }

  /** True while started. */
  public boolean isRunning() {
    return state.get() == State.STARTED && node != null;
  }

  /** The searcher node (store, generations, search service). */
  public SearcherNode node() {
    return node;
  }

  /** The transport node. */
  public TransportNode transport() {
    return transport;
  }

  /** {@code host:port} of the HTTP API. */
  public String hostPort() {
    return spec.reachableHost() + ":" + node.port();
  }

  /** {@code http://host:port}. */
  public String httpAddress() {
    return "http://" + hostPort();
  }

  /** The bound HTTP port. */
  public int httpPort() {
    return node.port();
  }

  /** The bound transport port. */
  public int transportPort() {
    return transport.endpoint().transportPort();
  }

  /** The transport port it was bound to (also after close), or the spec's. */
  public int transportPortOrZero() {
    try {
      return transport != null ? transport.endpoint().transportPort() : spec.transportPort();
    } catch (RuntimeException e) {
      return spec.transportPort();
    }
  }

  /** True when a generation is open (the node answers queries). */
  public boolean isReady() {
    return isRunning() && node.generations().isReady();
  }

  /** The files of the current generation by partition (empty before the first generation). */
  public SortedMap<Integer, PartitionFileId> servedFiles() {
    if (!isReady()) {
      return new TreeMap<>();
    }
    try (Generation g = node.generations().acquire()) {
      return new TreeMap<>(g.files());
    } catch (IllegalStateException e) {
      return new TreeMap<>(); // closed meanwhile
    }
  }

  /** Served versions by partition. */
  public Map<Integer, Long> servedVersions() {
    Map<Integer, Long> out = new TreeMap<>();
    servedFiles().forEach((p, id) -> out.put(p, id.version()));
    return out;
  }

  /** Queries answered so far (searches and counts, any outcome). */
  public long queriesServed() {
    if (node == null) {
      return 0;
    }
    return node.meterRegistry().find("mosaic.searcher.query").timers().stream()
        .mapToLong(Timer::count)
        .sum();
  }

  /**
   * Closes the transport (deregisters, aborts transfers in progress: staged bytes are deleted),
   * then the node; idempotent.
   */
  @Override
  public void close() {
    State previous = state.getAndSet(State.CLOSED);
    if (previous == State.CLOSED) {
      return;
    }
    if (transport != null) {
      try {
        transport.close();
      } catch (RuntimeException e) {
        LOG.warn("closing the transport of {} failed", spec.nodeId(), e);
      }
    }
    if (discovery != null) {
      discovery.close();
    }
    if (curator != null) {
      curator.close();
    }
    if (node != null) {
      node.close();
    }
    if (system != null) {
      system.terminate();
      try {
        system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("actor system of {} did not stop in time: {}", spec.nodeId(), e.toString());
      }
    }
    LOG.info("searcher {} stopped", spec.nodeId());
  }

  @Override
  public String toString() {
    return "searcher " + spec.nodeId() + "@" + spec.dc();
  }
}
