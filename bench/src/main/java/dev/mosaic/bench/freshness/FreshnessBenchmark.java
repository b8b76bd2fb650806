package dev.mosaic.bench.freshness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.deploy.FeedSimulator;
import dev.mosaic.deploy.IndexerRole;
import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.deploy.MosaicConfig;
import dev.mosaic.deploy.SearcherRole;
import dev.mosaic.indexer.FeedBatch;
import dev.mosaic.indexer.FeedLoader;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * The freshness load tool ({@code bench/freshness.sh}): the whole pipeline of the local cluster in
 * this JVM (embedded ZooKeeper and KRaft Kafka, the feed loader, 2 indexers, 2 datacenters of 2
 * searchers, every searcher with its HTTP API), at production scale by default (500,000 offers of
 * the simulated partners in 1024 partitions). Once every searcher serves every partition, each
 * cycle changes the content of a share of the offers (1% by default, drawn over all partners) and
 * hands the changed partners' full snapshots to the feed loader as one batch ({@code
 * --publish-threads} partners at a time), which diffs them and publishes the changes to Kafka; the
 * cycle's time runs from that moment until every searcher answers every changed offer with its new
 * content over HTTP ({@link ConvergenceWatch}). The snapshots are serialized before the cycle
 * starts (they arrive as bytes, as from the partners), so the simulator's building them is not
 * counted. After the cluster is quiet again (indexers idle, every searcher at the manifest's latest
 * versions) the transport's counters give the bytes that crossed datacenters and the full files
 * shipped in the cycle ({@link WireCounters}).
 *
 * <p>Ends with {@code RESULT freshness offers=<> partitions=<> cycles=<> p50_ms=<> p99_ms=<>
 * wire_bytes_per_changed_byte=<> full_copies=<>} ({@link FreshnessResult}); exits 1 when a cycle
 * did not become searchable everywhere within {@code --cycle-timeout}, printing what was missing.
 */
@Command(
    name = "freshness-benchmark",
    mixinStandardHelpOptions = true,
    description = "Feed-to-searchable time and cross-DC bytes per cycle on the local cluster.")
public final class FreshnessBenchmark implements Callable<Integer> {
  @Option(names = "--offers", description = "offers of the partners (default ${DEFAULT-VALUE})")
  int offers = 500_000;

  @Option(names = "--partitions", description = "index partitions P (default ${DEFAULT-VALUE})")
  int partitions = 1024;

  @Option(names = "--cycles", description = "measured cycles (default ${DEFAULT-VALUE})")
  int cycles = 10;

  @Option(
      names = "--warmup-cycles",
      description =
          "cycles run before the measured ones and not counted: the first cycles after start-up"
              + " still compile the cycle's code paths; the process CPU per cycle fell until about"
              + " the ninth cycle (default ${DEFAULT-VALUE})")
  int warmupCycles = 8;

  @Option(
      names = "--change-fraction",
      description = "share of the offers changed per cycle, in (0, 1] (default ${DEFAULT-VALUE})")
  double changeFraction = 0.01;

  @Option(
      names = "--cycle-timeout",
      paramLabel = "SECONDS",
      description =
          "a cycle not searchable everywhere after this long fails the run (default"
              + " ${DEFAULT-VALUE})")
  int cycleTimeoutSeconds = 600;

  @Option(
      names = "--ready-timeout",
      paramLabel = "SECONDS",
      description =
          "longest start-up until every searcher serves every partition (default"
              + " ${DEFAULT-VALUE})")
  int readyTimeoutSeconds = 3600;

  @Option(
      names = "--poll-ms",
      description =
          "pause between two polling rounds over the searchers (default ${DEFAULT-VALUE})")
  int pollMillis = 50;

  @Option(
      names = "--publish-threads",
      description =
          "partners' snapshots of a cycle diffed and published at once, in one batch (default"
              + " ${DEFAULT-VALUE})")
  int publishThreads = FeedLoader.DEFAULT_PUBLISH_THREADS;

  @Option(
      names = "--set",
      paramLabel = "KEY=VALUE",
      description = "overrides one key of the cluster's configuration (deploy/CONFIG.md)")
  Map<String, String> sets = new LinkedHashMap<>();

  @Spec CommandSpec spec;

