package dev.mosaic.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mosaic.embedded.EmbeddedKafka;
import dev.mosaic.embedded.EmbeddedZooKeeper;
import dev.mosaic.format.Schema;
import dev.mosaic.indexer.FeedLoader;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.transport.PekkoTransport;
import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.pekko.actor.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The whole pipeline in one JVM: ZooKeeper and Kafka (embedded unless external addresses are
 * configured), the feed simulator and its feed loader, the indexer nodes, and the searchers of
 * every datacenter (each with its own store directory, HTTP and transport ports), plus a freshness
 * probe. The {@code local-cluster} command runs it; the end-to-end tests drive it, including its
 * faults ({@link #stopSearcher}, {@link #stopIndexer}, {@link #zooKeeper()}).
 *
 * <p>Lifecycle: LATENT → {@link #start()} → STARTED → {@link #close()} → CLOSED, by CAS. {@link
 * #start()} returns once every searcher serves every partition the indexers built.
 *
 * <p>Thread safety: safe for concurrent use. NOTE: the data directory holds everything; a temporary
 * one (the default) is deleted by {@link #close()}.
 */
public final class LocalCluster implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(LocalCluster.class);

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final MosaicConfig config;
  private final Map<String, SearcherRole> searchers = new LinkedHashMap<>();
  private final Map<String, IndexerRole> indexers = new LinkedHashMap<>();
  // the indexes after the default one: their indexer roles by node id, and every index's feed
  private final Map<String, List<IndexerRole>> otherIndexers = new LinkedHashMap<>();
  private final Map<String, LocalIndex> localIndexes = new LinkedHashMap<>();
  private Path dataDir;
  private boolean deleteDataDir;
  private EmbeddedZooKeeper zooKeeper;
  private EmbeddedKafka kafka;
  private String zkConnect;
  private String bootstrapServers;
  private ActorSystem system;
  private CuratorFramework statusClient;
  private PartitionManifest manifest;
  private FeedLoader loader;
  private FeedSimulator simulator;
  private FreshnessProbe probe;
  private final Map<String, FreshnessProbe> probes = new LinkedHashMap<>();
  private long startedAtNanos;
  private volatile Consumer<String> progress = step -> {};

  /** A LATENT cluster of this configuration. */
  public LocalCluster(MosaicConfig config) {
    this.config = Objects.requireNonNull(config, "config");
  }

  /**
   * Tells {@code sink} each step of {@link #start()} as it happens, one line each, prefixed with
   * the seconds since the start (ZooKeeper and Kafka up, topics, searchers and indexers started,
   * partners' first snapshots published, searchers ready and partitions served while waiting).
   *
   * @param sink called from the starting thread; must not block
   */
  public LocalCluster onProgress(Consumer<String> sink) {
    this.progress = Objects.requireNonNull(sink, "sink");
    return this;
  }

  private void step(String format, Object... args) {
    double seconds = (System.nanoTime() - startedAtNanos) / 1e9;
    String line = String.format(Locale.ROOT, "[%6.1fs] ", seconds) + String.format(format, args);
    LOG.info("{}", line);
    progress.accept(line);
  }

  /**
   * Starts everything, publishes the first snapshot of every partner and waits until every searcher
   * serves every built partition (within {@code local.ready-timeout}); then starts the periodic
   * republishing and the freshness probe (unless {@code local.feed-after-start} is false).
   *
   * @throws TimeoutException when the cluster is not ready in time (it is left running: close it)
   */
  public LocalCluster start() throws Exception {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("local cluster is " + state.get() + ", cannot start");
    }
    startedAtNanos = System.nanoTime();
    if (config.dataDir != null) {
      dataDir = config.dataDir.toAbsolutePath();
      Files.createDirectories(dataDir);
    } else {
      dataDir = Files.createTempDirectory("mosaic-local-");
      deleteDataDir = true;
    }
    LOG.info("local cluster data in {}", dataDir);
    if (config.zkConnect.isEmpty()) {
      zooKeeper =
          EmbeddedZooKeeper.builder()
              .port(config.zkPort)
              .dataDir(dataDir.resolve("zookeeper"))
              .build()
              .start();
      zkConnect = zooKeeper.connectString();
      step("ZooKeeper up at %s", zkConnect);
    } else {
      zkConnect = config.zkConnect;
      step("using ZooKeeper at %s", zkConnect);
    }
    if (config.kafkaBootstrap.isEmpty()) {
      kafka =
          EmbeddedKafka.builder()
              .port(config.kafkaPort)
              .logDir(dataDir.resolve("kafka"))
              .build()
              .start();
      bootstrapServers = kafka.bootstrapServers();
      step("Kafka (KRaft) up at %s", bootstrapServers);
    } else {
      bootstrapServers = config.kafkaBootstrap;
      step("using Kafka at %s", bootstrapServers);
    }
    if (config.createTopics) {
      Topics.ensure(config, bootstrapServers);
      for (IndexConfig index : config.indexes) {
        step(
            "topics %s (%d partitions) and %s of index %s ready",
            index.offersTopic(), index.topicPartitions(), index.deadLetterTopic(), index.name());
      }
    }
    system = ActorSystem.create("mosaic", pekkoConfig(config));
    statusClient = ZooKeeperClients.started(zkConnect, config);

    int k = 0;
    int searcherCount = config.searcher.dcs.size() * config.searcher.nodesPerDc;
    for (String dc : config.searcher.dcs) {
      for (int j = 1; j <= config.searcher.nodesPerDc; j++, k++) {
        String id = dc + "-" + j;
        MosaicConfig.Searcher s = config.searcher;
        SearcherRole.Spec spec =
            new SearcherRole.Spec(
                id,
                dc,
                dataDir.resolve(id).resolve("store"),
                s.host,
                s.advertisedHost,
                s.httpPort == 0 ? 0 : s.httpPort + k,
                s.transportPort == 0 ? 0 : s.transportPort + k);
        SearcherRole role = new SearcherRole(spec, config, zkConnect).start();
        synchronized (this) {
          searchers.put(id, role);
        }
        step("searcher %s started (%d/%d) at %s", id, k + 1, searcherCount, role.httpAddress());
      }
    }
    for (int i = 1; i <= config.indexer.nodes; i++) {
      IndexerRole role = startIndexer("indexer-" + i);
      step(
          "indexer %s started (%d/%d), metrics at %s",
          role.nodeId(), i, config.indexer.nodes, role.metricsUrl());
    }
    for (IndexConfig index : config.indexes) {
      localIndexes.put(
          index.name(), new LocalIndex(index).start(statusClient, bootstrapServers, config.feed));
    }
    LocalIndex main = localIndexes.get(config.defaultIndex().name());
    manifest = main.manifest();
    loader = main.loader();
    simulator = main.simulator();
    for (LocalIndex index : localIndexes.values()) {
      // one probe per index of a vertical it can list; probe() is the default index's
      if (ProbeListings.KINDS.contains(index.config().simulate())) {
        probes.put(
            index.name(),
            new FreshnessProbe(
                config.probe,
                index.name(),
                index.config().simulate(),
                index.sink(),
                this::runningSearchers));
      }
    }
    probe = probes.get(main.name());
    for (LocalIndex index : localIndexes.values()) {
      FeedSimulator feed = index.simulator();
      if (feed == null) {
        continue;
      }
      int every = Math.max(1, feed.partnerCount() / 5);
      feed.publishAll(
          (done, total) -> {
            if (done % every == 0 || done == total) {
              step("feed loaded %d/%d partners of %s", done, total, index.name());
            }
          });
      step(
          "first snapshots of %d %s partners published (%d offers)",
          feed.partnerCount(), index.name(), feed.offerCount());
    }
    step("waiting for the indexers and searchers");
    awaitConverged(config.local.readyTimeout, this::reportWaiting);
    if (config.local.feedAfterStart) {
      for (LocalIndex index : localIndexes.values()) {
        if (index.simulator() != null) {
          index.simulator().start();
        }
      }
      probes.values().forEach(FreshnessProbe::start);
    }
    step(
        "local cluster ready: %d searchers serve every built partition of %d indexes %s",
        searcherCount, localIndexes.size(), localIndexes.keySet());
    return this;
  }

  private String lastWaiting = "";
  private long lastWaitingNanos;

  /** One progress line while waiting, when something changed or every 5 s. */
  private void reportWaiting() {
    ClusterStatus s = status();
    int idle = 0;
    List<IndexerRole> is = runningIndexers();
    for (IndexerRole i : is) {
      idle += i.node().isIdle() ? 1 : 0;
    }
    int current = s.dcs().stream().mapToInt(ClusterStatus.Dc::current).min().orElse(0);
    String line =
        String.format(
            Locale.ROOT,
            "indexers idle %d/%d, partitions built %d/%d, searchers ready %d/%d, partitions served"
                + " at the latest version %d/%d",
            idle,
            is.size(),
            s.partitionsBuilt(),
            config.partitions,
            s.searchersReady(),
            s.searchers(),
            current,
            latestVersions().size());
    long now = System.nanoTime();
    if (!line.equals(lastWaiting) || now - lastWaitingNanos > TimeUnit.SECONDS.toNanos(5)) {
      lastWaiting = line;
      lastWaitingNanos = now;
      step("%s", line);
    }
  }

  static Config pekkoConfig(MosaicConfig config) {
    return PekkoTransport.systemConfig(
        ConfigFactory.parseString(
                """
            pekko.loggers = ["org.apache.pekko.event.slf4j.Slf4jLogger"]
            pekko.logging-filter = "org.apache.pekko.event.slf4j.Slf4jLoggingFilter"
            pekko.loglevel = INFO
            pekko.stdout-loglevel = OFF
            pekko.log-dead-letters = off
            pekko.log-dead-letters-during-shutdown = off
            pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off
            pekko.http.server.parsing.max-content-length = 16m
            pekko.http.server.idle-timeout = 120s
            pekko.http.server.request-timeout = 60s
            """)
            .withFallback(config.config()));
  }

  /**
   * Waits until every indexer is idle (restored, nothing dirty) and every running searcher serves
   * every partition of the manifest at its latest version.
   *
   * @throws TimeoutException naming what is still missing
   */
  public void awaitConverged(Duration timeout) throws TimeoutException {
    awaitConverged(timeout, () -> {});
  }

  private void awaitConverged(Duration timeout, Runnable eachSecond) throws TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long nextReport = System.nanoTime();
    String missing = "";
    while (System.nanoTime() < deadline) {
      missing = notConverged();
      if (missing.isEmpty()) {
        return;
      }
      if (System.nanoTime() - nextReport >= 0) {
        eachSecond.run();
        nextReport = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // polling cadence
    }
    throw new TimeoutException("local cluster not converged within " + timeout + ": " + missing);
  }

  /** What keeps the cluster from being converged, or empty. */
  public String notConverged() {
    for (IndexerRole i : runningIndexers()) {
      if (!i.node().isIdle()) {
        return i.nodeId() + " is busy (restoring or rebuilding)";
      }
    }
    List<IndexerRole> others;
    synchronized (this) {
      others = otherIndexers.values().stream().flatMap(List::stream).toList();
    }
    for (IndexerRole i : others) {
      if (i.isRunning() && !i.node().isIdle()) {
        return i.nodeId() + " of " + i.index().name() + " is busy (restoring or rebuilding)";
      }
    }
    for (LocalIndex index : localIndexes.values()) {
      if (!index.config().isDefault()) {
        String missing = index.notServed(runningSearchers());
        if (!missing.isEmpty()) {
          return missing;
        }
      }
    }
    Map<Integer, Long> latest = latestVersions();
    if (latest.isEmpty()) {
      return "no partition built yet";
    }
    for (SearcherRole s : runningSearchers()) {
      if (!s.isReady()) {
        return s.nodeId() + " has no generation yet";
      }
      Map<Integer, Long> served = s.servedVersions();
      for (Map.Entry<Integer, Long> e : latest.entrySet()) {
        Long v = served.get(e.getKey());
        if (v == null || v < e.getValue()) {
          return s.nodeId() + " serves partition " + e.getKey() + " at " + v + " < " + e.getValue();
        }
      }
    }
    return "";
  }

  /**
   * The partition manifest's latest version of every partition (cars schema) that a datacenter
   * accepted (a version an indexer recorded but no searcher holds yet is not counted).
   */
  public Map<Integer, Long> latestVersions() {
    return localIndexes.get(config.defaultIndex().name()).latestVersions();
  }

  /** {@link #latestVersions()} of an index. */
  public Map<Integer, Long> latestVersions(String index) {
    return localIndex(index).latestVersions();
  }

  /** The names of the indexes, the default one first. */
  public List<String> indexNames() {
    return config.indexes.stream().map(IndexConfig::name).toList();
  }

  /** The feed loader of an index. */
  public FeedLoader feedLoader(String index) {
    return localIndex(index).loader();
  }

  /** The simulated partners of an index, or null when it has none. */
  public FeedSimulator simulator(String index) {
    return localIndex(index).simulator();
  }

  /**
   * Rolls an index to another schema, or back to the previous one (see {@link
   * LocalIndex#switchSchema}): its indexers rebuild every partition under that schema version, and
   * the searchers switch once they hold all of them; the other indexes keep serving untouched.
   *
   * @throws TimeoutException when the index is not complete at that version in time (the searchers
   *     keep serving the current one)
   */
  public void switchSchema(String index, Schema schema, Duration timeout) throws TimeoutException {
    LocalIndex li = localIndex(index);
    List<IndexerRole> roles;
    synchronized (this) {
      roles =
          li.config().isDefault()
              ? List.copyOf(indexers.values())
              : otherIndexers.values().stream()
                  .flatMap(List::stream)
                  .filter(r -> r.index().name().equals(index))
                  .toList();
    }
    li.switchSchema(
        schema,
        roles.stream().filter(IndexerRole::isRunning).toList(),
        runningSearchers(),
        timeout);
  }

  /** The schema version an index's searchers serve. */
  public int servedSchemaVersion(String index) {
    return localIndex(index).schemaVersion();
  }

  private LocalIndex localIndex(String name) {
    LocalIndex index = localIndexes.get(name);
    if (index == null) {
      throw new IllegalArgumentException(
          "no index '" + name + "'; the cluster runs " + localIndexes.keySet());
    }
    return index;
  }

  /** A snapshot of the cluster's state for the status line and the result. */
  public ClusterStatus status() {
    Map<Integer, Long> latest = latestVersions();
    Map<String, ClusterStatus.Dc> dcs = new LinkedHashMap<>();
    long queries = 0;
    int partitionsServed = Integer.MAX_VALUE;
    int ready = 0;
    List<SearcherRole> all;
    synchronized (this) {
      all = List.copyOf(searchers.values());
    }
    for (String dc : config.searcher.dcs) {
      int total = 0;
      int up = 0;
      int current = Integer.MAX_VALUE;
      for (SearcherRole s : all) {
        if (!s.dc().equals(dc)) {
          continue;
        }
        total++;
        queries += s.queriesServed();
        if (!s.isReady()) {
          continue;
        }
        up++;
        ready++;
        Map<Integer, Long> served = s.servedVersions();
        partitionsServed = Math.min(partitionsServed, served.size());
        int c = 0;
        for (Map.Entry<Integer, Long> e : latest.entrySet()) {
          Long v = served.get(e.getKey());
          if (v != null && v >= e.getValue()) {
            c++;
          }
        }
        current = Math.min(current, c);
      }
      dcs.put(dc, new ClusterStatus.Dc(dc, up, total, current == Integer.MAX_VALUE ? 0 : current));
    }
    int servedElsewhere = 0; // the other indexes' fewest served partitions
    for (LocalIndex index : localIndexes.values()) {
      if (!index.config().isDefault()) {
        servedElsewhere += index.partitionsServed(all);
      }
    }
    long snapshots = 0;
    long changes = 0;
    for (LocalIndex index : localIndexes.values()) {
      if (index.simulator() != null) {
        snapshots += index.simulator().snapshotsPublished();
        changes += index.simulator().changesPublished();
      }
    }
    return new ClusterStatus(
        Duration.ofNanos(System.nanoTime() - startedAtNanos),
        localIndexes.get(config.defaultIndex().name()).partitionsBuilt(),
        config.defaultIndex().partitions(),
        List.copyOf(dcs.values()),
        ready,
        all.size(),
        (partitionsServed == Integer.MAX_VALUE ? 0 : partitionsServed) + servedElsewhere,
        probe == null ? -1 : probe.percentileMillis(50),
        probe == null ? -1 : probe.percentileMillis(99),
        probe == null ? 0 : probe.samples(),
        queries,
        snapshots,
        changes,
        localIndexes.size());
  }

  // ------------------------------------------------------------------ roles and faults

  /** The searchers running now, in start order. */
  public synchronized List<SearcherRole> runningSearchers() {
    return searchers.values().stream().filter(SearcherRole::isRunning).toList();
  }

  /** Every searcher (running or stopped), in start order. */
  public synchronized List<SearcherRole> searchers() {
    return List.copyOf(searchers.values());
  }

  /** A searcher by node id. */
  public synchronized SearcherRole searcher(String nodeId) {
    SearcherRole s = searchers.get(nodeId);
    if (s == null) {
      throw new IllegalArgumentException(
          "no searcher '" + nodeId + "'; there are " + searchers.keySet());
    }
    return s;
  }

  /** Stops a searcher as a crash would: transfers in progress are aborted. */
  public void stopSearcher(String nodeId) {
    searcher(nodeId).close();
  }

  /** Starts a stopped searcher again over its store directory, on the same ports. */
  public SearcherRole startSearcher(String nodeId) throws IOException {
    SearcherRole old = searcher(nodeId);
    if (old.isRunning()) {
      throw new IllegalStateException("searcher " + nodeId + " is running");
    }
    SearcherRole.Spec spec = old.spec().onPorts(old.httpPort(), old.transportPortOrZero());
    SearcherRole role = new SearcherRole(spec, config, zkConnect).start();
    synchronized (this) {
      searchers.put(nodeId, role);
    }
    return role;
  }

  /** The indexers running now. */
  public synchronized List<IndexerRole> runningIndexers() {
    return indexers.values().stream().filter(IndexerRole::isRunning).toList();
  }

  /** An indexer by node id. */
  public synchronized IndexerRole indexer(String nodeId) {
    IndexerRole i = indexers.get(nodeId);
    if (i == null) {
      throw new IllegalArgumentException(
          "no indexer '" + nodeId + "'; there are " + indexers.keySet());
    }
    return i;
  }

  /** Stops an indexer (it leaves the consumer group; the others take over its partitions). */
  public void stopIndexer(String nodeId) {
    indexer(nodeId).close();
    List<IndexerRole> others;
    synchronized (this) {
      others = otherIndexers.getOrDefault(nodeId, List.of());
    }
    others.forEach(IndexerRole::close);
  }

  /** Starts an indexer (a new one, or a stopped one again over its output directory). */
  public IndexerRole startIndexer(String nodeId) throws IOException {
    int n;
    synchronized (this) {
      IndexerRole old = indexers.get(nodeId);
      if (old != null && old.isRunning()) {
        throw new IllegalStateException("indexer " + nodeId + " is running");
      }
      // a restarted indexer keeps its position: same datacenter, same metrics port
      n = old == null ? indexers.size() : List.copyOf(indexers.keySet()).indexOf(nodeId);
    }
    List<String> dcs = config.searcher.dcs;
    IndexerRole role =
        new IndexerRole(
            nodeId,
            dcs.get(n % dcs.size()),
            dataDir.resolve(nodeId).resolve("out"),
            config,
            zkConnect,
            bootstrapServers,
            system,
            null,
            null);
    MosaicConfig.Indexer ic = config.indexer;
    role.metricsEndpoint(ic.metricsHost, ic.metricsPort == 0 ? 0 : ic.metricsPort + n);
    role.start();
    synchronized (this) {
      indexers.put(nodeId, role);
    }
    // the other indexes' roles of this node share its metrics endpoint
    List<IndexerRole> others = new ArrayList<>();
    for (IndexConfig index : config.indexes) {
      if (!index.isDefault()) {
        others.add(
            new IndexerRole(
                    nodeId,
                    dcs.get(n % dcs.size()),
                    index.beside(dataDir.resolve(nodeId).resolve("out")),
                    config,
                    index,
                    zkConnect,
                    bootstrapServers,
                    system,
                    null,
                    role.registry())
                .start());
      }
    }
    synchronized (this) {
      otherIndexers.put(nodeId, others);
    }
    return role;
  }

  /** The embedded ZooKeeper (to stop and restart it), or null when external. */
  public EmbeddedZooKeeper zooKeeper() {
    return zooKeeper;
  }

  /** The embedded Kafka broker, or null when external. */
  public EmbeddedKafka kafka() {
    return kafka;
  }

  /** ZooKeeper connect string. */
  public String zkConnect() {
    return zkConnect;
  }

  /** Kafka bootstrap servers. */
  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** The feed loader every snapshot goes through. */
  public FeedLoader feedLoader() {
    return loader;
  }

  /** The simulated partners. */
  public FeedSimulator simulator() {
    return simulator;
  }

  /** The freshness probe. */
  public FreshnessProbe probe() {
    return probe;
  }

  /** The freshness probe of one index, or null when its vertical has none. */
  public FreshnessProbe probe(String index) {
    return probes.get(index);
  }

  /** The partition manifest (watched). */
  public PartitionManifest manifest() {
    return manifest;
  }

  /** The configuration. */
  public MosaicConfig config() {
    return config;
  }

  /** The data directory. */
  public Path dataDir() {
    return dataDir;
  }

  /** The actor system the indexers' senders share. */
  public ActorSystem actorSystem() {
    return system;
  }

  /** Stops everything, in reverse order; deletes a temporary data directory; idempotent. */
  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) == State.CLOSED) {
      return;
    }
    LOG.info("stopping the local cluster");
    probes.values().forEach(p -> quietly("probe of " + p.index(), p));
    localIndexes.values().forEach(i -> quietly("index " + i.name(), i));
    List<IndexerRole> is;
    List<SearcherRole> ss;
    synchronized (this) {
      is = new ArrayList<>(indexers.values());
      otherIndexers.values().forEach(is::addAll);
      ss = new ArrayList<>(searchers.values());
    }
    is.forEach(i -> quietly(i.toString(), i));
    ss.forEach(s -> quietly(s.toString(), s));
    quietly("status client", statusClient);
    if (system != null) {
      system.terminate();
      try {
        system.getWhenTerminated().toCompletableFuture().get(20, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("actor system did not stop in time: {}", e.toString());
      }
    }
    quietly("kafka", kafka);
    quietly("zookeeper", zooKeeper);
    if (deleteDataDir && dataDir != null) {
      try (Stream<Path> paths = Files.walk(dataDir)) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      } catch (IOException e) {
        LOG.warn("could not delete {}: {}", dataDir, e.toString());
      }
    }
    LOG.info("local cluster stopped");
  }

  private static void quietly(String what, AutoCloseable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (Exception e) {
      LOG.warn("stopping {} failed", what, e);
    }
  }

  /** Creates every index's offers, dead-letter and snapshot topics when missing. */
  static final class Topics {
    private Topics() {}

    static void ensure(MosaicConfig config, String bootstrapServers) {
      java.util.Properties p = new java.util.Properties();
      p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
      try (Admin admin = Admin.create(p)) {
        for (IndexConfig index : config.indexes) {
          dev.mosaic.indexer.OfferTopics.create(
              admin,
              index.offersTopic(),
              index.topicPartitions(),
              index.deadLetterTopic(),
              config.replicationFactor);
          IndexFeedLoader.createSnapshotTopic(admin, index, config.replicationFactor);
        }
      }
    }
  }
}
