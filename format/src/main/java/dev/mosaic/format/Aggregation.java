package dev.mosaic.format;

import java.util.List;

/**
 * The answer to {@link Searchable#aggregate}: the number of matching documents, one {@link
 * FacetCounts} per facet request and one {@link FieldStats} per stats request, in request order.
 * Immutable.
 */
public record Aggregation(long count, List<FacetCounts> facets, List<FieldStats> stats) {
  public Aggregation {
    facets = List.copyOf(facets);
    stats = List.copyOf(stats);
  }

  /** Counts of one field's values among the matching documents. */
  public record FacetCounts(String field, List<Entry> entries) {
    public FacetCounts {
      entries = List.copyOf(entries);
    }
  }

  /**
   * One value (decoded: Integer, Long, Double, Boolean, String, Instant or byte[]) and its count.
   */
  public record Entry(Object value, long count) {}

  /**
   * Statistics of a sortable field over the matching documents: how many have it (every matching
   * document, as sortable fields have one value each), the smallest and largest value (null when
   * none matched), and the histogram bucket counts ({@code bounds.size() + 1} of them, empty when
   * no bounds were asked).
   */
  public record FieldStats(String field, long count, Object min, Object max, List<Long> buckets) {
    public FieldStats {
      buckets = List.copyOf(buckets);
    }
  }
}
