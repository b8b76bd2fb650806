package dev.mosaic.searcher;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import dev.mosaic.format.PartitionGrouping;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.searcher.http.HttpApi;
import dev.mosaic.searcher.http.IndexRoutes;
import dev.mosaic.searcher.http.PeerAddress;
import dev.mosaic.searcher.http.StatusPages;
import dev.mosaic.searcher.status.StatusHistory;
import dev.mosaic.transport.PekkoTransport;
import dev.mosaic.transport.SearcherDiscovery;
import dev.mosaic.transport.SearcherEndpoint;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A whole searcher node in one object: the {@link PartitionStore} (which the transport publishes
 * into, as a {@link ReceivingStore}), the {@link Generations} reopened from it, the {@link
 * SearchService} and the HTTP API on Pekko HTTP, with Prometheus metrics.
 *
 * <pre>{@code
 * try (SearcherNode node = SearcherNode.builder(Path.of("/var/lib/mosaic/store")).port(8080).build()) {
 *   node.start();
 *   ReceivingStore forTransport = node.store();
 *   node.addHealthContributor(myStalenessCheck);
 *   ...
 * }
 * }</pre>
 *
 * <p>Lifecycle: LATENT → {@link #start()} → STARTED → {@link #close()} → CLOSED. {@link #start()}
 * starts the store (scan, verify, clean up), opens the first generation when the store holds files,
 * and binds HTTP; the node answers {@code /health} with 503 until a generation is open.
 *
 * <p>Thread safety: safe for concurrent use. NOTE: when the builder was given an {@link
 * ActorSystem}, closing the node unbinds HTTP but leaves that system running.
 */
public final class SearcherNode implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(SearcherNode.class);

  /** The name of the node's first index when none was given. */
  public static final String DEFAULT_INDEX = "default";

  /**
   * Partitions per background group the launchers configure by default (see {@link
   * Builder#partitionGroupSize}): 1024 partitions are queried as 32 groups.
   */
  public static final int DEFAULT_PARTITION_GROUP_SIZE = 32;

  /**
   * Fewest partitions an index must serve for {@linkplain Builder#autoPartitionGrouping automatic
   * grouping} to group them: 8 groups of {@value #DEFAULT_PARTITION_GROUP_SIZE}. Below it, the
   * merges after every feed cycle cost more than grouping saves queries (a 64-partition local
   * cluster saw twice the feed-to-searchable time grouped).
   */
  public static final int AUTO_GROUPING_MIN_PARTITIONS = 256;

  /** The directory of an index's group files, inside its store directory. */
  static final String GROUP_DIRECTORY = "groups";

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final Builder config;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final PrometheusMeterRegistry registry =
      new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final List<HealthContributor> health = new CopyOnWriteArrayList<>();
  private final Map<String, SearchIndex> indexes = new LinkedHashMap<>();
  private final PartitionStore store;
  private final Generations generations;
  private final SearchService search;
  private final ExecutorService queryExecutor;
  private final ExecutorService adminExecutor;
  private ActorSystem system;
  private boolean ownsSystem;
  private ServerBinding binding;
  private StatusPages pages;
  private final Map<String, PartitionManifest> manifests = new ConcurrentHashMap<>();

  private SearcherNode(Builder b) {
    this.config = b;
    this.health.addAll(b.health);
    SearchIndex main = openIndex(b, b.indexName, b.storeDirectory, b.schemaVersion, b.payloads);
    indexes.put(main.name(), main);
    for (ExtraIndex extra : b.extraIndexes) {
      if (indexes.containsKey(extra.name())) {
        throw new IllegalArgumentException("index " + extra.name() + " is configured twice");
      }
      SearchIndex index =
          openIndex(b, extra.name(), extra.storeDirectory(), null, extra.payloads());
      indexes.put(extra.name(), index);
      // the first index's generation is /health's own check; the others' are contributors
      health.add(
          HealthContributor.of(
              "index " + index.name(),
              index::isReady,
              () -> index.isReady() ? "serving" : "no generation open yet"));
    }
    this.store = main.store();
    this.generations = main.generations();
    this.search = main.search();
    AtomicInteger n = new AtomicInteger();
    // a bounded queue: when it is full the HTTP API answers 503 with Retry-After instead of
    // letting waiting queries (and their memory) pile up
    this.queryExecutor =
        new ThreadPoolExecutor(
            b.queryThreads,
            b.queryThreads,
            0,
            TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(b.queryQueue),
            r -> {
              Thread t = new Thread(r, "mosaic-query-" + n.incrementAndGet());
              t.setDaemon(true);
              return t;
            },
            new ThreadPoolExecutor.AbortPolicy());
    AtomicInteger m = new AtomicInteger();
    this.adminExecutor =
        Executors.newFixedThreadPool(
            2,
            r -> {
              Thread t = new Thread(r, "mosaic-admin-" + m.incrementAndGet());
              t.setDaemon(true);
              return t;
            });
    new JvmMemoryMetrics().bindTo(registry);
  }

  /**
   * One index's store, generations and search service; its meters carry {@code index=<name>} (the
   * first index's {@value #DEFAULT_INDEX} when the node was given no name).
   */
  private SearchIndex openIndex(
      Builder b, String name, Path storeDirectory, Integer schemaVersion, PayloadDecoder payloads) {
    MeterRegistry meters = IndexMeters.tagged(registry, name == null ? DEFAULT_INDEX : name);
    PartitionStore store =
        PartitionStore.builder(storeDirectory)
            .keepVersions(b.keepVersions)
            .verifyOnStart(b.verifyOnStart)
            .maxFileBytes(b.maxFileBytes)
            .freeSpaceReserve(b.freeSpaceReserve)
            .build();
    Generations.Builder gb =
        Generations.builder(store)
            .scanInterval(b.scanInterval)
            .arenaGroupSize(b.arenaGroupSize)
            .maxUnmapBacklog(b.maxUnmapBacklog)
            .bulkReopenPartitions(b.bulkReopenPartitions)
            .reopenDelay(b.reopenDelay)
            .meterRegistry(meters);
    if (b.partitionGroupSize > 0) {
      gb.partitionGrouping(
          new PartitionGrouping.Config(
              storeDirectory.resolve(GROUP_DIRECTORY), b.partitionGroupSize),
          b.groupingMinPartitions);
    }
    if (schemaVersion != null) {
      gb.schemaVersion(schemaVersion);
    }
    Generations generations = gb.build();
    return new SearchIndex(
        name == null ? DEFAULT_INDEX : name,
        store,
        generations,
        new SearchService(generations, payloads, b.limits(), meters));
  }

  /** A builder of a node over a store directory (created when missing). */
  public static Builder builder(Path storeDirectory) {
    return new Builder(storeDirectory);
  }

  /**
   * Starts the store, the generations and the HTTP server.
   *
   * @throws IllegalStateException when not LATENT
   * @throws IOException when the store cannot be read or the port cannot be bound
   */
  public void start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("searcher node is " + state.get() + ", cannot start");
    }
    for (SearchIndex index : indexes.values()) {
      index.store().start();
      index.generations().start();
    }
    if (config.port < 0) {
      LOG.info("searcher node started without HTTP over {}", store.root());
      return;
    }
    if (config.system != null) {
      system = config.system;
    } else {
      Config c =
          ConfigFactory.parseString(
                  """
                  pekko.loggers = ["org.apache.pekko.event.slf4j.Slf4jLogger"]
                  pekko.logging-filter = "org.apache.pekko.event.slf4j.Slf4jLoggingFilter"
                  pekko.loglevel = INFO
                  pekko.stdout-loglevel = OFF
                  pekko.coordinated-shutdown.run-by-jvm-shutdown-hook = off
                  pekko.http.server.parsing.max-content-length = 16m
                  pekko.http.server.idle-timeout = 120s
                  pekko.http.server.request-timeout = 60s
                  """)
              .withFallback(ConfigFactory.load());
      system = ActorSystem.create("mosaic-searcher", PekkoTransport.systemConfig(c));
      ownsSystem = true;
    }
    pages = statusPages();
    pages.start();
    try {
      binding =
          Http.get(system)
              .newServerAt(config.host, config.port)
              .bind(
                  pages
                      .route()
                      // /indexes/<name>/... first: the first index's API answers 404 itself
                      .orElse(IndexRoutes.route(indexes.keySet(), n -> httpApi(indexes.get(n))))
                      .orElse(httpApi(indexes.values().iterator().next()).route()))
              .toCompletableFuture()
              .get(30, TimeUnit.SECONDS);
    } catch (Exception e) {
      close();
      throw new IOException("cannot bind HTTP on " + config.host + ":" + config.port + ": " + e, e);
    }
    LOG.info("searcher node serving {} on http://{}", store.root(), address());
  }

  /** The query API of one index. */
  private HttpApi httpApi(SearchIndex index) {
    return new HttpApi(
        index.search(),
        index.generations(),
        registry,
        () -> List.copyOf(health),
        queryExecutor,
        adminExecutor,
        config.maxUploadBytes,
        config.adminToken,
        config.maxRequestBytes);
  }

  /** The operator's pages ({@code /status}, {@code /cluster}) over this node and its peers. */
  private StatusPages statusPages() {
    List<StatusPages.Index> shown = new ArrayList<>();
    for (SearchIndex index : indexes.values()) {
      shown.add(
          new StatusPages.Index(
              index.name(),
              index.generations(),
              () -> {
                PartitionManifest m = manifests.get(index.name());
                return m == null ? null : m.all();
              }));
    }
    return new StatusPages(
        shown,
        registry,
        config.datacenter,
        () -> binding == null ? "" : "http://" + selfHost() + ":" + port(),
        this::peers,
        config.statusHistory);
  }

  /**
   * Lets the status pages measure the first index's lag against its version manifest (the
   * transport's) rather than against the newest version held. May be called once the node runs; the
   * manifest stays open.
   */
  public void useManifest(PartitionManifest manifest) {
    useManifest(indexes.keySet().iterator().next(), manifest);
  }

  /**
   * As {@link #useManifest(PartitionManifest)} for one index.
   *
   * @throws IllegalArgumentException naming the indexes served when there is none of that name
   */
  public void useManifest(String index, PartitionManifest manifest) {
    manifests.put(index(index).name(), Objects.requireNonNull(manifest, "manifest"));
  }

  /** The host this node reaches itself on: loopback when bound to every interface. */
  private String selfHost() {
    return config.host.equals("0.0.0.0") || config.host.equals("::") ? "127.0.0.1" : config.host;
  }

  /**
   * Peers' HTTP addresses by datacenter: the configured ones plus those in discovery whose address
   * {@link PeerAddress} accepts.
   */
  private Map<String, List<String>> peers() {
    Map<String, List<String>> byDc = new TreeMap<>();
    config.peers.forEach(
        (dc, list) -> byDc.computeIfAbsent(dc, k -> new ArrayList<>()).addAll(list));
    if (config.discovery != null) {
      for (Map.Entry<String, List<SearcherEndpoint>> e : config.discovery.byDc().entrySet()) {
        for (SearcherEndpoint s : e.getValue()) {
          PeerAddress.of(s)
              .ifPresentOrElse(
                  a -> byDc.computeIfAbsent(e.getKey(), k -> new ArrayList<>()).add(a),
                  () -> {
                    if (!s.httpAddress().isEmpty()) {
                      LOG.warn(
                          "ignoring registry entry {} of {}: HTTP address '{}' is not"
                              + " http://<its transport host>:<port>",
                          s.nodeId(),
                          e.getKey(),
                          s.httpAddress());
                    }
                  });
        }
      }
    }
    return byDc;
  }

  /** The store, to hand to the transport's receiver as its {@link ReceivingStore}. */
  public PartitionStore store() {
    return store;
  }

  /** The generations: acquire one to query the composite database in-process. */
  public Generations generations() {
    return generations;
  }

  /** The indexes served, by name, the first one first (the one the unprefixed paths serve). */
  public Map<String, SearchIndex> indexes() {
    return java.util.Collections.unmodifiableMap(indexes);
  }

  /**
   * One served index.
   *
   * @throws IllegalArgumentException naming the indexes served when there is none of that name
   */
  public SearchIndex index(String name) {
    SearchIndex index = indexes.get(name);
    if (index == null) {
      throw new IllegalArgumentException(
          "no index '" + name + "'; this node serves " + indexes.keySet());
    }
    return index;
  }

  /** The search service (JSON in, JSON out) used by the HTTP API. */
  public SearchService searchService() {
    return search;
  }

  /** The registry {@code /metrics} scrapes; add your own meters to it. */
  public PrometheusMeterRegistry meterRegistry() {
    return registry;
  }

  /** Adds a contributor to {@code /health} (for example the transport's staleness check). */
  public void addHealthContributor(HealthContributor contributor) {
    health.add(Objects.requireNonNull(contributor, "contributor"));
  }

  /** The bound HTTP address (the actual port when 0 was asked). */
  public InetSocketAddress address() {
    if (binding == null) {
      throw new IllegalStateException("HTTP is not bound");
    }
    return binding.localAddress();
  }

  /** The bound HTTP port. */
  public int port() {
    return address().getPort();
  }

  /** Unbinds HTTP, stops reopening and releases the current generation. Idempotent. */
  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) == State.CLOSED) {
      return;
    }
    if (binding != null) {
      try {
        binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("unbinding HTTP failed: {}", e.toString());
      }
    }
    if (ownsSystem && system != null) {
      try {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(10, TimeUnit.SECONDS);
      } catch (Exception e) {
        LOG.warn("stopping the actor system failed: {}", e.toString());
      }
    }
    if (pages != null) {
      pages.close();
    }
    queryExecutor.shutdown();
    adminExecutor.shutdown();
    for (SearchIndex index : indexes.values()) {
      index.generations().close();
      index.store().close();
    }
    LOG.info("searcher node over {} closed", store.root());
  }

  private record ExtraIndex(String name, Path storeDirectory, PayloadDecoder payloads) {
    ExtraIndex {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(storeDirectory, "storeDirectory");
      Objects.requireNonNull(payloads, "payloads");
    }
  }

  /** Configures a {@link SearcherNode}. Not thread safe. */
  public static final class Builder {
    private final Path storeDirectory;
    private String host = "127.0.0.1";
    private int port = 8080;
    private Integer schemaVersion;
    private int keepVersions = 2;
    private boolean verifyOnStart = true;
    private Duration scanInterval = Duration.ofSeconds(10);
    private int arenaGroupSize = Generations.DEFAULT_ARENA_GROUP_SIZE;
    private int maxUnmapBacklog = Generations.DEFAULT_MAX_UNMAP_BACKLOG;
    private int bulkReopenPartitions = Generations.DEFAULT_BULK_REOPEN_PARTITIONS;
    private Duration reopenDelay = Generations.DEFAULT_REOPEN_DELAY;
    private int partitionGroupSize;
    private int groupingMinPartitions;
    private int maxLimit = 1000;
    private int maxClauses = QueryLimits.DEFAULT.maxClauses();
    private int maxDepth = QueryLimits.DEFAULT.maxDepth();
    private int maxInValues = QueryLimits.DEFAULT.maxInValues();
    private Duration queryTimeBudget = QueryLimits.DEFAULT.timeBudget();
    private QueryLimits queryLimits;
    private int queryQueue = 256;
    private long maxRequestBytes = HttpApi.DEFAULT_MAX_REQUEST_BYTES;
    private long maxFileBytes = PartitionStore.DEFAULT_MAX_FILE_BYTES;
    private long freeSpaceReserve = PartitionStore.DEFAULT_FREE_SPACE_RESERVE;
    private String adminToken;
    private int queryThreads = Math.max(2, Runtime.getRuntime().availableProcessors());
    private long maxUploadBytes;
    private PayloadDecoder payloads = new PayloadDecoder();
    private ActorSystem system;
    private final List<HealthContributor> health = new ArrayList<>();
    private String datacenter = "local";
    private StatusHistory.Settings statusHistory = StatusHistory.Settings.DEFAULT;
    private final Map<String, List<String>> peers = new LinkedHashMap<>();
    private SearcherDiscovery discovery;
    private String indexName;
    private final List<ExtraIndex> extraIndexes = new ArrayList<>();

    private Builder(Path storeDirectory) {
      this.storeDirectory = Objects.requireNonNull(storeDirectory, "storeDirectory");
    }

    /** Interface to bind (default 127.0.0.1). */
    public Builder host(String host) {
      this.host = Objects.requireNonNull(host, "host");
      return this;
    }

    /** HTTP port (default 8080; 0 picks a free one; -1 runs without HTTP). */
    public Builder port(int port) {
      this.port = port;
      return this;
    }

    /**
     * Schema version to serve (default: the newest the store holds when the first generation
     * opens).
     */
    public Builder schemaVersion(int schemaVersion) {
      this.schemaVersion = schemaVersion;
      return this;
    }

    /** Versions kept per partition (default 2). */
    public Builder keepVersions(int keepVersions) {
      this.keepVersions = keepVersions;
      return this;
    }

    /** Whether start verifies every file's checksum (default true). */
    public Builder verifyOnStart(boolean verifyOnStart) {
      this.verifyOnStart = verifyOnStart;
      return this;
    }

    /** Largest partition file the store accepts (default 4 GiB); see {@link PartitionStore}. */
    public Builder maxFileBytes(long maxFileBytes) {
      this.maxFileBytes = maxFileBytes;
      return this;
    }

    /**
     * Bytes kept free on the store's file system (default 512 MiB, 0: no check): a delivery that
     * would leave less is refused and the previous version keeps serving.
     */
    public Builder freeSpaceReserve(long freeSpaceReserve) {
      this.freeSpaceReserve = freeSpaceReserve;
      return this;
    }

    /** Period of the safety rescan of the store (default 10 s; zero disables it). */
    public Builder scanInterval(Duration scanInterval) {
      this.scanInterval = Objects.requireNonNull(scanInterval, "scanInterval");
      return this;
    }

    /** Partitions per shared arena among those mapped by one reopen (default 16). */
    public Builder arenaGroupSize(int arenaGroupSize) {
      this.arenaGroupSize = arenaGroupSize;
      return this;
    }

    /**
     * Most retired generations the unmapper may have waiting before reopens wait for it (default
     * 32); see {@link Generations.Builder#maxUnmapBacklog(int)}.
     */
    public Builder maxUnmapBacklog(int maxUnmapBacklog) {
      this.maxUnmapBacklog = maxUnmapBacklog;
      return this;
    }

    /**
     * Partitions a reopen must map for them to share arenas; see {@link
     * Generations.Builder#bulkReopenPartitions(int)}.
     */
    public Builder bulkReopenPartitions(int bulkReopenPartitions) {
      this.bulkReopenPartitions = bulkReopenPartitions;
      return this;
    }

    /**
     * Time from a store event to the reopen that serves it (default 100 ms); see {@link
     * Generations.Builder#reopenDelay(Duration)}.
     */
    public Builder reopenDelay(Duration reopenDelay) {
      this.reopenDelay = Objects.requireNonNull(reopenDelay, "reopenDelay");
      return this;
    }

    /**
     * Consecutive partitions merged into one local group in the background, queried as one database
     * (see {@link Generations.Builder#partitionGrouping}); 0 (the default here; the launchers
     * default to {@value #DEFAULT_PARTITION_GROUP_SIZE}) queries every partition as itself. Group
     * files go to {@code groups/} in each index's store directory.
     *
     * @throws IllegalArgumentException when negative or 1
     */
    public Builder partitionGroupSize(int partitionGroupSize) {
      if (partitionGroupSize < 0 || partitionGroupSize == 1) {
        throw new IllegalArgumentException(
            "partitionGroupSize must be 0 (off) or at least 2, got " + partitionGroupSize);
      }
      this.partitionGroupSize = partitionGroupSize;
      this.groupingMinPartitions = 0;
      return this;
    }

    /**
     * Groups of {@value #DEFAULT_PARTITION_GROUP_SIZE} partitions once an index serves at least
     * {@value #AUTO_GROUPING_MIN_PARTITIONS} partitions, every partition queried as itself below
     * that (the launchers' default; {@link #partitionGroupSize} overrides it).
     */
    public Builder autoPartitionGrouping() {
      this.partitionGroupSize = DEFAULT_PARTITION_GROUP_SIZE;
      this.groupingMinPartitions = AUTO_GROUPING_MIN_PARTITIONS;
      return this;
    }

    /** Largest {@code limit} a search may ask (default 1000). */
    public Builder maxLimit(int maxLimit) {
      this.maxLimit = maxLimit;
      return this;
    }

    /** Most condition clauses in one filter (default 256); more answers 400. */
    public Builder maxClauses(int maxClauses) {
      this.maxClauses = maxClauses;
      return this;
    }

    /** Deepest nesting of conditions in one filter (default 16); deeper answers 400. */
    public Builder maxDepth(int maxDepth) {
      this.maxDepth = maxDepth;
      return this;
    }

    /** Most values in one {@code in} list (default 1024); more answers 400. */
    public Builder maxInValues(int maxInValues) {
      this.maxInValues = maxInValues;
      return this;
    }

    /**
     * Wall time one query may take (default 10 s); a query over it is cancelled and answered 400
     * naming the budget. See {@link QueryLimits} for where the budget is checked.
     */
    public Builder queryTimeBudget(Duration queryTimeBudget) {
      this.queryTimeBudget = Objects.requireNonNull(queryTimeBudget, "queryTimeBudget");
      return this;
    }

    /**
     * The operator credential required by every state-changing endpoint (pin, unpin, schema switch,
     * upload): callers send {@code Authorization: Bearer <token>}; none answers 401, a wrong one
     * 403. Queries, {@code /health}, {@code /metrics} and {@code GET} status pages stay open.
     * Default: no token, and then the state-changing endpoints are disabled (403 naming this
     * setting) — the node never runs with open admin endpoints.
     *
     * <p>NOTE: the token travels in clear unless HTTP is behind TLS; keep it out of logs and
     * command lines (read it from a file or the environment).
     */
    public Builder adminToken(String adminToken) {
      Objects.requireNonNull(adminToken, "adminToken");
      if (adminToken.length() < 16) {
        throw new IllegalArgumentException(
            "adminToken must be at least 16 characters, got " + adminToken.length());
      }
      this.adminToken = adminToken;
      return this;
    }

    /**
     * Every query limit at once (see {@link QueryLimits}); replaces what {@link #maxLimit}, {@link
     * #maxClauses}, {@link #maxDepth}, {@link #maxInValues} and {@link #queryTimeBudget} set.
     */
    public Builder queryLimits(QueryLimits queryLimits) {
      this.queryLimits = Objects.requireNonNull(queryLimits, "queryLimits");
      return this;
    }

    private QueryLimits limits() {
      return queryLimits != null
          ? queryLimits
          : new QueryLimits(maxLimit, maxClauses, maxDepth, maxInValues, queryTimeBudget);
    }

    /**
     * Queries that may wait for a query thread (default 256); when that many wait, a new query is
     * answered 503 with {@code Retry-After}. Waiting counts against the query's time budget.
     */
    public Builder queryQueue(int queryQueue) {
      if (queryQueue < 1) {
        throw new IllegalArgumentException("queryQueue must be >= 1, got " + queryQueue);
      }
      this.queryQueue = queryQueue;
      return this;
    }

    /**
     * Largest body of a {@code /search} or {@code /count} request (default 16 MiB); a larger one is
     * answered 413, whether or not the node runs its own actor system.
     */
    public Builder maxRequestBytes(long maxRequestBytes) {
      if (maxRequestBytes < 1) {
        throw new IllegalArgumentException("maxRequestBytes must be >= 1, got " + maxRequestBytes);
      }
      this.maxRequestBytes = maxRequestBytes;
      return this;
    }

    /** Threads running queries (default: the number of cores, at least 2). */
    public Builder queryThreads(int queryThreads) {
      if (queryThreads < 1) {
        throw new IllegalArgumentException("queryThreads must be >= 1, got " + queryThreads);
      }
      this.queryThreads = queryThreads;
      return this;
    }

    /**
     * Enables {@code PUT /partitions/{p}/versions/{v}} for files up to that size (default 0:
     * disabled). The upload goes through the same stage/verify/publish path as the transport.
     */
    public Builder allowUploads(long maxUploadBytes) {
      this.maxUploadBytes = maxUploadBytes;
      return this;
    }

    /** How payloads are rendered as JSON (default: knows the {@code api} feed messages). */
    public Builder payloadDecoder(PayloadDecoder payloads) {
      this.payloads = Objects.requireNonNull(payloads, "payloads");
      return this;
    }

    /** Runs HTTP on an existing actor system (not terminated on close) instead of a private one. */
    public Builder actorSystem(ActorSystem system) {
      this.system = Objects.requireNonNull(system, "system");
      return this;
    }

    /** Adds a health contributor. */
    public Builder healthContributor(HealthContributor contributor) {
      health.add(Objects.requireNonNull(contributor, "contributor"));
      return this;
    }

    /**
     * How often the status page's history is sampled and how many samples are kept (default one
     * every 5 seconds for 15 minutes).
     */
    public Builder statusHistory(StatusHistory.Settings statusHistory) {
      this.statusHistory = Objects.requireNonNull(statusHistory, "statusHistory");
      return this;
    }

    /** This node's datacenter, as the cluster page shows it (default {@code local}). */
    public Builder datacenter(String datacenter) {
      this.datacenter = Objects.requireNonNull(datacenter, "datacenter");
      return this;
    }

    /**
     * Adds a peer searcher shown on {@code /cluster}, by its HTTP base address ({@code
     * http://host:port}). Use it when the node has no access to the discovery registry.
     */
    public Builder peer(String datacenter, String httpAddress) {
      peers
          .computeIfAbsent(Objects.requireNonNull(datacenter, "datacenter"), k -> new ArrayList<>())
          .add(Objects.requireNonNull(httpAddress, "httpAddress"));
      return this;
    }

    /**
     * Shows on {@code /cluster} every searcher registered in this discovery view that published an
     * HTTP address. The view is read on every request, not started or closed by the node.
     */
    public Builder peerDiscovery(SearcherDiscovery discovery) {
      this.discovery = Objects.requireNonNull(discovery, "discovery");
      return this;
    }

    /**
     * Names the index of the store directory given to {@link SearcherNode#builder} (default {@value
     * SearcherNode#DEFAULT_INDEX}): its meters are tagged {@code index=<name>} and it is also
     * served under {@code /indexes/<name>/}.
     */
    public Builder indexName(String indexName) {
      this.indexName = Objects.requireNonNull(indexName, "indexName");
      return this;
    }

    /**
     * Serves another index beside the first: its own store directory, its payload types, served
     * under {@code /indexes/<name>/} ({@code /search}, {@code /count}, {@code /partitions} and the
     * admin routes), its meters tagged {@code index=<name>}. Every other setting is shared.
     */
    public Builder index(String name, Path storeDirectory, PayloadDecoder payloads) {
      extraIndexes.add(new ExtraIndex(name, storeDirectory, payloads));
      return this;
    }

    /** The node, LATENT until {@link SearcherNode#start()}. */
    public SearcherNode build() {
      return new SearcherNode(this);
    }
  }
}
