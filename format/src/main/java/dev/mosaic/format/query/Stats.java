package dev.mosaic.format.query;

import java.util.List;
import java.util.Objects;

/**
 * A statistics request on a SORTABLE or FULL field over the matching documents: count, min and max,
 * and optionally a histogram over ascending bucket bounds {@code b0 < b1 < ... < bk}, giving {@code
 * k + 2} buckets {@code (-inf, b0), [b0, b1), ..., [bk, +inf)}. Immutable.
 */
public record Stats(String field, List<Object> bounds) {
  public Stats {
    Objects.requireNonNull(field, "field");
    bounds = bounds == null ? List.of() : List.copyOf(bounds);
  }

  /** Count, min and max of {@code field}. */
  public static Stats of(String field) {
    return new Stats(field, List.of());
  }

  /** Count, min, max and a histogram of {@code field} over the given ascending bounds. */
  public static Stats histogram(String field, List<?> bounds) {
    return new Stats(field, List.copyOf(bounds));
  }
}
