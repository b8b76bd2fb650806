package dev.mosaic.searcher.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class QueryDeltaTest {
  private static final double[] BOUNDS = {
    0.001, 0.002, 0.005, 0.01, 0.05, 0.1, Double.POSITIVE_INFINITY
  };

  @Test
  void theFirstCallOnlySetsTheBaseline() {
    QueryDelta d = new QueryDelta();
    QueryDelta.Interval first =
        d.next(500, 3, BOUNDS, cumulative(new int[] {500, 0, 0, 0, 0, 0, 0}), 1);
    assertThat(first.perSecond()).isZero();
    assertThat(first.p50Ms()).isNaN();
  }

  @Test
  void figuresCountOnlyTheQueriesOfTheInterval() {
    QueryDelta d = new QueryDelta();
    int[] before = {100, 0, 0, 0, 0, 0, 0}; // 100 fast queries before the interval
    d.next(100, 0, BOUNDS, cumulative(before), 1);
    int[] during = {100, 0, 0, 40, 0, 0, 0}; // then 40 queries of 5-10 ms in 2 s
    QueryDelta.Interval i = d.next(140, 4, BOUNDS, cumulative(during), 2);
    assertThat(i.perSecond()).isEqualTo(20);
    assertThat(i.notOkPerSecond()).isEqualTo(2);
    assertThat(i.p50Ms()).isCloseTo(7.5, within(1e-9));
    assertThat(i.p99Ms()).isCloseTo(9.95, within(1e-9));
    QueryDelta.Interval idle = d.next(140, 4, BOUNDS, cumulative(during), 1);
    assertThat(idle.perSecond()).isZero();
    assertThat(idle.p99Ms()).isNaN();
  }

  @Test
  void percentileAgreesWithTheSortedSampleToWithinItsBucket() {
    for (long seed = 1; seed <= 30; seed++) {
      Random r = new Random(seed);
      int n = 1 + r.nextInt(2000);
      double[] latencies = new double[n];
      int[] perBucket = new int[BOUNDS.length];
      for (int i = 0; i < n; i++) {
        latencies[i] = Math.exp(r.nextGaussian() * 1.2 - 5.5); // ~4 ms median, long tail
        int b = 0;
        while (latencies[i] > BOUNDS[b]) {
          b++;
        }
        perBucket[b]++;
      }
      Arrays.sort(latencies);
      for (double q : new double[] {0.5, 0.9, 0.99}) {
        double exact = latencies[(int) Math.ceil(q * n) - 1];
        double estimate = QueryDelta.percentile(BOUNDS, cumulative(perBucket), q);
        int bucket = 0;
        while (exact > BOUNDS[bucket]) {
          bucket++;
        }
        double lo = bucket == 0 ? 0 : BOUNDS[bucket - 1];
        double hi = Double.isInfinite(BOUNDS[bucket]) ? lo : BOUNDS[bucket];
        assertThat(estimate).as("seed %d q %s exact %s", seed, q, exact).isBetween(lo, hi);
      }
    }
  }

  private static double[] cumulative(int[] perBucket) {
    double[] c = new double[perBucket.length];
    double sum = 0;
    for (int i = 0; i < perBucket.length; i++) {
      sum += perBucket[i];
      c[i] = sum;
    }
    return c;
  }
}
