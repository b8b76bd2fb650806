package dev.mosaic.bench.format;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Benchmark 3, single-shot measurements of the cars data set: build throughput, bytes on disk
 * against raw payload bytes, heap retained per open partition and the time to open all partitions.
 */
final class FormatFootprint {
  /** The figures. */
  record Figures(
      long documents,
      double docsPerSecond,
      long fileBytes,
      long payloadBytes,
      long heapBytesPerPartition,
      double openMillis,
      boolean sameBytesAsCached) {
    double bytesPerRawPayload() {
      return (double) fileBytes / payloadBytes;
    }
  }

  private static final int OPEN_WARMUP_ROUNDS = 3;

  private FormatFootprint() {}

  static Figures measure(int openRounds) throws IOException {
    Path offers = CarsData.offersDirectory();
    Path cached = CarsData.oursDirectory();

    // Build: a fresh build of every partition; only builder work is timed.
    Path scratch = CarsData.carsRoot().resolve("scratch-build");
    BenchDataRoot.deleteRecursively(scratch);
    Files.createDirectories(scratch);
    CarsData.BuildStats build = CarsData.buildOurs(offers, scratch, CarsData.PARTITIONS);
    boolean same = true;
    for (int p = 0; p < CarsData.PARTITIONS && same; p++) {
      same =
          Files.mismatch(CarsData.partitionFile(scratch, p), CarsData.partitionFile(cached, p))
              == -1;
    }
    BenchDataRoot.deleteRecursively(scratch);

    // Open time: open every partition and make the composite. Warm-up rounds (page cache, JIT)
    // are not counted; the figure is the median of the measured rounds.
    double[] millis = new double[openRounds];
    for (int r = -OPEN_WARMUP_ROUNDS; r < openRounds; r++) {
      long start = System.nanoTime();
      List<Database> partitions = CarsData.openPartitions(cached);
      CompositeDatabase composite = CarsData.composite(partitions);
      long elapsed = System.nanoTime() - start;
      if (r >= 0) {
        millis[r] = elapsed / 1e6;
      }
      Reference.reachabilityFence(composite);
      partitions.forEach(Database::close);
    }
    Arrays.sort(millis);

    // Heap retained per open partition, composite included.
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    long before = settledHeap(memory);
    List<Database> partitions = CarsData.openPartitions(cached);
    CompositeDatabase composite = CarsData.composite(partitions);
    long after = settledHeap(memory);
    Reference.reachabilityFence(composite);
    Reference.reachabilityFence(partitions);
    partitions.forEach(Database::close);

    return new Figures(
        build.documents(),
        build.documents() / (build.buildNanos() / 1e9),
        build.fileBytes(),
        build.payloadBytes(),
        (after - before) / CarsData.PARTITIONS,
        millis[openRounds / 2],
        same);
  }

  /** Used heap after full collections, once two in a row agree within 64 KiB. */
  private static long settledHeap(MemoryMXBean memory) {
    long previous = Long.MAX_VALUE;
    for (int i = 0; i < 10; i++) {
      System.gc();
      long used = memory.getHeapMemoryUsage().getUsed();
      if (Math.abs(used - previous) < 65_536) {
        return used;
      }
      previous = used;
    }
    return previous;
  }
}
