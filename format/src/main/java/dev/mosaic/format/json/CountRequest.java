package dev.mosaic.format.json;

import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Stats;
import java.util.List;
import java.util.Objects;

/**
 * A count as the JSON query language states it (see {@code QUERY.md}): a condition plus what is
 * aggregated over its matches. Immutable.
 *
 * @param condition the filter
 * @param facets facet counts to compute over the matches
 * @param stats field statistics to compute over the matches
 */
public record CountRequest(Condition condition, List<Facet> facets, List<Stats> stats) {
  public CountRequest {
    Objects.requireNonNull(condition, "condition");
    facets = List.copyOf(facets);
    stats = List.copyOf(stats);
  }
}
