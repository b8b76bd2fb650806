package dev.mosaic.api;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A later version of a feed snapshot, as the offer generators make it: each offer is removed with
 * probability {@code removeShare}, else changed with probability {@code changeShare}, else kept as
 * is; then {@code round(addShare * snapshot.size())} new offers are appended. Survivors keep their
 * order. One {@code random.nextDouble()} is drawn per offer, before it is changed.
 *
 * <p>Thread safety: stateless; the random source and functions are the caller's.
 */
public final class FeedMutation {
  private FeedMutation() {}

  /**
   * The mutated snapshot.
   *
   * @throws IllegalArgumentException if a share is out of range
   */
  public static <T> List<T> mutate(
      List<T> snapshot,
      SplittableRandom random,
      double changeShare,
      double removeShare,
      double addShare,
      UnaryOperator<T> change,
      Supplier<T> add) {
    checkShare("changeShare", changeShare);
    checkShare("removeShare", removeShare);
    if (addShare < 0) {
      throw new IllegalArgumentException("addShare must be >= 0, got " + addShare);
    }
    List<T> result = new ArrayList<>(snapshot.size());
    for (T offer : snapshot) {
      double r = random.nextDouble();
      if (r < removeShare) {
        continue;
      }
      result.add(r < removeShare + changeShare ? change.apply(offer) : offer);
    }
    long added = Math.round(addShare * snapshot.size());
    for (long i = 0; i < added; i++) {
      result.add(add.get());
    }
    return result;
  }

  /**
   * Checks a share is a probability.
   *
   * @throws IllegalArgumentException naming the share when it is not in [0, 1]
   */
  public static void checkShare(String name, double share) {
    if (!(share >= 0 && share <= 1)) {
      throw new IllegalArgumentException(name + " must be in [0, 1], got " + share);
    }
  }
}
