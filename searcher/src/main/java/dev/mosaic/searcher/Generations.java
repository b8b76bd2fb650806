package dev.mosaic.searcher;

import dev.mosaic.format.PartitionGrouping;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.NavigableMap;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the current {@link Generation} of a {@link PartitionStore}'s files and swaps in the next
 * one when the store changes, in the manner of Lucene's {@code ReferenceManager}: queries {@link
 * #acquire()} the current generation and release it by closing it; a reopen builds the next
 * generation (reusing every partition that is already mapped), swaps it in atomically and drops the
 * searcher's own reference to the previous one. A partition's memory is unmapped (its {@link
 * java.lang.foreign.Arena} closed) only once no generation that uses it is held by anyone: phased
 * unmapping, made safe by FFM (a mistake surfaces as an {@link IllegalStateException}, never as a
 * crash). Unmapped files are handed back to the store, which deletes those beyond retention.
 *
 * <p>Reopens run on one maintenance thread: {@link Builder#reopenDelay(Duration)} after a store
 * event (the events of that delay coalesce into one reopen, so a feed cycle's many arrivals make a
 * few generations, not one each), on a periodic safety scan ({@link PartitionStore#rescan()} then
 * reopen), and on {@link #reopen()}. Queries never wait for a reopen and a reopen never waits for
 * queries. Arena closes (each one a handshake with every thread) run on a separate unmapper thread,
 * never on a query thread; a reopen waits only when the unmapper has {@link
 * Builder#maxUnmapBacklog(int)} retired generations still to process (back-pressure, so mapped
 * memory stays bounded when closes fall behind).
 *
 * <p>Partitions mapped by the same bulk reopen (at least {@link Builder#bulkReopenPartitions(int)})
 * share arenas of up to {@link Builder#arenaGroupSize(int)} partitions, as Lucene's {@code
 * RefCountedSharedArena} groups files: fewer handshakes when many partitions change at once, at the
 * price of keeping a retired partition mapped until the rest of its group retires too. By default
 * every reopen groups what it maps: with the {@link Builder#reopenDelay(Duration) reopen delay} a
 * reopen maps the partitions that arrived together, which a feed cycle touching most partitions
 * replaces together again in the next cycle; one arena close per partition instead made the
 * unmapper (each close a handshake with every thread) fall seconds behind in every cycle. Reopens
 * within {@link Builder#arenaFillWindow(Duration)} of an arena's opening keep filling it: a cycle
 * arriving over seconds in reopens of a few partitions each otherwise cost a handshake per reopen,
 * and the unmapper's backlog then held reopens back.
 *
 * <p>Parts: {@link GenerationBuilder} builds the next generation, {@link PartitionMappings} maps
 * and unmaps the partition files, {@link Unmapper} retires released generations; this class keeps
 * the lifecycle, the current generation, the reopen schedule and the meters.
 *
 * <p>Lifecycle: LATENT → {@link #start()} → STARTED → {@link #close()} → CLOSED.
 *
 * <p>Thread safety: safe for concurrent use. NOTE: a generation that is acquired and never released
 * keeps its partitions mapped forever; {@link #openGenerations()} shows it.
 */
public final class Generations implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(Generations.class);

  /** Default partitions per shared arena among those one reopen maps. */
  public static final int DEFAULT_ARENA_GROUP_SIZE = 16;

  /** Default time after an arena opened during which later reopens may map into it. */
  public static final Duration DEFAULT_ARENA_FILL_WINDOW = Duration.ofSeconds(1);

  /** Default partitions a reopen must map for them to share arenas. */
  public static final int DEFAULT_BULK_REOPEN_PARTITIONS = 1;

  /** Default bound on retired generations waiting for the unmapper. */
  public static final int DEFAULT_MAX_UNMAP_BACKLOG = 32;

  /** Default time from a store event to the reopen that serves it. */
  public static final Duration DEFAULT_REOPEN_DELAY = Duration.ofMillis(100);

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final PartitionStore store;
  private volatile Integer configuredSchemaVersion;
  private final Duration scanInterval;
  private final long reopenDelayNanos;
  private final Clock clock;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final AtomicReference<Generation> current = new AtomicReference<>();
  private final AtomicBoolean reopenPending = new AtomicBoolean();
  private final ScheduledExecutorService maintenance;
  private final StoreListener listener = (schemaVersion, partition) -> requestReopen();

  private final Unmapper unmapper;
  // Bookkeeping of mapped partitions and arenas, guarded by "books" (reopen and retire take it).
  private final Object books = new Object();
  private final PartitionMappings mappings;
  private final GenerationBuilder generationBuilder;
  private volatile int schemaVersion = -1;

  private final AtomicLong openGenerations = new AtomicLong();
  private final AtomicLong mappedPartitions = new AtomicLong();
  private final AtomicLong mappedBytes = new AtomicLong();
  private final AtomicLong liveArenas = new AtomicLong();
  // generations released by everyone whose partitions the unmapper has not yet processed
  private final AtomicLong unmapBacklog = new AtomicLong();
  private final Timer reopenTimer;
  private final Timer reopenThrottle;
  private final Timer unmapTimer;
  private final Counter reopenFailures;

  /** Null unless {@link Builder#partitionGrouping} is set. */
  private final BackgroundGrouping grouping;

  private Generations(Builder b) {
    this.store = b.store;
    this.configuredSchemaVersion = b.schemaVersion;
    this.scanInterval = b.scanInterval;
    this.reopenDelayNanos = b.reopenDelay.toNanos();
    this.clock = b.clock;
    this.maintenance =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "mosaic-generations");
              t.setDaemon(true);
              return t;
            });
    this.grouping =
        b.grouping == null
            ? null
            : new BackgroundGrouping(
                b.grouping, b.groupingMinPartitions, b.groupMergeSettle, this::requestReopen);
    MeterRegistry registry = b.registry;
    this.reopenTimer =
        Timer.builder("mosaic.searcher.reopen")
            .description("Reopens that built a new generation, and how long each took")
            .publishPercentileHistogram()
            .register(registry);
    this.unmapTimer =
        Timer.builder("mosaic.searcher.unmap")
            .description("Arena closes (unmapping retired partitions), and how long each took")
            .publishPercentileHistogram()
            .register(registry);
    this.reopenThrottle =
        Timer.builder("mosaic.searcher.reopen.throttled")
            .description(
                "Reopens held back because the unmapper was behind, and how long each waited")
            .register(registry);
    this.reopenFailures =
        Counter.builder("mosaic.searcher.reopen.failures")
            .description("Reopens that failed; the previous generation kept serving")
            .register(registry);
    this.mappings =
        new PartitionMappings(
            store, b.beforeArenaClose, unmapTimer, mappedPartitions, mappedBytes, liveArenas);
    this.generationBuilder =
        new GenerationBuilder(
            store,
            mappings,
            grouping,
            clock,
            this,
            b.arenaGroupSize,
            b.bulkReopenPartitions,
            b.arenaFillWindow.toNanos());
    this.unmapper =
        new Unmapper(
            books,
            mappings,
            grouping,
            openGenerations,
            unmapBacklog,
            b.maxUnmapBacklog,
            () -> state.get() == State.STARTED,
            reopenThrottle);
    Gauge.builder("mosaic.searcher.generations.open", openGenerations, AtomicLong::get)
        .description("Generations not yet retired (current plus those still held by queries)")
        .register(registry);
    Gauge.builder("mosaic.searcher.partitions.mapped", mappedPartitions, AtomicLong::get)
        .description("Partition files currently mapped")
        .register(registry);
    Gauge.builder("mosaic.searcher.mapped.bytes", mappedBytes, AtomicLong::get)
        .description("Bytes of partition files currently mapped")
        .baseUnit("bytes")
        .register(registry);
    Gauge.builder("mosaic.searcher.unmap.backlog", unmapBacklog, AtomicLong::get)
        .description("Retired generations waiting for the unmapper")
        .register(registry);
    Gauge.builder("mosaic.searcher.arenas", liveArenas, AtomicLong::get)
        .description("Shared arenas currently open")
        .register(registry);
    Gauge.builder("mosaic.searcher.generation.age", this, g -> g.currentAgeSeconds())
        .description("Seconds since the current generation was opened")
        .baseUnit("seconds")
        .register(registry);
    Gauge.builder("mosaic.searcher.generation.id", this, g -> g.currentId())
        .description("Id of the current generation")
        .register(registry);
    Gauge.builder("mosaic.searcher.partitions.serving", this, g -> g.currentPartitions())
        .description("Partitions in the current generation")
        .register(registry);
    Gauge.builder("mosaic.searcher.store.files", store, PartitionStore::fileCount)
        .description("Partition files (all versions) held by the store")
        .register(registry);
  }

  /** A builder over a started store. */
  public static Builder builder(PartitionStore store) {
    return new Builder(store);
  }

  /**
   * Opens the first generation from what the store holds (when it holds anything), subscribes to
   * the store and starts the periodic safety scan.
   *
   * @throws IllegalStateException when not LATENT
   */
  public void start() {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("generations are " + state.get() + ", cannot start");
    }
    store.addListener(listener);
    reopen().join();
    long period = scanInterval.toMillis();
    if (period > 0) {
      maintenance.scheduleWithFixedDelay(this::safetyScan, period, period, TimeUnit.MILLISECONDS);
    }
  }

  /**
   * The current generation, with one more reference: close it when done (try-with-resources). Never
   * blocks.
   *
   * @throws IllegalStateException when no generation is open yet (nothing to serve) or closed
   */
  public Generation acquire() {
    while (true) {
      Generation g = current.get();
      if (g == null) {
        throw new IllegalStateException(
            state.get() == State.CLOSED
                ? "the searcher is closed"
                : "no generation is open yet: the store holds no partition of the served schema version");
      }
      if (g.tryIncRef()) {
        return g;
      }
      // retired between the read and the increment: a newer one is current now
    }
  }

  /** True once a generation is open (ready to serve). */
  public boolean isReady() {
    return current.get() != null;
  }

  /**
   * Runs a reopen on the maintenance thread: rebuilds the generation if the store's serving files
   * differ from the current generation's.
   *
   * @return completes with the current generation's id after the reopen (-1 when none), or
   *     exceptionally when the reopen failed (the previous generation keeps serving)
   */
  public CompletableFuture<Long> reopen() {
    CompletableFuture<Long> result = new CompletableFuture<>();
    try {
      maintenance.execute(
          () -> {
            try {
              result.complete(doReopen());
            } catch (RuntimeException | Error e) {
              result.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new IllegalStateException("generations are closed", e));
    }
    return result;
  }

  /** The schema version served, or empty before the first generation when not configured. */
  public OptionalInt schemaVersion() {
    int v = schemaVersion;
    return v < 0 ? OptionalInt.empty() : OptionalInt.of(v);
  }

  /**
   * Serves another schema version from now on (rolling a schema change out, or back): the next
   * generation is built from that schema version's files only, and queries see the switch
   * atomically. The switch is refused while that schema version lacks a partition the current
   * generation serves, so a half-built version is never served. It pins the version: without a pin,
   * the searcher moves to a newer schema version by itself once that one is complete.
   *
   * @return completes with the new generation's id, or exceptionally (the current generation keeps
   *     serving) when the store holds no file of that schema version, or not yet every partition
   *     served now (the message names the missing ones)
   */
  public CompletableFuture<Long> switchSchemaVersion(int schemaVersion) {
    NavigableMap<Integer, StoredFile> target = store.servingFiles(schemaVersion);
    if (target.isEmpty()) {
      return CompletableFuture.failedFuture(
          new IllegalArgumentException(
              "the store holds no partition of schema version "
                  + schemaVersion
                  + "; held schema versions: "
                  + store.schemaVersions()));
    }
    int sv = this.schemaVersion;
    if (sv >= 0 && sv != schemaVersion) {
      NavigableSet<Integer> missing = new TreeSet<>(store.servingFiles(sv).keySet());
      missing.removeAll(target.keySet());
      if (!missing.isEmpty()) {
        return CompletableFuture.failedFuture(
            new IllegalArgumentException(
                "schema version "
                    + schemaVersion
                    + " is incomplete: the store holds "
                    + target.size()
                    + " of the partitions schema version "
                    + sv
                    + " serves, missing "
                    + (missing.size() > 10
                        ? missing.stream().limit(10).toList()
                            + " and "
                            + (missing.size() - 10)
                            + " more"
                        : missing)
                    + "; switch once they have arrived"));
      }
    }
    CompletableFuture<Long> result = new CompletableFuture<>();
    try {
      maintenance.execute(
          () -> {
            try {
              configuredSchemaVersion = schemaVersion;
              this.schemaVersion = schemaVersion;
              result.complete(doReopen());
              LOG.info("now serving schema version {}", schemaVersion);
            } catch (RuntimeException | Error e) {
              result.completeExceptionally(e);
            }
          });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(new IllegalStateException("generations are closed", e));
    }
    return result;
  }

  /** The store this serves. */
  public PartitionStore store() {
    return store;
  }

  /** Generations not yet retired: the current one plus older ones still held. */
  public long openGenerations() {
    return openGenerations.get();
  }

  /** Partition files currently mapped (by current or held generations, or awaiting their group). */
  public long mappedPartitions() {
    return mappedPartitions.get();
  }

  /** Bytes of partition files currently mapped. */
  public long mappedBytes() {
    return mappedBytes.get();
  }

  /** Shared arenas currently open. */
  public long openArenas() {
    return liveArenas.get();
  }

  /** Retired generations whose partitions the unmapper has not processed yet. */
  public long unmapBacklog() {
    return unmapBacklog.get();
  }

  /** Reopens that waited for the unmapper to catch up. */
  public long throttledReopens() {
    return reopenThrottle.count();
  }

  /** Reopens that built a new generation so far. */
  public long reopenCount() {
    return reopenTimer.count();
  }

  /** Total time spent in reopens that built a generation. */
  public Duration reopenTime() {
    return Duration.ofNanos((long) reopenTimer.totalTime(TimeUnit.NANOSECONDS));
  }

  /** Arena closes so far, and their total time. */
  public long unmapCount() {
    return unmapTimer.count();
  }

  /** Total time spent closing arenas. */
  public Duration unmapTime() {
    return Duration.ofNanos((long) unmapTimer.totalTime(TimeUnit.NANOSECONDS));
  }

  /**
   * Stops reopening and drops the searcher's reference to the current generation; partitions are
   * unmapped once every holder released its generation. Idempotent.
   */
  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) == State.CLOSED) {
      return;
    }
    store.removeListener(listener);
    maintenance.shutdown();
    try {
      if (!maintenance.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("maintenance thread did not stop within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    Generation g = current.getAndSet(null);
    if (g != null) {
      g.decRef();
    }
    unmapper.shutdown();
    if (grouping != null) {
      grouping.close();
    }
  }

  // ---------------------------------------------------------------------------------------------

  /** Schedules a reopen after the reopen delay unless one is already waiting for it. */
  private void requestReopen() {
    if (reopenPending.compareAndSet(false, true)) {
      try {
        maintenance.schedule(
            () -> {
              reopenPending.set(false);
              if (state.get() != State.STARTED) {
                return; // closed while the reopen waited for its delay
              }
              try {
                doReopen();
              } catch (RuntimeException e) {
                LOG.error("reopen failed; the previous generation keeps serving", e);
              }
            },
            reopenDelayNanos,
            TimeUnit.NANOSECONDS);
      } catch (RejectedExecutionException e) {
        reopenPending.set(false);
      }
    }
  }

  private void safetyScan() {
    if (state.get() != State.STARTED) {
      return;
    }
    try {
      store.rescan();
      doReopen();
    } catch (IOException | RuntimeException e) {
      if (state.get() != State.STARTED) {
        return; // closing: the store or we went away under the scan
      }
      LOG.error("periodic store scan failed; the previous generation keeps serving", e);
    }
  }

  private double currentAgeSeconds() {
    Generation g = current.get();
    return g == null
        ? Double.NaN
        : Duration.between(g.createdAt(), clock.instant()).toNanos() / 1e9;
  }

  private double currentId() {
    Generation g = current.get();
    return g == null ? Double.NaN : g.id();
  }

  private double currentPartitions() {
    Generation g = current.get();
    return g == null ? 0 : g.partitionCount();
  }

  /** Builds and swaps in the next generation when something changed. Maintenance thread only. */
  private long doReopen() {
    if (state.get() == State.CLOSED) {
      throw new IllegalStateException("generations are closed");
    }
    unmapper.awaitBacklog();
    long start = System.nanoTime();
    try {
      synchronized (books) {
        return buildNext(start);
      }
    } catch (RuntimeException e) {
      reopenFailures.increment();
      throw e;
    }
  }

  /**
   * A schema version newer than {@code sv} that holds every partition {@code sv} serves, the newest
   * such, or {@code sv}: an unpinned searcher follows a schema change once the new version is
   * complete (an operator's {@link #switchSchemaVersion} pins the version, for a rollback).
   */
  private int newestCompleteSchemaVersion(int sv) {
    List<Integer> held = store.schemaVersions();
    if (held.isEmpty() || held.get(held.size() - 1) <= sv) {
      return sv;
    }
    Set<Integer> serving = store.servingFiles(sv).keySet();
    for (int i = held.size() - 1; i >= 0 && held.get(i) > sv; i--) {
      int newer = held.get(i);
      if (store.servingFiles(newer).keySet().containsAll(serving)) {
        LOG.info("schema version {} is complete: serving it instead of {}", newer, sv);
        return newer;
      }
    }
    return sv;
  }

  /**
   * Picks the schema version to serve, has the next generation built and swaps it in when it
   * differs from the current one. Books lock held.
   */
  private long buildNext(long start) {
    Generation cur = current.get();
    int sv = schemaVersion;
    if (sv < 0) {
      if (configuredSchemaVersion != null) {
        sv = configuredSchemaVersion;
      } else {
        List<Integer> held = store.schemaVersions();
        if (held.isEmpty()) {
          return -1;
        }
        sv = held.get(held.size() - 1);
      }
    }
    if (configuredSchemaVersion == null) {
      sv = newestCompleteSchemaVersion(sv);
    }
    GenerationBuilder.Built built = generationBuilder.build(cur, sv);
    if (built == null) {
      return cur == null ? -1 : cur.id();
    }
    Generation g = built.generation();
    openGenerations.incrementAndGet();
    schemaVersion = sv;
    current.set(g);
    if (cur != null) {
      cur.decRef();
    }
    long took = System.nanoTime() - start;
    reopenTimer.record(took, TimeUnit.NANOSECONDS);
    LOG.debug(
        "generation {} open: {} partitions ({} newly mapped) in {} µs",
        g.id(),
        g.partitionCount(),
        built.newlyMapped(),
        took / 1000);
    return g.id();
  }

  /** Called by a generation whose last reference was released. */
  void retire(Generation g) {
    unmapper.retire(g);
  }

  /** Configures {@link Generations}. Not thread safe. */
  public static final class Builder {
    private final PartitionStore store;
    private Integer schemaVersion;
    private Duration scanInterval = Duration.ofSeconds(10);
    private int arenaGroupSize = DEFAULT_ARENA_GROUP_SIZE;
    private Duration arenaFillWindow = DEFAULT_ARENA_FILL_WINDOW;
    private int maxUnmapBacklog = DEFAULT_MAX_UNMAP_BACKLOG;
    private int bulkReopenPartitions = DEFAULT_BULK_REOPEN_PARTITIONS;
    private Duration reopenDelay = DEFAULT_REOPEN_DELAY;
    private Runnable beforeArenaClose = () -> {};
    private MeterRegistry registry = new SimpleMeterRegistry();
    private Clock clock = Clock.systemUTC();
    private PartitionGrouping.Config grouping;
    private int groupingMinPartitions;
    private Duration groupMergeSettle = BackgroundGrouping.SETTLE;

    private Builder(PartitionStore store) {
      this.store = Objects.requireNonNull(store, "store");
    }

    /**
     * The schema version to serve. Default: the newest schema version the store holds when the
     * first generation opens; it then stays fixed.
     */
    public Builder schemaVersion(int schemaVersion) {
      if (schemaVersion < 0) {
        throw new IllegalArgumentException("schemaVersion must be >= 0, got " + schemaVersion);
      }
      this.schemaVersion = schemaVersion;
      return this;
    }

    /**
     * How often to rescan the store's directory and reopen as a safety net (default 10 s; zero
     * disables it). Store events trigger reopens immediately regardless.
     */
    public Builder scanInterval(Duration scanInterval) {
      if (scanInterval.isNegative()) {
        throw new IllegalArgumentException("scanInterval must not be negative: " + scanInterval);
      }
      this.scanInterval = scanInterval;
      return this;
    }

    /**
     * How many partitions mapped by one reopen may share one arena (default 16): one arena close (a
     * handshake with every thread) unmaps the whole group, so a reopen replacing all 1024
     * partitions costs 64 closes instead of 1024, at the price of keeping a retired partition
     * mapped until the rest of its group retires. 1 unmaps every partition as soon as it retires.
     */
    public Builder arenaGroupSize(int arenaGroupSize) {
      if (arenaGroupSize < 1) {
        throw new IllegalArgumentException("arenaGroupSize must be >= 1, got " + arenaGroupSize);
      }
      this.arenaGroupSize = arenaGroupSize;
      return this;
    }

    /**
     * How long after an arena was opened later reopens may still map into it, up to {@link
     * #arenaGroupSize(int)} partitions (default {@link #DEFAULT_ARENA_FILL_WINDOW}; zero: every
     * reopen opens its own arenas). A feed cycle's partitions arrive over seconds in many small
     * reopens; one arena per reopen meant one handshake per reopen to unmap them again.
     */
    public Builder arenaFillWindow(Duration window) {
      if (window.isNegative()) {
        throw new IllegalArgumentException("arenaFillWindow must not be negative, got " + window);
      }
      this.arenaFillWindow = window;
      return this;
    }

    /**
     * Partitions a reopen must map for them to share arenas (default 1: always); smaller reopens
     * map one partition per arena, so replacing a few partitions never keeps retired neighbours
     * mapped.
     */
    public Builder bulkReopenPartitions(int bulkReopenPartitions) {
      if (bulkReopenPartitions < 1) {
        throw new IllegalArgumentException(
            "bulkReopenPartitions must be >= 1, got " + bulkReopenPartitions);
      }
      this.bulkReopenPartitions = bulkReopenPartitions;
      return this;
    }

    /**
     * Most retired generations the unmapper may have waiting (default 32): a reopen waits while
     * there are that many, so open generations stay at most this plus the queries in flight plus
     * one, and mapped bytes with them, however far arena closes fall behind.
     */
    public Builder maxUnmapBacklog(int maxUnmapBacklog) {
      if (maxUnmapBacklog < 1) {
        throw new IllegalArgumentException("maxUnmapBacklog must be >= 1, got " + maxUnmapBacklog);
      }
      this.maxUnmapBacklog = maxUnmapBacklog;
      return this;
    }

    /**
     * How long after a store event its reopen runs (default 100 ms; zero reopens at once): the
     * events of that time share the reopen. A feed cycle delivers hundreds of partitions within a
     * second or two; one reopen each would retire as many generations and close as many arenas
     * (each close a handshake with every thread), and the unmapper, falling behind, would hold
     * reopens back. The delay bounds what it adds to freshness.
     */
    public Builder reopenDelay(Duration reopenDelay) {
      if (reopenDelay.isNegative()) {
        throw new IllegalArgumentException("reopenDelay must not be negative: " + reopenDelay);
      }
      this.reopenDelay = reopenDelay;
      return this;
    }

    /** Runs before every arena close on the unmapper thread (tests slow the unmapper with it). */
    Builder beforeArenaClose(Runnable hook) {
      this.beforeArenaClose = Objects.requireNonNull(hook, "hook");
      return this;
    }

    /** Where to register the meters (default: a private simple registry). */
    public Builder meterRegistry(MeterRegistry registry) {
      this.registry = Objects.requireNonNull(registry, "registry");
      return this;
    }

    /** The clock for generation ages (default UTC system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock, "clock");
      return this;
    }

    /**
     * Merges blocks of consecutive partitions into local groups in the background and queries them
     * as groups ({@link PartitionGrouping}; default off here, on in the searcher node as its
     * configuration says). Costs the group files' disk space and mappings beside the partitions'.
     * The directory is created when missing and files left in it are deleted when the generations
     * are built.
     */
    public Builder partitionGrouping(PartitionGrouping.Config config) {
      return partitionGrouping(config, 0);
    }

    /**
     * As {@link #partitionGrouping(PartitionGrouping.Config)}, but a generation of fewer than
     * {@code minPartitions} partitions is queried ungrouped and starts no merge.
     *
     * @throws IllegalArgumentException when {@code minPartitions} is negative
     */
    public Builder partitionGrouping(PartitionGrouping.Config config, int minPartitions) {
      if (minPartitions < 0) {
        throw new IllegalArgumentException("minPartitions must be >= 0, got " + minPartitions);
      }
      this.grouping = Objects.requireNonNull(config, "config");
      this.groupingMinPartitions = minPartitions;
      return this;
    }

    /** How long partitions must stay unchanged before a group merge starts (tests). */
    Builder groupMergeSettle(Duration settle) {
      this.groupMergeSettle = Objects.requireNonNull(settle, "settle");
      return this;
    }

    /** The generations, LATENT until {@link Generations#start()}. */
    public Generations build() {
      return new Generations(this);
    }
  }
}
