package dev.mosaic.api;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Zipf-like sampling over {@code n} ranks, for the skewed distributions of the offer generators:
 * P(rank i) is proportional to 1 / (i + 1)^s, so a few head ranks hold most samples.
 *
 * <p>Thread safety: immutable; the random source passed in is the caller's.
 */
public final class Zipf {
  private final double[] cumulative;

  /**
   * A distribution over ranks {@code 0..n-1} with exponent {@code s}.
   *
   * @throws IllegalArgumentException if {@code n < 1}
   */
  public Zipf(int n, double s) {
    if (n < 1) {
      throw new IllegalArgumentException("a Zipf distribution needs n >= 1, got " + n);
    }
    cumulative = new double[n];
    double sum = 0;
    for (int i = 0; i < n; i++) {
      sum += 1 / Math.pow(i + 1, s);
      cumulative[i] = sum;
    }
    for (int i = 0; i < n; i++) {
      cumulative[i] /= sum;
    }
  }

  /** One rank, drawing one double from {@code random}. */
  public int sample(SplittableRandom random) {
    int i = Arrays.binarySearch(cumulative, random.nextDouble());
    return Math.min(i >= 0 ? i : -i - 1, cumulative.length - 1);
  }
}
