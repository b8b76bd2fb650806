package dev.mosaic.deploy;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.searcher.Generation;
import dev.mosaic.searcher.HealthContributor;
import dev.mosaic.searcher.IndexMeters;
import dev.mosaic.searcher.PayloadDecoder;
import dev.mosaic.searcher.SearchIndex;
import dev.mosaic.searcher.SearcherNode;
import dev.mosaic.transport.SearcherDiscovery;
import dev.mosaic.transport.TransportHealth;
import dev.mosaic.transport.TransportNode;
import io.micrometer.core.instrument.Timer;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
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
  private final Map<String, TransportNode> transports = new LinkedHashMap<>();

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
      IndexConfig main = config.defaultIndex();
      SearcherNode.Builder b =
          SearcherNode.builder(spec.storeDir())
              .indexName(main.name())
              .payloadDecoder(payloads(main))
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
              .bulkReopenPartitions(s.bulkReopenPartitions)
              .reopenDelay(s.reopenDelay)
              .verifyOnStart(s.verifyOnStart)
              .datacenter(spec.dc())
              .peerDiscovery(discovery)
              .actorSystem(system);
      s.partitionGroupSize.ifPresentOrElse(b::partitionGroupSize, b::autoPartitionGrouping);
      for (IndexConfig index : config.indexes) {
        if (!index.isDefault()) {
          b.index(index.name(), index.beside(spec.storeDir()), payloads(index));
        }
      }
      AdminToken.read(s.adminTokenFile, s.adminTokenEnv, System::getenv).ifPresent(b::adminToken);
      node = b.build();
      node.start();
      for (IndexConfig index : config.indexes) {
        TransportNode t = startTransport(index);
        transports.put(index.name(), t);
        // the status pages measure each index's lag against its manifest
        node.useManifest(index.name(), t.manifest());
        if (index.isDefault()) {
          transport = t;
        }
      }
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

  /**
   * The transport of one index: its own port (the default index's is the spec's, the others' any
   * free one), registered under the index's ZooKeeper root, publishing into the index's store.
   */
  private TransportNode startTransport(IndexConfig index) throws Exception {
    TransportNode t =
        TransportNode.builder()
            .nodeId(spec.nodeId())
            .dc(spec.dc())
            .bind(spec.host(), index.isDefault() ? spec.transportPort() : 0)
            .advertise(spec.reachableHost(), -1)
            .httpAddress(httpAddress())
            .curator(curator)
            .store(node.index(index.name()).store())
            .settings(config.transportSettings().toBuilder().zkRoot(index.zkRoot()).build())
            .meterRegistry(IndexMeters.tagged(node.meterRegistry(), index.name()))
            .actorSystem(Adapter.toTyped(system))
            .build();
    t.start();
    TransportHealth health = t.health();
    String name = index.isDefault() ? "transport" : "transport " + index.name();
    node.addHealthContributor(
        new HealthContributor() {
          @Override
          public String name() {
            return name;
          }

          @Override
          public Health check() {
            return health.stale() ? Health.down(health.describe()) : Health.up(health.describe());
          }
        });
    return t;
  }

  /** The payload types of an index: the built-in feed messages and its schema's descriptor set. */
  private static PayloadDecoder payloads(IndexConfig index) {
    return new PayloadDecoder().register(index.schema().types());
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

  /** True when every index has a generation open (the node answers queries on each). */
  public boolean isReady() {
    return isRunning() && node.indexes().values().stream().allMatch(SearchIndex::isReady);
  }

  /** The transport of an index. */
  public TransportNode transport(String index) {
    TransportNode t = transports.get(index);
    if (t == null) {
      throw new IllegalArgumentException(
          "no index '" + index + "'; there are " + transports.keySet());
    }
    return t;
  }

  /** The default index's files of its current generation by partition. */
  public SortedMap<Integer, PartitionFileId> servedFiles() {
    return servedFiles(config.defaultIndex().name());
  }

  /** An index's files of its current generation by partition (empty before the first one). */
  public SortedMap<Integer, PartitionFileId> servedFiles(String index) {
    if (!isRunning()) {
      return new TreeMap<>();
    }
    SearchIndex served = node.index(index);
    if (!served.isReady()) {
      return new TreeMap<>();
    }
    try (Generation g = served.generations().acquire()) {
      return new TreeMap<>(g.files());
    } catch (IllegalStateException e) {
      return new TreeMap<>(); // closed meanwhile
    }
  }

  /** The default index's served versions by partition. */
  public Map<Integer, Long> servedVersions() {
    return servedVersions(config.defaultIndex().name());
  }

  /** An index's served versions by partition. */
  public Map<Integer, Long> servedVersions(String index) {
    Map<Integer, Long> out = new TreeMap<>();
    servedFiles(index).forEach((p, id) -> out.put(p, id.version()));
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
    for (Map.Entry<String, TransportNode> t : transports.entrySet()) {
      try {
        t.getValue().close();
      } catch (RuntimeException e) {
        LOG.warn("closing the {} transport of {} failed", t.getKey(), spec.nodeId(), e);
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
