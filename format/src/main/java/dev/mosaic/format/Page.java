package dev.mosaic.format;

import java.util.List;
import java.util.Objects;

/**
 * The answer of {@link Searchable#page}: the query's page of hits, the number of every match of its
 * condition (regardless of skip and limit), and the facets and statistics asked for, all from one
 * evaluation of the condition per partition. Immutable.
 *
 * @param total every match of the condition
 * @param hits the page: the matches in query order after {@code skip}, at most {@code limit}
 * @param aggregation facet counts and field statistics over every match ({@code aggregation.count()
 *     == total}; empty lists when none were asked)
 */
public record Page(long total, List<Hit> hits, Aggregation aggregation) {
  public Page {
    hits = List.copyOf(hits);
    Objects.requireNonNull(aggregation, "aggregation");
  }
}
