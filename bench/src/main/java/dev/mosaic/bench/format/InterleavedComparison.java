package dev.mosaic.bench.format;

import java.util.Arrays;

/**
 * A load-robust cross-check of a JMH comparison, for shared machines: runs two operations in the
 * same JVM in alternating short rounds (A, B, A, B...) after warming both, and reports the median
 * rate of each and the median of the per-round ratios. Background load that drifts over seconds
 * hits both sides alike, which two JMH runs minutes apart cannot promise.
 */
final class InterleavedComparison {
  /** One operation; its result is folded into a sink so the JIT cannot drop it. */
  @FunctionalInterface
  interface Operation {
    long run() throws Exception;
  }

  /** Median operations per second of each side and median per-round ratio a/b. */
  record Outcome(double aOpsPerSecond, double bOpsPerSecond, double medianRatio, long sink) {}

  private InterleavedComparison() {}

  static Outcome run(
      Operation a, Operation b, double warmupSeconds, int rounds, double roundSeconds)
      throws Exception {
    long sink = 0;
    sink += rate(a, warmupSeconds)[1];
    sink += rate(b, warmupSeconds)[1];
    double[] ra = new double[rounds];
    double[] rb = new double[rounds];
    double[] ratio = new double[rounds];
    for (int r = 0; r < rounds; r++) {
      long[] x = rate(a, roundSeconds);
      long[] y = rate(b, roundSeconds);
      ra[r] = x[0] / roundSeconds;
      rb[r] = y[0] / roundSeconds;
      ratio[r] = ra[r] / rb[r];
      sink += x[1] + y[1];
    }
    return new Outcome(median(ra), median(rb), median(ratio), sink);
  }

  /** Runs {@code op} for about {@code seconds}: {operations, sink}. */
  private static long[] rate(Operation op, double seconds) throws Exception {
    long end = System.nanoTime() + (long) (seconds * 1e9);
    long ops = 0;
    long sink = 0;
    long start = System.nanoTime();
    do {
      for (int i = 0; i < 16; i++) {
        sink += op.run();
      }
      ops += 16;
    } while (System.nanoTime() < end);
    double elapsed = (System.nanoTime() - start) / 1e9;
    return new long[] {(long) (ops * seconds / elapsed), sink};
  }

  private static double median(double[] values) {
    double[] sorted = values.clone();
    Arrays.sort(sorted);
    return sorted[sorted.length / 2];
  }
}
