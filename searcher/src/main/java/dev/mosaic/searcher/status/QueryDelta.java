package dev.mosaic.searcher.status;

import java.util.Arrays;

/**
 * Turns cumulative query counters (count, not-ok count, histogram buckets, as a timer keeps them)
 * into the figures of one interval: rate and latency percentiles of the queries answered since the
 * previous call.
 *
 * <p>Thread safety: not thread safe; one sampling thread calls it.
 */
public final class QueryDelta {
  private long lastCount = -1;
  private long lastNotOk;
  private double[] lastBuckets = new double[0];

  /** The figures of one interval. Percentiles are {@code NaN} when no query was answered. */
  public record Interval(double perSecond, double notOkPerSecond, double p50Ms, double p99Ms) {}

  /**
   * @param count queries answered since start
   * @param notOk of those, not answered ok
   * @param upperBoundsSeconds the histogram's bucket upper bounds, ascending (the last may be
   *     infinite)
   * @param cumulativeCounts queries at or under each bound since start
   * @param seconds length of the interval since the previous call
   */
  public Interval next(
      long count,
      long notOk,
      double[] upperBoundsSeconds,
      double[] cumulativeCounts,
      double seconds) {
    if (upperBoundsSeconds.length != cumulativeCounts.length) {
      throw new IllegalArgumentException(
          "bucket bounds and counts differ in length: "
              + upperBoundsSeconds.length
              + " != "
              + cumulativeCounts.length);
    }
    boolean first = lastCount < 0 || lastBuckets.length != cumulativeCounts.length;
    double[] diff = new double[cumulativeCounts.length];
    for (int i = 0; i < diff.length; i++) {
      diff[i] = cumulativeCounts[i] - (first ? 0 : lastBuckets[i]);
    }
    long dCount = count - (lastCount < 0 ? count : lastCount);
    long dNotOk = notOk - (lastCount < 0 ? notOk : lastNotOk);
    lastCount = count;
    lastNotOk = notOk;
    lastBuckets = Arrays.copyOf(cumulativeCounts, cumulativeCounts.length);
    if (first) {
      // the first call only sets the baseline: queries before it belong to no interval
      return new Interval(0, 0, Double.NaN, Double.NaN);
    }
    double per = seconds > 0 ? 1 / seconds : 0;
    return new Interval(
        dCount * per,
        dNotOk * per,
        percentile(upperBoundsSeconds, diff, 0.5) * 1000,
        percentile(upperBoundsSeconds, diff, 0.99) * 1000);
  }

  /**
   * The q-quantile of a cumulative histogram, linear within a bucket; {@code NaN} when empty. A
   * quantile in the open last bucket answers that bucket's lower bound.
   */
  static double percentile(double[] upperBounds, double[] cumulative, double q) {
    if (cumulative.length == 0 || cumulative[cumulative.length - 1] <= 0) {
      return Double.NaN;
    }
    double rank = q * cumulative[cumulative.length - 1];
    double prevLe = 0;
    double prevCount = 0;
    for (int i = 0; i < upperBounds.length; i++) {
      double le = upperBounds[i];
      double c = cumulative[i];
      if (c >= rank) {
        if (Double.isInfinite(le)) {
          return prevLe;
        }
        double span = c - prevCount;
        return span <= 0 ? le : prevLe + (le - prevLe) * ((rank - prevCount) / span);
      }
      prevLe = le;
      prevCount = c;
    }
    return prevLe;
  }
}
