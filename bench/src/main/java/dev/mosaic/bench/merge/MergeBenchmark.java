package dev.mosaic.bench.merge;

import com.sun.management.GarbageCollectionNotificationInfo;
import dev.mosaic.api.OfferPartitioning;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.DatabaseMerger;
import dev.mosaic.format.Document;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.MemoryUsage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import javax.management.NotificationEmitter;
import javax.management.openmbean.CompositeData;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Merging partition files ({@link DatabaseMerger}) against rebuilding the same documents with
 * {@link DatabaseBuilder}, on car offers from {@link CarOfferGenerator} (seed 1) routed to {@code
 * --partitions} partitions by {@link OfferPartitioning} like the indexer does. Both start from
 * stored bytes: the merge from the partition files, the rebuild from the partitions' serialized
 * offers (length-delimited protobuf, in memory), which it parses, maps to documents ({@link
 * CarOffers#toDocument}), adds and writes. Measures, on the calling thread, the median wall time
 * and the bytes allocated ({@code ThreadMXBean}) of each, and the largest heap in use after any GC
 * during each (a peak live-set estimate). Ends with a {@code RESULT format_merge} line.
 *
 * <p>Not thread safe; a command-line tool.
 */
@Command(
    name = "merge-bench",
    mixinStandardHelpOptions = true,
    description = "Partition merge against a rebuild from documents.")
public final class MergeBenchmark implements Callable<Integer> {
  @Option(names = "--partitions", description = "Partitions to merge (default 16).")
  int partitions = 16;

  @Option(names = "--offers", description = "Offers in all partitions (default 200000).")
  int offers = 200_000;

  @Option(names = "--warmup", description = "Warmup rounds (default 2).")
  int warmup = 2;

  @Option(names = "--iterations", description = "Measured rounds (default 3).")
  int iterations = 3;

  @Option(names = "--work", description = "Working directory (default bench/target/merge-bench).")
  Path work = Path.of("bench/target/merge-bench");

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

  /** Largest heap in use after a GC since the last reset. */
  private static final AtomicLong PEAK_AFTER_GC = new AtomicLong();

  private static final Set<String> HEAP_POOLS =
      ManagementFactory.getMemoryPoolMXBeans().stream()
          .filter(p -> p.getType() == MemoryType.HEAP)
          .map(MemoryPoolMXBean::getName)
          .collect(Collectors.toSet());

  public static void main(String[] args) {
    System.exit(new CommandLine(new MergeBenchmark()).execute(args));
  }

  /** One measured run. */
  record Sample(long nanos, long allocated, long peakLive) {}

  @Override
  public Integer call() throws Exception {
    listenToGc();
    Files.createDirectories(work);
    try (var old = Files.list(work)) {
      for (Path p : old.toList()) {
        Files.delete(p);
      }
    }
    System.out.printf("generating %d offers in %d partitions%n", offers, partitions);
    CarOfferGenerator generator = CarOfferGenerator.builder().seed(1).build();
    ByteArrayOutputStream[] serialized = new ByteArrayOutputStream[partitions];
    for (int p = 0; p < partitions; p++) {
      serialized[p] = new ByteArrayOutputStream();
    }
    for (int i = 0; i < offers; i++) {
      CarOffer car = generator.next();
      car.writeDelimitedTo(
          serialized[OfferPartitioning.partitionOf(car.getDedupKey(), partitions)]);
    }
    byte[][] source = new byte[partitions][];
    List<Path> inputs = new ArrayList<>();
    long inputBytes = 0;
    for (int p = 0; p < partitions; p++) {
      source[p] = serialized[p].toByteArray();
      serialized[p] = null;
      Path file = work.resolve(String.format("p%02d.mosaic", p));
      DatabaseBuilder b = DatabaseBuilder.create(CarsSchema.SCHEMA);
      forEachOffer(source[p], car -> b.add(CarOffers.toDocument(car)));
      b.writeTo(file);
      inputs.add(file);
      inputBytes += Files.size(file);
    }
    System.out.printf(
        "built %d partition files, %d bytes; source offers %d bytes%n",
        partitions, inputBytes, Arrays.stream(source).mapToLong(s -> s.length).sum());

    List<Sample> merges = new ArrayList<>();
    List<Sample> reblocks = new ArrayList<>();
    List<Sample> rebuilds = new ArrayList<>();
    List<Sample> builderOnly = new ArrayList<>();
    Path merged = work.resolve("merged.mosaic");
    Path reblocked = work.resolve("reblocked.mosaic");
    Path rebuilt = work.resolve("rebuilt.mosaic");
    for (int round = 0; round < warmup + iterations; round++) {
      boolean measured = round >= warmup;
      Files.deleteIfExists(merged);
      Files.deleteIfExists(reblocked);
      Files.deleteIfExists(rebuilt);
      Sample m =
          measure(() -> DatabaseMerger.builder().addAll(inputs).output(merged).build().merge());
      Sample r =
          measure(
              () ->
                  DatabaseMerger.builder()
                      .addAll(inputs)
                      .output(reblocked)
                      .copyCompressedBlocks(false)
                      .build()
                      .merge());
      Sample b = measure(() -> rebuild(source, rebuilt, null));
      long[] builderPart = new long[2];
      Files.delete(rebuilt);
      measure(() -> rebuild(source, rebuilt, builderPart));
      System.out.printf(
          "%s round %d: merge %.1f ms %.1f MB, reblock %.1f ms %.1f MB, rebuild %.1f ms %.1f MB"
              + " (builder only %.1f ms %.1f MB)%n",
          measured ? "measured" : "warmup",
          round,
          m.nanos / 1e6,
          m.allocated / 1e6,
          r.nanos / 1e6,
          r.allocated / 1e6,
          b.nanos / 1e6,
          b.allocated / 1e6,
          builderPart[0] / 1e6,
          builderPart[1] / 1e6);
      if (measured) {
        merges.add(m);
        reblocks.add(r);
        rebuilds.add(b);
        builderOnly.add(new Sample(builderPart[0], builderPart[1], 0));
      }
    }

    // peak live heap: each task once more (not timed) on another thread while this one runs a
    // full GC every few milliseconds and records the heap in use after it
    Files.deleteIfExists(merged);
    long peakMerge =
        peakLive(() -> DatabaseMerger.builder().addAll(inputs).output(merged).build().merge());
    Files.deleteIfExists(rebuilt);
    long peakRebuild = peakLive(() -> rebuild(source, rebuilt, null));

    boolean sameBytes = Arrays.equals(Files.readAllBytes(reblocked), Files.readAllBytes(rebuilt));
    int disagreements = compare(merged, rebuilt);
    Sample m = median(merges);
    Sample r = median(reblocks);
    Sample b = median(rebuilds);
    Sample bo = median(builderOnly);
    System.out.printf(
        "INFO format_merge partitions=%d documents=%d merged_bytes=%d rebuilt_bytes=%d"
            + " reblock_same_bytes_as_rebuild=%s query_disagreements=%d%n",
        partitions, offers, Files.size(merged), Files.size(rebuilt), sameBytes, disagreements);
    System.out.printf(
        "INFO format_merge reblock_ms=%.1f reblock_alloc_mb=%.1f builder_only_ms=%.1f"
            + " builder_only_alloc_mb=%.1f%n",
        r.nanos / 1e6, r.allocated / 1e6, bo.nanos / 1e6, bo.allocated / 1e6);
    System.out.printf(
        "INFO format_merge peak_live_mb merge=%.1f rebuild=%.1f"
            + " (largest heap in use after a full GC during a run, above the idle heap)%n",
        peakMerge / 1e6, peakRebuild / 1e6);
    System.out.printf(
        "INFO machine cpus=%d jdk=%s%n",
        Runtime.getRuntime().availableProcessors(), Runtime.version());
    System.out.printf(
        "RESULT format_merge merge_ms=%.1f rebuild_ms=%.1f merge_alloc_mb=%.1f"
            + " rebuild_alloc_mb=%.1f ratio_alloc=%.1f%n",
        m.nanos / 1e6,
        b.nanos / 1e6,
        m.allocated / 1e6,
        b.allocated / 1e6,
        (double) b.allocated / Math.max(1, m.allocated));
    return sameBytes && disagreements == 0 ? 0 : 1;
  }

  /** Parses, maps, adds and writes every offer; fills {@code builderPart} when given. */
  private static Object rebuild(byte[][] source, Path out, long[] builderPart) throws IOException {
    List<Document> docs = builderPart == null ? null : new ArrayList<>();
    DatabaseBuilder builder = DatabaseBuilder.create(CarsSchema.SCHEMA);
    for (byte[] s : source) {
      forEachOffer(
          s,
          car -> {
            Document d = CarOffers.toDocument(car);
            if (docs != null) {
              docs.add(d);
            } else {
              builder.add(d);
            }
          });
    }
    if (docs != null) {
      long t = System.nanoTime();
      long a = THREADS.getCurrentThreadAllocatedBytes();
      docs.forEach(builder::add);
      builder.writeTo(out);
      builderPart[0] = System.nanoTime() - t;
      builderPart[1] = THREADS.getCurrentThreadAllocatedBytes() - a;
      return null;
    }
    builder.writeTo(out);
    return null;
  }

  private interface OfferConsumer {
    void accept(CarOffer car) throws IOException;
  }

  private static void forEachOffer(byte[] serialized, OfferConsumer consumer) throws IOException {
    InputStream in = new ByteArrayInputStream(serialized);
    CarOffer car;
    while ((car = CarOffer.parseDelimitedFrom(in)) != null) {
      consumer.accept(car);
    }
  }

  private static Sample measure(Callable<?> task) throws Exception {
    System.gc();
    long idle = heapUsed();
    PEAK_AFTER_GC.set(0);
    long a = THREADS.getCurrentThreadAllocatedBytes();
    long t = System.nanoTime();
    task.call();
    long nanos = System.nanoTime() - t;
    long allocated = THREADS.getCurrentThreadAllocatedBytes() - a;
    return new Sample(nanos, allocated, Math.max(0, PEAK_AFTER_GC.get() - idle));
  }

  /** Largest heap in use after a full GC while {@code task} runs, above the idle heap. */
  private static long peakLive(Callable<?> task) throws Exception {
    System.gc();
    long idle = heapUsed();
    java.util.concurrent.CompletableFuture<Object> done =
        new java.util.concurrent.CompletableFuture<>();
    Thread worker =
        Thread.ofPlatform()
            .name("peak-live")
            .start(
                () -> {
                  try {
                    done.complete(task.call());
                  } catch (Throwable t) {
                    done.completeExceptionally(t);
                  }
                });
    long peak = 0;
    while (!done.isDone()) {
      long t = System.nanoTime();
      System.gc();
      peak = Math.max(peak, heapUsed());
      // let the task run at least nine times as long as the collections take, or until it ends
      try {
        done.get(Math.max(10, (System.nanoTime() - t) * 9 / 1_000_000), TimeUnit.MILLISECONDS);
      } catch (java.util.concurrent.TimeoutException stillRunning) {
        // sample again
      } catch (java.util.concurrent.ExecutionException failed) {
        break; // rethrown by done.get() below
      }
    }
    worker.join();
    done.get();
    return Math.max(0, peak - idle);
  }

  private static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static void listenToGc() {
    for (var gc : ManagementFactory.getGarbageCollectorMXBeans()) {
      ((NotificationEmitter) gc)
          .addNotificationListener(
              (notification, handback) -> {
                if (!notification
                    .getType()
                    .equals(GarbageCollectionNotificationInfo.GARBAGE_COLLECTION_NOTIFICATION)) {
                  return;
                }
                var info =
                    GarbageCollectionNotificationInfo.from(
                        (CompositeData) notification.getUserData());
                long used = 0;
                for (Map.Entry<String, MemoryUsage> e :
                    info.getGcInfo().getMemoryUsageAfterGc().entrySet()) {
                  if (HEAP_POOLS.contains(e.getKey())) {
                    used += e.getValue().getUsed();
                  }
                }
                PEAK_AFTER_GC.accumulateAndGet(used, Math::max);
              },
              null,
              null);
    }
  }

  private static Sample median(List<Sample> samples) {
    long[] nanos = samples.stream().mapToLong(Sample::nanos).sorted().toArray();
    long[] alloc = samples.stream().mapToLong(Sample::allocated).sorted().toArray();
    long[] peak = samples.stream().mapToLong(Sample::peakLive).sorted().toArray();
    int mid = samples.size() / 2;
    return new Sample(nanos[mid], alloc[mid], peak[mid]);
  }

  /** Counts queries on which the merged file and the rebuild disagree. */
  private static int compare(Path merged, Path rebuilt) throws IOException {
    int disagreements = 0;
    try (Database a = Database.open(merged, true);
        Database b = Database.open(rebuilt, true)) {
      List<Query> queries =
          List.of(
              Query.where(Condition.all()).orderBy(Order.desc(CarsSchema.PRICE)).limit(50),
              Query.where(Condition.eq(CarsSchema.MARK, "BMW")),
              Query.where(Condition.eq(CarsSchema.REGION, "moscow"))
                  .orderBy(Order.asc(CarsSchema.PRICE))
                  .skip(10)
                  .limit(20));
      for (Query q : queries) {
        List<Integer> x = new ArrayList<>();
        List<Integer> y = new ArrayList<>();
        a.execute(q, (doc, db) -> x.add(doc));
        b.execute(q, (doc, db) -> y.add(doc));
        if (a.count(q) != b.count(q) || !x.equals(y)) {
          disagreements++;
        }
      }
      for (int d = 0; d < a.documentCount(); d += 97) {
        if (!Arrays.equals(a.payloadBytes(d), b.payloadBytes(d))) {
          disagreements++;
        }
      }
    }
    return disagreements;
  }
}