  /**
   * The validated options.
   *
   * @param overrides the cluster's extra configuration overrides ({@code --set})
   */
  record Settings(
      int offers,
      int partitions,
      int cycles,
      int warmupCycles,
      double changeFraction,
      Duration cycleTimeout,
      Duration readyTimeout,
      Duration pollInterval,
      int publishThreads,
      Map<String, String> overrides) {
    Settings {
      overrides = Map.copyOf(overrides);
    }

    /**
     * The local cluster's configuration: the scale, still feeds after start-up (the cycles are the
     * only changes), the start-up deadline, at most 8 Kafka partitions (as the demo), a throwaway
     * ZooKeeper credential; then the {@code --set} overrides.
     */
    Map<String, String> clusterOverrides() {
      Map<String, String> o = new LinkedHashMap<>();
      o.put("mosaic.partitions", Integer.toString(partitions));
      o.put("mosaic.feed.offers", Integer.toString(offers));
      o.put("mosaic.kafka.topic-partitions", Integer.toString(Math.min(8, partitions)));
      o.put("mosaic.local.feed-after-start", "false");
      o.put("mosaic.local.ready-timeout", readyTimeout.toSeconds() + "s");
      o.put(
          "mosaic.transport.zookeeper.digest-password", "\"" + java.util.UUID.randomUUID() + "\"");
      o.putAll(overrides);
      return o;
    }
  }

  /**
   * Checks the options.
   *
   * @throws CommandLine.ParameterException naming the option and its value when out of range
   */
  Settings settings() {
    require(offers >= 1, "--offers must be at least 1, got " + offers);
    require(
        partitions >= 1 && partitions <= 1 << 15,
        "--partitions must be between 1 and 32768, got " + partitions);
    require(cycles >= 1, "--cycles must be at least 1, got " + cycles);
    require(warmupCycles >= 0, "--warmup-cycles must be at least 0, got " + warmupCycles);
    require(
        changeFraction > 0 && changeFraction <= 1,
        "--change-fraction must be in (0, 1], got " + changeFraction);
    require(
        cycleTimeoutSeconds >= 1,
        "--cycle-timeout must be at least 1 s, got " + cycleTimeoutSeconds);
    require(
        readyTimeoutSeconds >= 1,
        "--ready-timeout must be at least 1 s, got " + readyTimeoutSeconds);
    require(pollMillis >= 1, "--poll-ms must be at least 1, got " + pollMillis);
    require(publishThreads >= 1, "--publish-threads must be at least 1, got " + publishThreads);
    return new Settings(
        offers,
        partitions,
        cycles,
        warmupCycles,
        changeFraction,
        Duration.ofSeconds(cycleTimeoutSeconds),
        Duration.ofSeconds(readyTimeoutSeconds),
        Duration.ofMillis(pollMillis),
        publishThreads,
        sets);
  }

  private void require(boolean ok, String message) {
    if (!ok) {
      throw new CommandLine.ParameterException(spec.commandLine(), message);
    }
  }

