package dev.mosaic.format.json;

import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.util.List;
import java.util.Objects;

/**
 * A search as the JSON query language states it (see {@code QUERY.md}): a {@link Query} plus what
 * each hit carries and what is aggregated over every match. Immutable.
 *
 * @param query condition, order, skip and limit
 * @param fields the sortable fields whose values each hit carries
 * @param payload whether hits carry their payload
 * @param facets facet counts to compute over the matches
 * @param stats field statistics to compute over the matches
 * @param explain whether to add the query's per-step trace
 */
public record SearchRequest(
    Query query,
    List<String> fields,
    boolean payload,
    List<Facet> facets,
    List<Stats> stats,
    boolean explain) {
  public SearchRequest {
    Objects.requireNonNull(query, "query");
    fields = List.copyOf(fields);
    facets = List.copyOf(facets);
    stats = List.copyOf(stats);
  }
}
