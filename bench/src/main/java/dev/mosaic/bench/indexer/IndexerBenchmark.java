package dev.mosaic.bench.indexer;

import com.sun.management.OperatingSystemMXBean;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.schema.BuiltInSchemas;
import dev.mosaic.api.schema.PayloadCheck;
import dev.mosaic.bench.progress.Progress;
import dev.mosaic.embedded.EmbeddedKafka;
import dev.mosaic.indexer.FeedBatch;
import dev.mosaic.indexer.FeedLoader;
import dev.mosaic.indexer.IndexerNode;
import dev.mosaic.indexer.OfferKeys;
import dev.mosaic.indexer.OfferTopics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The indexer load tool: a real KRaft broker in this JVM, a {@link FeedLoader} and one indexer node
 * ({@link NodeUnderTest}), on the cars generator's offers. Measures
 *
 * <ol>
 *   <li>build rates on one core ({@link BuildThroughput}): a full build of every partition, and a
 *       merge of every partition's previous file with the cycle's changes;
 *   <li>state heap per offer: the heap retained by the node once it has restored every offer (GC'd
 *       heap after minus before, so consumer buffers count against it), against the mean serialized
 *       offer size;
 *   <li>feed cycles ({@code --warmup-cycles} 2, then {@code --cycles} 3 measured, each changing 1%
 *       of the offers again; the figures are the measured cycles' medians): the changed partners'
 *       serialized snapshots arrive at the loader; the diff is the time until the loader has
 *       published (Kafka acknowledged) the last upsert or tombstone, snapshot to files the time
 *       until the last changed partition's file is written (the snapshots are one batch: the node
 *       rebuilds once the batch's end markers arrive; debounce 1 s as the fallback, all cores);
 *       rebuilds per changed partition count the node's files for those partitions.
 * </ol>
 *
 * Ends with {@code RESULT indexer docs_per_s=<> merge_docs_per_s=<> state_bytes_per_offer=<>
 * raw_bytes_per_offer=<> diff_ms=<> snapshot_to_files_ms=<> rebuilds_per_changed_partition=<>};
 * exits with status 1 when not every changed partition was rebuilt.
 */
@Command(name = "indexer-benchmark", mixinStandardHelpOptions = true)
public final class IndexerBenchmark implements java.util.concurrent.Callable<Integer> {
  @Option(names = "--offers", description = "offers in the feed (default ${DEFAULT-VALUE})")
  int offers = 500_000;

  @Option(names = "--partitions", description = "index partitions P (default ${DEFAULT-VALUE})")
  int partitions = 1024;

  @Option(
      names = "--kafka-partitions",
      description = "partitions of the offers topic (default ${DEFAULT-VALUE})")
  int kafkaPartitions = 32;

  @Option(names = "--changed", description = "share of offers changed (default ${DEFAULT-VALUE})")
  double changed = 0.01;

  @Option(names = "--debounce-ms", description = "rebuild debounce (default ${DEFAULT-VALUE})")
  long debounceMillis = 1000;

  @Option(
      names = "--publish-threads",
      description = "partners published in parallel (default ${DEFAULT-VALUE})")
  int publishThreads = FeedLoader.DEFAULT_PUBLISH_THREADS;

  @Option(
      names = "--rebuild-threads",
      description = "the node's rebuild threads (default ${DEFAULT-VALUE}, the node's default)")
  int rebuildThreads = IndexerNode.DEFAULT_REBUILD_THREADS;

  @Option(names = "--work", description = "work directory (default ${DEFAULT-VALUE})")
  Path work = Path.of("bench/target/indexer-bench");

  @Option(
      names = "--rate-partitions",
      description =
          "partitions the one-core build rates are measured on, the first ones (default: all)")
  int ratePartitions = Integer.MAX_VALUE;

  @Option(
      names = "--warmup-cycles",
      description =
          "feed cycles run before the measured ones; the first runs just after start-up, on code"
              + " the JIT has not yet compiled for it, and the JIT keeps compiling through the"
              + " next few (default ${DEFAULT-VALUE})")
  int warmupCycles = 6;

  @Option(
      names = "--cycles",
      description =
          "measured feed cycles; diff and snapshot to files are their medians (default"
              + " ${DEFAULT-VALUE})")
  int cycles = 5;

  @Option(names = "--seed", description = "generator seed (default ${DEFAULT-VALUE})")
  long seed = 1;

  @Option(
      names = "--rates-only",
      description =
          "measure the one-core build and merge rates only, without Kafka, the loader or the node"
              + " (no RESULT line; for profiling the rates)")
  boolean ratesOnly;

  public static void main(String[] args) {
    System.exit(new CommandLine(new IndexerBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    deleteRecursively(work);
    Files.createDirectories(work);
    int cores = Runtime.getRuntime().availableProcessors();
    log("generating %,d car offers (seed %d)", offers, seed);
    CarOfferGenerator generator = CarOfferGenerator.builder().seed(seed).build();
    List<CarOffer> cars = new ArrayList<>(offers);
    Progress progress = Progress.start("indexer-bench offers", offers, "offers");
    for (int i = 0; i < offers; i++) {
      cars.add(generator.next());
      progress.advance();
    }
    progress.done();
    List<CarOffer> next = generator.mutate(cars, changed, 0, 0);
    Cycle cycle = Cycle.of(cars, next, partitions);
    log(
        "%,d offers changed (%,d partners, %,d partitions)",
        cycle.changedOffers(), cycle.changedPartners().size(), cycle.changedPartitions().size());

    // 1. Build rates on one core: full build, and merge of the previous file with the changes.
    BuildThroughput.Rates rates =
        new BuildThroughput(CarsSchema.SCHEMA, work.resolve("throughput"), IndexerBenchmark::log)
            .measure(
                cycle.byPartition(cars, next, partitions, Math.min(partitions, ratePartitions)));
    deleteRecursively(work.resolve("throughput"));
    if (ratesOnly) {
      log(
          "rates: full build %,.0f docs/s, merge %,.0f carried-over docs/s",
          rates.fullDocsPerSecond(), rates.mergeCarriedPerSecond());
      return 0;
    }

    try (EmbeddedKafka kafka =
        EmbeddedKafka.builder()
            .logDir(work.resolve("kafka"))
            .brokerProperty("message.max.bytes", Integer.toString(16 << 20))
            .build()
            .start()) {
      try (var admin = kafka.admin()) {
        OfferTopics.create(
            admin, OfferTopics.OFFERS, kafkaPartitions, OfferTopics.DEAD_LETTERS, (short) 1);
      }
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (FeedLoader loader =
          FeedLoader.builder()
              .bootstrapServers(kafka.bootstrapServers())
              .partitions(partitions)
              .schema(CarsSchema.SCHEMA)
              .payloadCheck(PayloadCheck.against(BuiltInSchemas.cars()))
              .stateDir(work.resolve("loader"))
              .meterRegistry(registry)
              .build()
              .start()) {
        long t = System.nanoTime();
        publishAll(loader, serialized(CarOffers.snapshotsByPartner(cars, 1, now())));
        log("loader: first snapshots (%,d offers) published in %,d ms", offers, ms(t));
        long rawBytes = 0;
        for (CarOffer c : cars) {
          rawBytes += CarOffers.toOffer(c, now()).getSerializedSize();
        }
        double rawPerOffer = (double) rawBytes / offers;

        // 2. State heap per offer: heap before the node vs after it restored everything.
        long heapBefore = usedHeapAfterGc();
        long started = System.nanoTime();
        try (NodeUnderTest node =
            new NodeUnderTest(
                kafka.bootstrapServers(),
                partitions,
                CarsSchema.SCHEMA,
                work.resolve("files"),
                debounceMillis,
                rebuildThreads,
                registry)) {
          node.awaitQuiet(Duration.ofMinutes(30));
          log(
              "node: restored %,d offers and built %,d partition files in %,d ms",
              node.offerCount(), node.files(), ms(started));
          long heapAfter = usedHeapAfterGc();
          double statePerOffer = (double) (heapAfter - heapBefore) / node.offerCount();
          log(
              "state: %.0f heap bytes per offer measured (GC'd heap delta), %.0f by the node's"
                  + " accounting, %.0f raw bytes per offer",
              statePerOffer,
              (double) node.stateBytes() / node.offerCount(),
              (double) node.rawOfferBytes() / node.offerCount());

          // 3. The cycles: the changed partners' snapshots arrive as bytes.
          List<CycleFigures> measuredCycles = new ArrayList<>();
          List<CarOffer> current = cars;
          List<CarOffer> following = next;
          Cycle thisCycle = cycle;
          boolean allRebuilt = true;
          for (int c = 1; c <= warmupCycles + cycles; c++) {
            if (c > 1) {
              following = generator.mutate(current, changed, 0, 0);
              thisCycle = Cycle.of(current, following, partitions);
            }
            boolean warmup = c <= warmupCycles;
            CycleFigures figures = runCycle(loader, node, thisCycle, following, c + 1, c, warmup);
            allRebuilt &= figures.rebuilt() == thisCycle.changedPartitions().size();
            if (!warmup) {
              measuredCycles.add(figures);
            }
            current = following;
          }
          long diffMs = median(measuredCycles.stream().mapToLong(CycleFigures::diffMs).toArray());
          long snapshotToFilesMs =
              median(measuredCycles.stream().mapToLong(CycleFigures::snapshotToFilesMs).toArray());
          double rebuildsPerChanged =
              measuredCycles.stream().mapToDouble(CycleFigures::rebuildsPerChanged).max().orElse(0);
          log(
              "cycles: %d warm-up, %d measured; medians of the measured: diff %,d ms, snapshot to"
                  + " files %,d ms; most rebuilds per changed partition %.2f",
              warmupCycles, cycles, diffMs, snapshotToFilesMs, rebuildsPerChanged);
          System.out.printf(
              "RESULT indexer docs_per_s=%.0f merge_docs_per_s=%.0f state_bytes_per_offer=%.0f"
                  + " raw_bytes_per_offer=%.0f diff_ms=%d snapshot_to_files_ms=%d"
                  + " rebuilds_per_changed_partition=%.2f%n",
              rates.fullDocsPerSecond(),
              rates.mergeCarriedPerSecond(),
              statePerOffer,
              rawPerOffer,
              diffMs,
              snapshotToFilesMs,
              rebuildsPerChanged);
          log("machine: %d cores, %s", cores, System.getProperty("java.vm.version"));
          if (!allRebuilt) {
            System.err.println("FAILED: a cycle did not rebuild every changed partition (above)");
            return 1;
          }
        }
      }
    }
    return 0;
  }

  /** One cycle's figures. */
  private record CycleFigures(
      long diffMs, long snapshotToFilesMs, long rebuilt, double rebuildsPerChanged) {}

  /**
   * One feed cycle: the changed partners' snapshots (numbered {@code snapshotId}) arrive at the
   * loader as one batch; measures the diff, the time to the last changed partition's file and the
   * rebuilds per changed partition, and logs them.
   */
  private CycleFigures runCycle(
      FeedLoader loader,
      NodeUnderTest node,
      Cycle cycle,
      List<CarOffer> next,
      long snapshotId,
      int number,
      boolean warmup)
      throws Exception {
    String name = "cycle " + number + (warmup ? " (warm-up)" : "");
    List<byte[]> arriving =
        serialized(
            CarOffers.snapshotsByPartner(next, snapshotId, now()).stream()
                .filter(s -> cycle.changedPartners().contains(s.getPartnerId()))
                .toList());
    long filesBefore = node.files();
    node.mark();
    // The generator's garbage (every partner's snapshot built and serialized just now, a few
    // hundred MB) is collected before the clock starts: otherwise the collector works through it
    // during the cycle, and the cycle pays for the bench's allocations as well as its own.
    System.gc();
    var os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    long cpu0 = os.getProcessCpuTime();
    long gc0 = gcMillis();
    long t0 = System.nanoTime();
    Published published = publishAll(loader, arriving);
    long allReturnedMs = ms(t0);
    long diffMs = Math.max(0, (published.lastAcknowledgedNanos() - t0) / 1_000_000);
    node.awaitQuiet(Duration.ofMinutes(10));
    long cpuMs = (os.getProcessCpuTime() - cpu0) / 1_000_000;
    long gcMs = gcMillis() - gc0;
    long rebuilt = 0;
    long rebuildsOfChanged = 0;
    long last = t0;
    long first = Long.MAX_VALUE;
    for (int p : cycle.changedPartitions()) {
      AtomicInteger n = node.rebuildsSinceMark().get(p);
      if (n != null) {
        rebuilt++;
        rebuildsOfChanged += n.get();
        last = Math.max(last, node.lastFileNanos(p));
        first = Math.min(first, node.lastFileNanos(p));
      }
    }
    long rebuildsOfOthers =
        node.rebuildsSinceMark().entrySet().stream()
            .filter(e -> !cycle.changedPartitions().contains(e.getKey()))
            .mapToLong(e -> e.getValue().get())
            .sum();
    long snapshotToFilesMs = (last - t0) / 1_000_000;
    double rebuildsPerChanged =
        cycle.changedPartitions().isEmpty()
            ? 0
            : (double) rebuildsOfChanged / cycle.changedPartitions().size();
    log(
        "%s: %,d offers changed (%,d partners, %,d partitions)",
        name,
        cycle.changedOffers(),
        cycle.changedPartners().size(),
        cycle.changedPartitions().size());
    log(
        "%s diff: %,d snapshots (%,d bytes) in, %,d upserts and %,d tombstones acknowledged %,d ms"
            + " after they arrived, every state file written after %,d ms (%d threads; summed over"
            + " partners: diff and sends %,d ms, waiting for acks %,d ms, state files %,d ms)",
        name,
        arriving.size(),
        arriving.stream().mapToLong(b -> b.length).sum(),
        published.upserts(),
        published.deletes(),
        diffMs,
        allReturnedMs,
        publishThreads,
        published.diffMillis(),
        published.ackWaitMillis(),
        published.stateMillis());
    log(
        "%s snapshot to files: %,d of %,d changed partitions rebuilt (%,d files, %,d of other"
            + " partitions); last file %,d ms after the snapshots arrived (first file %,d ms after:"
            + " the diff and the batch's end markers come before it, the rebuilds of the cycle's"
            + " partitions after it; debounce %,d ms, the fallback); process CPU in the cycle"
            + " (broker, loader and node) %,d ms, of which garbage collection %,d ms",
        name,
        rebuilt,
        cycle.changedPartitions().size(),
        node.files() - filesBefore,
        rebuildsOfOthers,
        snapshotToFilesMs,
        first == Long.MAX_VALUE ? 0 : (first - t0) / 1_000_000,
        debounceMillis,
        cpuMs,
        gcMs);
    if (rebuilt < cycle.changedPartitions().size()) {
      System.err.printf(
          "FAILED: %s rebuilt only %d of %d changed partitions%n",
          name, rebuilt, cycle.changedPartitions().size());
    }
    return new CycleFigures(diffMs, snapshotToFilesMs, rebuilt, rebuildsPerChanged);
  }

  private static long median(long[] values) {
    Arrays.sort(values);
    return values[values.length / 2];
  }

  /**
   * Writes the partitions whose build rates {@link #call()} measures with the default options (500k
   * offers, seed 1, 1024 partitions, 1% changed) to {@code file} for {@link MergeCpuRate}.
   */
  static void writeRatePartitions(Path file) throws IOException {
    IndexerBenchmark b = new IndexerBenchmark();
    CarOfferGenerator generator = CarOfferGenerator.builder().seed(b.seed).build();
    List<CarOffer> cars = new ArrayList<>(b.offers);
    for (int i = 0; i < b.offers; i++) {
      cars.add(generator.next());
    }
    List<CarOffer> next = generator.mutate(cars, b.changed, 0, 0);
    MergeCpuRate.write(
        file,
        Cycle.of(cars, next, b.partitions).byPartition(cars, next, b.partitions, b.partitions));
  }

  /** What a cycle changes: offers, their partners and partitions (old and new). */
  private record Cycle(
      int changedOffers, Set<String> changedPartners, Set<Integer> changedPartitions) {
    static Cycle of(List<CarOffer> cars, List<CarOffer> next, int partitions) {
      Set<String> partners = new HashSet<>();
      Set<Integer> touched = new HashSet<>();
      int n = 0;
      for (int i = 0; i < next.size(); i++) {
        if (!next.get(i).equals(cars.get(i))) {
          n++;
          partners.add(next.get(i).getPartnerId());
          touched.add(OfferKeys.indexPartition(next.get(i).getDedupKey(), partitions));
          touched.add(OfferKeys.indexPartition(cars.get(i).getDedupKey(), partitions));
        }
      }
      return new Cycle(n, partners, touched);
    }

    /**
     * For the first {@code measured} partitions: the serialized offers now, and the changed ones
     * replacing some of them.
     */
    List<BuildThroughput.PartitionOffers> byPartition(
        List<CarOffer> cars, List<CarOffer> next, int partitions, int measured) {
      List<List<byte[]>> offers = new ArrayList<>();
      List<List<byte[]>> changed = new ArrayList<>();
      List<List<Boolean>> replaced = new ArrayList<>();
      for (int p = 0; p < measured; p++) {
        offers.add(new ArrayList<>());
        changed.add(new ArrayList<>());
        replaced.add(new ArrayList<>());
      }
      long now = now();
      for (int i = 0; i < cars.size(); i++) {
        int p = OfferKeys.indexPartition(cars.get(i).getDedupKey(), partitions);
        boolean differs = !next.get(i).equals(cars.get(i));
        if (p < measured) {
          offers.get(p).add(CarOffers.toOffer(cars.get(i), now).toByteArray());
          replaced.get(p).add(differs);
        }
        int q = OfferKeys.indexPartition(next.get(i).getDedupKey(), partitions);
        if (differs && q < measured) {
          changed.get(q).add(CarOffers.toOffer(next.get(i), now).toByteArray());
        }
      }
      List<BuildThroughput.PartitionOffers> result = new ArrayList<>(measured);
      for (int p = 0; p < measured; p++) {
        boolean[] r = new boolean[replaced.get(p).size()];
        for (int i = 0; i < r.length; i++) {
          r[i] = replaced.get(p).get(i);
        }
        result.add(new BuildThroughput.PartitionOffers(offers.get(p), changed.get(p), r));
      }
      return result;
    }
  }

  /**
   * What publishing a set of snapshots took.
   *
   * @param lastAcknowledgedNanos when Kafka acknowledged the last change ({@link System#nanoTime})
   * @param diffMillis summed over partners: diff and sends
   * @param ackWaitMillis summed over partners: waiting for the acknowledgements
   * @param stateMillis summed over partners: writing the state files
   */
  private record Published(
      long upserts,
      long deletes,
      long lastAcknowledgedNanos,
      long diffMillis,
      long ackWaitMillis,
      long stateMillis) {}

  private record Timed(long startNanos, FeedLoader.PublishResult result) {}

  /**
   * Publishes partners' serialized snapshots in parallel as one batch (one loader, several partners
   * at once), then ends the batch: the node rebuilds the batch's partitions once its end markers
   * arrive.
   */
  private Published publishAll(FeedLoader loader, List<byte[]> snapshots) throws Exception {
    FeedBatch batch = loader.batch();
    try (ExecutorService pool = Executors.newFixedThreadPool(publishThreads)) {
      List<Future<Timed>> results = new ArrayList<>();
      for (byte[] s : snapshots) {
        results.add(
            pool.submit(
                () -> {
                  long start = System.nanoTime();
                  return new Timed(start, batch.publish(s));
                }));
      }
      for (Future<Timed> f : results) {
        f.get();
      }
      batch.end();
      long upserts = 0;
      long deletes = 0;
      long last = 0;
      long diff = 0;
      long ack = 0;
      long state = 0;
      for (Future<Timed> f : results) {
        FeedLoader.PublishResult r = f.get().result();
        upserts += r.upserts();
        deletes += r.deletes();
        last = Math.max(last, f.get().startNanos() + r.acknowledgedMillis() * 1_000_000);
        diff += r.diffMillis();
        ack += r.acknowledgedMillis() - r.diffMillis();
        state += r.tookMillis() - r.acknowledgedMillis();
      }
      return new Published(upserts, deletes, last, diff, ack, state);
    }
  }

  private static List<byte[]> serialized(List<FeedSnapshot> snapshots) {
    return snapshots.stream().map(FeedSnapshot::toByteArray).toList();
  }

  private static long now() {
    return System.currentTimeMillis();
  }

  /** Milliseconds the collectors spent so far (pauses and concurrent cycles, as the JVM counts). */
  private static long gcMillis() {
    return ManagementFactory.getGarbageCollectorMXBeans().stream()
        .mapToLong(GarbageCollectorMXBean::getCollectionTime)
        .filter(t -> t > 0)
        .sum();
  }

  private static long usedHeapAfterGc() throws InterruptedException {
    var memory = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(200);
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  private static long ms(long sinceNanos) {
    return (System.nanoTime() - sinceNanos) / 1_000_000;
  }

  private static void log(String format, Object... args) {
    log(String.format(format, args));
  }

  private static void log(String line) {
    System.out.println("[indexer-bench] " + line);
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
