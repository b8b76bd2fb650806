package dev.mosaic.searcher.http;

import dev.mosaic.searcher.IndexMeters;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.distribution.CountAtBucket;
import io.micrometer.core.instrument.distribution.HistogramSnapshot;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;

/**
 * The {@code mosaic.searcher.query} timers of one index (tagged {@code index=<name>}, see {@code
 * IndexMeters}) merged into one set of cumulative figures: every endpoint and outcome together.
 *
 * <p>Thread safety: stateless.
 */
final class QueryTimers {
  private QueryTimers() {}

  /**
   * Cumulative figures since start.
   *
   * @param count queries answered
   * @param notOk of those, with an outcome other than {@code ok}
   * @param totalSeconds time spent on them
   * @param upperBoundsSeconds histogram bucket bounds, ascending
   * @param cumulativeCounts queries at or under each bound
   */
  record Totals(
      long count,
      long notOk,
      double totalSeconds,
      double[] upperBoundsSeconds,
      double[] cumulativeCounts) {}

  /** The figures of the timers tagged {@code index=<index>}. */
  static Totals read(MeterRegistry registry, String index) {
    long count = 0;
    double totalSeconds = 0;
    long notOk = 0;
    TreeMap<Double, Double> buckets = new TreeMap<>();
    for (Timer t : registry.find("mosaic.searcher.query").tag(IndexMeters.TAG, index).timers()) {
      HistogramSnapshot s = t.takeSnapshot();
      count += s.count();
      totalSeconds += s.total(TimeUnit.SECONDS);
      if (!"ok".equals(t.getId().getTag("outcome"))) {
        notOk += s.count();
      }
      for (CountAtBucket b : s.histogramCounts()) {
        buckets.merge(b.bucket(TimeUnit.SECONDS), b.count(), Double::sum);
      }
    }
    double[] bounds = new double[buckets.size()];
    double[] counts = new double[buckets.size()];
    int i = 0;
    for (Map.Entry<Double, Double> e : buckets.entrySet()) {
      bounds[i] = e.getKey();
      counts[i++] = e.getValue();
    }
    return new Totals(count, notOk, totalSeconds, bounds, counts);
  }
}
