package dev.mosaic.bench.load;

import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.searcher.Generation;
import dev.mosaic.searcher.Generations;
import dev.mosaic.searcher.PartitionStore;
import dev.mosaic.searcher.StoredFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Measures the reopen path of the searcher's generations in-process over a real store of many
 * partitions (the cars store of {@link SearcherLoad}): swaps that replace {@code batch} partitions
 * at once, with query threads running, for several arena group sizes. Reports per configuration the
 * reopen time, the arena close (unmap) time and closes per swap, and the p99 of the queries running
 * meanwhile:
 *
 * <pre>
 * RESULT searcher_reopen group=G batch=B swaps=N reopen_ms_mean=.. reopen_ms_p99=.. unmap_us_mean=.. closes_per_swap=.. query_p99_ms=..
 * </pre>
 */
@Command(name = "reopen-bench", mixinStandardHelpOptions = true)
public final class ReopenBench implements Callable<Integer> {
  @Option(names = "--store", required = true, description = "A store to copy (left untouched).")
  Path source;

  @Option(names = "--work", required = true, description = "Scratch directory (replaced).")
  Path work;

  @Option(names = "--groups", split = ",", defaultValue = "1,16")
  int[] groups;

  @Option(names = "--batches", split = ",", defaultValue = "1,16")
  int[] batches;

  @Option(names = "--swaps", defaultValue = "150")
  int swaps;

  @Option(names = "--query-threads", defaultValue = "2")
  int queryThreads;

  /** Entry point. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new ReopenBench()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    for (int group : groups) {
      for (int batch : batches) {
        run(group, batch);
      }
    }
    return 0;
  }

  private void run(int group, int batch) throws Exception {
    Path root = work.resolve("store");
    copy(source, root);
    try (PartitionStore store = PartitionStore.builder(root).verifyOnStart(false).build()) {
      store.start();
      int schemaVersion = store.schemaVersions().getLast();
      Map<Integer, byte[]> contents = new HashMap<>();
      Map<Integer, Long> versions = new HashMap<>();
      for (var e : store.servingFiles(schemaVersion).entrySet()) {
        StoredFile f = e.getValue();
        contents.put(e.getKey(), Files.readAllBytes(f.path()));
        versions.put(e.getKey(), f.id().version());
      }
      Integer[] partitions = contents.keySet().toArray(new Integer[0]);
      try (Generations gens =
          Generations.builder(store)
              .schemaVersion(schemaVersion)
              .scanInterval(Duration.ZERO)
              .arenaGroupSize(group)
              .build()) {
        gens.start();
        AtomicBoolean stop = new AtomicBoolean();
        long[][] latencies = new long[queryThreads][];
        int[] counts = new int[queryThreads];
        Thread[] threads = new Thread[queryThreads];
        Query q = Query.all().orderBy(Order.desc("published")).limit(10);
        for (int t = 0; t < queryThreads; t++) {
          int me = t;
          latencies[t] = new long[1 << 16];
          threads[t] =
              Thread.ofPlatform()
                  .start(
                      () -> {
                        while (!stop.get()) {
                          long t0 = System.nanoTime();
                          try (Generation g = gens.acquire()) {
                            g.database().execute(q, (d, db) -> true);
                          }
                          if (counts[me] == latencies[me].length) {
                            latencies[me] = Arrays.copyOf(latencies[me], counts[me] * 2);
                          }
                          latencies[me][counts[me]++] = System.nanoTime() - t0;
                        }
                      });
        }
        SplittableRandom random = new SplittableRandom(group * 31L + batch);
        long reopens0 = gens.reopenCount();
        long unmaps0 = gens.unmapCount();
        Duration unmapTime0 = gens.unmapTime();
        long[] reopenNanos = new long[swaps];
        for (int s = 0; s < swaps; s++) {
          for (int i = 0; i < batch; i++) {
            int p = partitions[random.nextInt(partitions.length)];
            long v = versions.merge(p, 1L, Long::sum);
            byte[] bytes = contents.get(p);
            try (ReceivingStore.StagedFile staged =
                store.stage(new PartitionFileId(schemaVersion, p, v), bytes.length)) {
              Files.write(staged.path(), bytes);
              staged.publish();
            }
          }
          long t0 = System.nanoTime();
          gens.reopen().get(60, TimeUnit.SECONDS);
          reopenNanos[s] = System.nanoTime() - t0;
        }
        stop.set(true);
        for (Thread t : threads) {
          t.join();
        }
        long closes = gens.unmapCount() - unmaps0;
        double unmapMicros =
            closes == 0 ? 0 : gens.unmapTime().minus(unmapTime0).toNanos() / 1e3 / closes;
        int n = Arrays.stream(counts).sum();
        long[] q99 = new long[n];
        int k = 0;
        for (int t = 0; t < queryThreads; t++) {
          System.arraycopy(latencies[t], 0, q99, k, counts[t]);
          k += counts[t];
        }
        Arrays.sort(q99);
        Arrays.sort(reopenNanos);
        System.out.printf(
            Locale.ROOT,
            "RESULT searcher_reopen group=%d batch=%d swaps=%d reopens=%d reopen_ms_mean=%.2f"
                + " reopen_ms_p99=%.2f unmap_us_mean=%.1f closes_per_swap=%.2f query_p99_ms=%.2f"
                + " mapped_partitions=%d%n",
            group,
            batch,
            swaps,
            gens.reopenCount() - reopens0,
            Arrays.stream(reopenNanos).average().orElse(0) / 1e6,
            reopenNanos[(int) Math.ceil(0.99 * swaps) - 1] / 1e6,
            unmapMicros,
            closes / (double) swaps,
            n == 0 ? Double.NaN : q99[Math.max(0, (int) Math.ceil(0.99 * n) - 1)] / 1e6,
            gens.mappedPartitions());
      }
    }
  }

  private static void copy(Path from, Path to) throws IOException {
    if (Files.exists(to)) {
      try (Stream<Path> s = Files.walk(to)) {
        for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
    try (Stream<Path> s = Files.walk(from)) {
      for (Path p : s.toList()) {
        Path target = to.resolve(from.relativize(p).toString());
        if (Files.isDirectory(p)) {
          Files.createDirectories(target);
        } else if (PartitionLayout.parseVersion(p.getFileName().toString()).isPresent()) {
          Files.copy(p, target);
        }
      }
    }
  }
}
