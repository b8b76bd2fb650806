package dev.mosaic.indexer;

import java.time.Duration;
import java.util.Objects;

/**
 * How often the feed loader tries a snapshot from the feeds topic before dead-lettering it: at most
 * {@code maxAttempts} tries, waiting {@code firstBackoff} after the first failure, doubling up to
 * {@code maxBackoff}. Bounded, so one partner that cannot be processed does not block the partners
 * behind it on its feeds partition.
 *
 * <p>Thread safety: immutable.
 *
 * @param maxAttempts tries in all, at least 1
 * @param firstBackoff wait after the first failed try
 * @param maxBackoff longest wait between tries
 */
public record SnapshotRetry(int maxAttempts, Duration firstBackoff, Duration maxBackoff) {
  /** Defaults: 5 tries, 1 s after the first failure, doubling up to 30 s. */
  public static final SnapshotRetry DEFAULT =
      new SnapshotRetry(5, Duration.ofSeconds(1), Duration.ofSeconds(30));

  public SnapshotRetry {
    Objects.requireNonNull(firstBackoff, "firstBackoff");
    Objects.requireNonNull(maxBackoff, "maxBackoff");
    if (maxAttempts < 1) {
      throw new IllegalArgumentException("maxAttempts must be >= 1, got " + maxAttempts);
    }
    if (firstBackoff.isNegative() || maxBackoff.compareTo(firstBackoff) < 0) {
      throw new IllegalArgumentException(
          "backoff must satisfy 0 <= first <= max, got first "
              + firstBackoff
              + " and max "
              + maxBackoff);
    }
  }

  /** The wait after failed try number {@code attempt} (1-based). */
  Duration backoffAfter(int attempt) {
    Duration wait = firstBackoff;
    for (int i = 1; i < attempt && wait.compareTo(maxBackoff) < 0; i++) {
      wait = wait.multipliedBy(2);
    }
    return wait.compareTo(maxBackoff) > 0 ? maxBackoff : wait;
  }
}
