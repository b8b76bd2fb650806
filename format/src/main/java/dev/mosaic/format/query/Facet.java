package dev.mosaic.format.query;

import java.util.List;
import java.util.Objects;

/**
 * A facet request: the number of matching documents per value of a FILTERABLE or FULL field.
 * Multi-valued fields count a document once per distinct value it has. Build with {@link #top},
 * {@link #all} or {@link #values}. Immutable.
 */
public record Facet(String field, Kind kind, int top, List<Object> values) {
  /** What a facet returns. */
  public enum Kind {
    /** The {@code top} values with the most matching documents (ties: smaller value first). */
    TOP,
    /** Every value with at least one matching document, in value order. */
    ALL,
    /** The given values, in the given order, with their counts (possibly zero). */
    VALUES
  }

  public Facet {
    Objects.requireNonNull(field, "field");
    Objects.requireNonNull(kind, "kind");
    values = values == null ? List.of() : List.copyOf(values);
    if (top < 0) {
      throw new IllegalArgumentException("facet on '" + field + "': top must be >= 0, got " + top);
    }
  }

  /** The {@code n} values of {@code field} with the most matching documents. */
  public static Facet top(String field, int n) {
    return new Facet(field, Kind.TOP, n, List.of());
  }

  /** Every value of {@code field} having a matching document. */
  public static Facet all(String field) {
    return new Facet(field, Kind.ALL, 0, List.of());
  }

  /** The counts of the given values of {@code field}. */
  public static Facet values(String field, List<?> values) {
    return new Facet(field, Kind.VALUES, 0, List.copyOf(values));
  }
}
