package dev.mosaic.format;

import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.util.List;

/**
 * A request compiled once against a schema by {@link Searchable#compile(Query, List, List)}: the
 * query (fields resolved, values encoded, roles checked, sort keys resolved) and the facets and
 * statistics asked with it. The same object then serves {@link Searchable#count(CompiledQuery)},
 * {@link Searchable#execute(CompiledQuery, DocumentProcessor)}, {@link
 * Searchable#aggregate(CompiledQuery)}, {@link Searchable#page(CompiledQuery)} and {@link
 * Searchable#explain(CompiledQuery)} without compiling anything again, so a faceted search compiles
 * its request once.
 *
 * <p>Only objects returned by {@code compile} are accepted, by any searchable with the same schema;
 * other implementations are refused with {@link IllegalArgumentException}.
 *
 * <p>Thread safety: immutable; one compiled query may serve concurrent calls.
 */
public interface CompiledQuery {
  /** The schema it was compiled against. */
  Schema schema();

  /** The query as given. */
  Query query();

  /** The facets asked with it (empty when none). */
  List<Facet> facets();

  /** The statistics asked with it (empty when none). */
  List<Stats> stats();
}
