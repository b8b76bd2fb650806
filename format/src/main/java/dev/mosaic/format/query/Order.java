package dev.mosaic.format.query;

import java.util.Objects;

/** One sort key: a SORTABLE or FULL field and a direction. Immutable. */
public record Order(String field, boolean descending) {
  public Order {
    Objects.requireNonNull(field, "field");
  }

  /** Ascending by {@code field}. */
  public static Order asc(String field) {
    return new Order(field, false);
  }

  /** Descending by {@code field}. */
  public static Order desc(String field) {
    return new Order(field, true);
  }
}
