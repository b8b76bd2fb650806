package dev.mosaic.deploy;

import java.util.Arrays;

/**
 * The last {@code capacity} latency samples in milliseconds, with percentiles over them.
 *
 * <p>Thread safety: safe for concurrent use (synchronized).
 */
public final class LatencyWindow {
  private final long[] samples;
  private long count;

  /** A window over the last {@code capacity} samples. */
  public LatencyWindow(int capacity) {
    if (capacity < 1) {
      throw new IllegalArgumentException("capacity must be >= 1, got " + capacity);
    }
    this.samples = new long[capacity];
  }

  /** Adds a sample. */
  public synchronized void add(long millis) {
    samples[(int) (count++ % samples.length)] = millis;
  }

  /** Samples added since creation (not only those in the window). */
  public synchronized long count() {
    return count;
  }

  /**
   * The nearest-rank percentile of the samples in the window, or -1 when there are none.
   *
   * @param percentile in (0, 100]
   */
  public synchronized long percentile(double percentile) {
    int n = (int) Math.min(count, samples.length);
    if (n == 0) {
      return -1;
    }
    long[] sorted = Arrays.copyOf(samples, n);
    Arrays.sort(sorted);
    int rank = (int) Math.ceil(percentile / 100.0 * n);
    return sorted[Math.clamp(rank - 1, 0, n - 1)];
  }
}