  public static void main(String[] args) {
    System.exit(new CommandLine(new FreshnessBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Settings s = settings();
    MosaicConfig config;
    try {
      config = MosaicConfig.withOverrides(s.clusterOverrides());
    } catch (IllegalArgumentException e) {
      throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
    }
    PrintStream out = System.out;
    out.printf(
        Locale.ROOT,
        "freshness: %,d offers of %d partners in %d partitions, %d indexers, %d searchers in %s;"
            + " %d warm-up and %d measured cycles of %.2f%% changed offers%n",
        s.offers(),
        config.feed.partners,
        s.partitions(),
        config.indexer.nodes,
        config.searcher.dcs.size() * config.searcher.nodesPerDc,
        config.searcher.dcs,
        s.warmupCycles(),
        s.cycles(),
        s.changeFraction() * 100);
    long t = System.nanoTime();
    // the loader's publishing threads live for the whole run, so CpuByRole counts them as
    // feed_loader in every cycle (a pool per cycle took its threads' CPU time with them)
    try (LocalCluster cluster = new LocalCluster(config).onProgress(System.err::println);
        ExecutorService publishers =
            Executors.newFixedThreadPool(
                s.publishThreads(), Thread.ofPlatform().name("feed-publish-", 0).factory())) {
      cluster.start();
      out.printf(Locale.ROOT, "cluster ready after %.1f s%n", (System.nanoTime() - t) / 1e9);
      Map<String, String> addresses = new LinkedHashMap<>();
      for (SearcherRole r : cluster.runningSearchers()) {
        addresses.put(r.nodeId(), r.httpAddress());
      }
      ConvergenceWatch watch =
          new ConvergenceWatch(new HttpSearch(addresses), s.pollInterval(), System::nanoTime);
      StageClock stages = stageClock(cluster, s);
      for (int i = 1; i <= s.warmupCycles(); i++) {
        TimedCycle c;
        try {
          c = cycle(cluster, s, watch, stages, publishers, List.copyOf(addresses.keySet()));
        } catch (TimeoutException e) {
          out.printf(
              "FAILED freshness warm-up cycle %d of %d: %s%n", i, s.warmupCycles(), e.getMessage());
          return 1;
        }
        out.printf(
            Locale.ROOT,
            "warm-up cycle %d/%d (not measured): %,d offers changed in %d partitions; searchable on"
                + " every searcher after %,d ms (process CPU %,d ms)%n",
            i,
            s.warmupCycles(),
            c.cycle().changedOffers(),
            c.cycle().changedPartitions(),
            c.cycle().searchableMillis(),
            c.cpuNanos() / 1_000_000);
      }
      List<FreshnessResult.Cycle> done = new ArrayList<>();
      List<StageClock.Stages> stagesDone = new ArrayList<>();
      for (int i = 1; i <= s.cycles(); i++) {
        TimedCycle c;
        long searchesBefore = watch.searches();
        Duration searchTimeBefore = watch.searchTime();
        try {
          c = cycle(cluster, s, watch, stages, publishers, List.copyOf(addresses.keySet()));
        } catch (TimeoutException e) {
          out.printf("FAILED freshness cycle %d of %d: %s%n", i, s.cycles(), e.getMessage());
          return 1;
        }
        done.add(c.cycle());
        long searches = watch.searches() - searchesBefore;
        long searchMillis = watch.searchTime().minus(searchTimeBefore).toMillis();
        out.printf(
            Locale.ROOT,
            "cycle %d/%d: %,d offers changed (%,d raw bytes) in %d partitions; in Kafka after %,d"
                + " ms, searchable on every searcher after %,d ms (process CPU %,d ms: %.2f of %d"
                + " cores); cross-DC %,d bytes (%.2f per changed byte), %d full files%s; polled"
                + " with %d searches of %d ms on average%n",
            i,
            s.cycles(),
            c.cycle().changedOffers(),
            c.cycle().changedBytes(),
            c.cycle().changedPartitions(),
            c.cycle().publishMillis(),
            c.cycle().searchableMillis(),
            c.cpuNanos() / 1_000_000,
            c.cpuNanos() / 1e6 / Math.max(1, c.cycle().searchableMillis()),
            Runtime.getRuntime().availableProcessors(),
            c.cycle().wire().crossDcBytes(),
            c.cycle().wireBytesPerChangedByte(),
            c.cycle().wire().fullCopies(),
            c.cycle().wire().bytesSentByKind().isEmpty()
                ? ""
                : ", sent by kind " + c.cycle().wire().bytesSentByKind(),
            searches,
            searches == 0 ? 0 : searchMillis / searches);
        stagesDone.add(c.stages());
        out.printf(
            Locale.ROOT,
            "INFO freshness cycle %d stages (ms after the snapshots, first..last(count)):"
                + " kafka_ms=%d%s searchable_ms=%d%n",
            i,
            c.cycle().publishMillis(),
            c.stages().describe(),
            c.cycle().searchableMillis());
        out.printf(
            "INFO freshness cycle %d CPU by thread role (ms, all nodes share this process): %s%n",
            i, CpuByRole.describe(c.cpuByRole()));
        out.printf(
            "INFO freshness cycle %d busiest thread groups (ms; digits read as N): %s%n",
            i,
            c.busiestThreads().entrySet().stream()
                .map(e -> "'" + e.getKey() + "'=" + e.getValue() / 1_000_000)
                .collect(java.util.stream.Collectors.joining(" ")));
      }
      out.println(StageClock.medians(stagesDone));
      FreshnessResult result = new FreshnessResult(s.offers(), s.partitions(), done);
      LongSummary publish =
          LongSummary.of(done.stream().mapToLong(FreshnessResult.Cycle::publishMillis));
      out.printf(
          Locale.ROOT,
          "INFO freshness loader_to_kafka_mean_ms=%d loader_to_kafka_max_ms=%d"
              + " changed_offers_mean=%d changed_partitions_mean=%d%n",
          publish.mean(),
          publish.max(),
          (long) done.stream().mapToInt(FreshnessResult.Cycle::changedOffers).average().orElse(0),
          (long)
              done.stream().mapToInt(FreshnessResult.Cycle::changedPartitions).average().orElse(0));
      out.println(result.line());
      return 0;
    }
  }

  private record LongSummary(long mean, long max) {
    static LongSummary of(java.util.stream.LongStream values) {
      java.util.LongSummaryStatistics st = values.summaryStatistics();
      return new LongSummary(Math.round(st.getAverage()), st.getMax());
    }
  }

  /** A measured cycle and the times of its stages. */
  /**
   * A cycle with its stages and the CPU time this process (every node, Kafka, ZooKeeper and the
   * watch) spent from the snapshots' arrival until the cycle was searchable everywhere.
   */
  private record TimedCycle(
      FreshnessResult.Cycle cycle,
      StageClock.Stages stages,
      long cpuNanos,
      Map<String, Long> cpuByRole,
      Map<String, Long> busiestThreads) {}

  /**
   * The stage clock over the cluster's nodes: the indexers' and searchers' registries and a
   * listener on every searcher's store.
   */
  private static StageClock stageClock(LocalCluster cluster, Settings s) {
    java.util.concurrent.atomic.AtomicLong stored = new java.util.concurrent.atomic.AtomicLong();
    List<MeterRegistry> searcherRegistries = new ArrayList<>();
    for (SearcherRole r : cluster.runningSearchers()) {
      r.node().store().addListener((schemaVersion, partition) -> stored.incrementAndGet());
      searcherRegistries.add(r.node().meterRegistry());
    }
    List<MeterRegistry> indexerRegistries =
        cluster.runningIndexers().stream().map(IndexerRole::registry).toList();
    return new StageClock(
        indexerRegistries,
        searcherRegistries,
        registries(cluster),
        stored::get,
        Math.max(1, s.pollInterval().toMillisPart()));
  }

  /**
   * Hands a cycle's snapshots to the loader as one batch ({@link FeedBatch}), as many partners
   * diffed and published at once as {@code publishers} has threads, then ends the batch: the
   * indexers rebuild each partition the cycle changed once, on the batch's end markers, instead of
   * once per partner whose snapshot touched it.
   */
  private static void publishAsOneBatch(
      FeedLoader loader, List<byte[]> snapshots, ExecutorService publishers) throws Exception {
    FeedBatch batch = loader.batch();
    List<Future<?>> published = new ArrayList<>();
    for (byte[] snapshot : snapshots) {
      published.add(publishers.submit(() -> batch.publish(snapshot)));
    }
    for (Future<?> f : published) {
      f.get();
    }
    batch.end();
  }

  /** Thread groups listed per cycle by their CPU. */
  private static final int BUSIEST_THREAD_GROUPS = 15;

  /** One cycle: change, publish, wait until searchable everywhere, then until quiet. */
  private static TimedCycle cycle(
      LocalCluster cluster,
      Settings s,
      ConvergenceWatch watch,
      StageClock stages,
      ExecutorService publishers,
      List<String> searchers)
      throws Exception {
    FeedSimulator simulator = cluster.simulator();
    WireCounters.Reading before = WireCounters.read(registries(cluster));
    FeedSimulator.ContentChange change = simulator.changeContent(s.changeFraction());
    ChangedOffers changed = ChangedOffers.of(change.changed(), s.partitions());
    long now = System.currentTimeMillis();
    long rawBytes = 0;
    for (CarOffer c : change.changed()) {
      rawBytes += CarOffers.toOffer(c, now).getSerializedSize();
    }
    // the snapshots arrive as bytes, as from the partners: building them is not the pipeline's time
    List<byte[]> snapshots = simulator.serializedSnapshots(change.partners());
    FeedLoader loader = cluster.feedLoader();
    Map<String, Map<Integer, Long>> servedBefore = watch.servedNow(searchers);
    CpuByRole.Snapshot cpu0 = CpuByRole.take();
    long t0 = System.nanoTime();
    StageClock.Run timing = stages.start(t0);
    publishAsOneBatch(loader, snapshots, publishers);
    long inKafka = System.nanoTime();
    long deadline = t0 + s.cycleTimeout().toNanos();
    ConvergenceWatch.Outcome outcome =
        watch.await(
            changed, searchers, servedBefore, Duration.ofNanos(deadline - System.nanoTime()));
    StageClock.Stages timed = timing.stop(outcome.lastNanos());
    CpuByRole.Snapshot cpu = CpuByRole.take();
    // the deliveries of this cycle end before the next one starts, so its counters are its own
    cluster.awaitConverged(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
    WireCounters.Reading wire = WireCounters.read(registries(cluster)).minus(before);
    return new TimedCycle(
        new FreshnessResult.Cycle(
            changed.offers(),
            rawBytes,
            changed.partitions().size(),
            TimeUnit.NANOSECONDS.toMillis(inKafka - t0),
            TimeUnit.NANOSECONDS.toMillis(outcome.lastNanos() - t0),
            wire),
        timed,
        cpu.processCpuNanos() - cpu0.processCpuNanos(),
        cpu.since(cpu0),
        cpu.busiest(cpu0, BUSIEST_THREAD_GROUPS));
  }

  private static List<MeterRegistry> registries(LocalCluster cluster) {
    List<MeterRegistry> out = new ArrayList<>();
    cluster.runningIndexers().stream().map(IndexerRole::registry).forEach(out::add);
    cluster.runningSearchers().stream().map(r -> r.node().meterRegistry()).forEach(out::add);
    return out;
  }

  /**
   * A searcher's HTTP API: {@code GET /partitions/served} (polled with {@code If-None-Match}, so an
   * unchanged generation costs a 304 without a body) and {@code POST /search}.
   */
  private static final class HttpSearch implements ConvergenceWatch.Client {
    private final Map<String, String> addresses;
    private final HttpClient http =
        HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final ObjectMapper json = new ObjectMapper();
    // per searcher, the last answer of /partitions/served: its entity tag, generation and versions
    private final Map<String, Served> served = new java.util.concurrent.ConcurrentHashMap<>();

    private record Served(String tag, long generation, Map<Integer, Long> versions) {}

    HttpSearch(Map<String, String> addresses) {
      this.addresses = Map.copyOf(addresses);
    }

    @Override
    public long generation(String searcher) throws Exception {
      Served last = served.get(searcher);
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create(addresses.get(searcher) + "/partitions/served"))
              .timeout(Duration.ofSeconds(30));
      if (last != null) {
        b.header("If-None-Match", last.tag());
      }
      HttpResponse<byte[]> response = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() == 304 && last != null) {
        return last.generation();
      }
      if (response.statusCode() != 200) {
        throw new IOException(
            searcher
                + " /partitions/served answered "
                + response.statusCode()
                + ": "
                + new String(response.body(), java.nio.charset.StandardCharsets.UTF_8));
      }
      ServedVersions parsed = ServedVersions.parse(searcher, response.body());
      String tag = response.headers().firstValue("ETag").orElse("");
      served.put(searcher, new Served(tag, parsed.generation(), parsed.versions()));
      return parsed.generation();
    }

    /** The versions of the generation the last {@link #generation} call saw. */
    @Override
    public Map<Integer, Long> servedVersions(String searcher) throws Exception {
      Served last = served.get(searcher);
      if (last == null) {
        generation(searcher);
        last = served.get(searcher);
      }
      return last.versions();
    }

    @Override
    public JsonNode search(String searcher, ObjectNode body) throws Exception {
      return send(searcher, "/search", body);
    }

    private JsonNode send(String searcher, String path, ObjectNode body)
        throws IOException, InterruptedException {
      HttpRequest.Builder b =
          HttpRequest.newBuilder(URI.create(addresses.get(searcher) + path))
              .timeout(Duration.ofSeconds(30));
      if (body != null) {
        b.header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofByteArray(json.writeValueAsBytes(body)));
      }
      HttpResponse<byte[]> response = http.send(b.build(), HttpResponse.BodyHandlers.ofByteArray());
      if (response.statusCode() != 200) {
        String text = new String(response.body(), java.nio.charset.StandardCharsets.UTF_8);
        throw new IOException(
            path
                + " answered HTTP "
                + response.statusCode()
                + ": "
                + text.substring(0, Math.min(200, text.length())));
      }
      return json.readTree(response.body());
    }
  }
}
