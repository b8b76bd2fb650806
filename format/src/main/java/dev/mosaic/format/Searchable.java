package dev.mosaic.format;

import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.util.List;

/**
 * Something queries run on: one partition ({@link Database}) or many ({@link CompositeDatabase}).
 *
 * <p>Thread safety: implementations are safe for any number of concurrent queries; the read path
 * takes no locks and allocates only per-query scratch.
 */
public interface Searchable {
  /** The schema queries are checked against. */
  Schema schema();

  /** Number of documents (over all partitions for a composite). */
  long documentCount();

  /**
   * Number of documents matching the query's condition; {@code orderBy}, {@code skip} and {@code
   * limit} are ignored.
   *
   * @throws IllegalArgumentException for an unknown field, a non-filterable field in a condition or
   *     a value of the wrong type; the message names the field
   */
  default long count(Query query) {
    return count(compile(Query.where(query.condition())));
  }

  /**
   * Compiles a request once (see {@link CompiledQuery}): the query, and the facets and statistics
   * that {@link #aggregate(CompiledQuery)} and {@link #page(CompiledQuery)} compute with it.
   *
   * @throws IllegalArgumentException as {@link #execute(Query, DocumentProcessor)} and {@link
   *     #aggregate(Condition, List, List)}; the message names the field
   */
  CompiledQuery compile(Query query, List<Facet> facets, List<Stats> stats);

  /** {@link #compile(Query, List, List)} without facets or statistics. */
  default CompiledQuery compile(Query query) {
    return compile(query, List.of(), List.of());
  }

  /**
   * As {@link #count(Query)} for a compiled request (its sort keys, skip, limit, facets and stats
   * are ignored).
   *
   * @throws IllegalArgumentException when {@code query} was not compiled by {@link #compile} for
   *     this schema
   */
  long count(CompiledQuery query);

  /**
   * Emits the matching documents in the query's order (document id order, and partition order for a
   * composite, when there is no {@code orderBy}; ties on the sort keys are broken the same way),
   * skipping {@code skip} and stopping after {@code limit} or when the processor returns false.
   *
   * @throws IllegalArgumentException as {@link #count}, and for ordering on a non-sortable field
   */
  default void execute(Query query, DocumentProcessor processor) {
    execute(compile(query), processor);
  }

  /**
   * As {@link #execute(Query, DocumentProcessor)} for a compiled request.
   *
   * @throws IllegalArgumentException as {@link #count(CompiledQuery)}
   */
  void execute(CompiledQuery query, DocumentProcessor processor);

  /**
   * As {@link #execute(Query, DocumentProcessor)}, also giving the processor the index of each
   * document's partition (its position in {@link CompositeDatabase#partitions()}, the first one for
   * a partition object listed twice; 0 for a single {@link Database}).
   *
   * @throws IllegalArgumentException as {@link #execute(Query, DocumentProcessor)}
   */
  default void execute(Query query, HitProcessor processor) {
    execute(compile(query), processor);
  }

  /**
   * As {@link #execute(Query, HitProcessor)} for a compiled request.
   *
   * @throws IllegalArgumentException as {@link #count(CompiledQuery)}
   */
  void execute(CompiledQuery query, HitProcessor processor);

  /**
   * A page of the query and its total count in one call: the matches in query order after {@code
   * skip}, at most {@code limit}, and the number of every match of the condition. See {@link
   * #page(Query, List, List)}.
   */
  default Page page(Query query) {
    return page(query, List.of(), List.of());
  }

  /**
   * A page of the query, its total count, and facet counts and field statistics over every match,
   * with the condition evaluated once per partition for all of them (where {@link #count}, {@link
   * #aggregate} and {@link #execute} would evaluate it once each). NOTE: the page is collected in a
   * list, so give the query a limit; for an ordered query each partition sorts its own first {@code
   * skip + limit} matches (no partition is skipped, as every one must be counted anyway).
   *
   * @throws IllegalArgumentException as {@link #execute} and {@link #aggregate}
   */
  default Page page(Query query, List<Facet> facets, List<Stats> stats) {
    return page(compile(query, facets, stats));
  }

  /**
   * {@link #page(Query, List, List)} of a compiled request (with the facets and stats it was
   * compiled with).
   *
   * @throws IllegalArgumentException as {@link #count(CompiledQuery)}
   */
  Page page(CompiledQuery query);

  /**
   * Facet counts and field statistics over the documents matching {@code condition}, in one pass
   * over the partitions (the condition is evaluated once per partition for every request).
   *
   * <p>Execution: per partition and faceted field, the cheaper way from the partition's statistics
   * — the stored per-value counts when every document matches, the matching documents through
   * document→value (FULL fields) when they are fewer than the postings a value walk would read,
   * else each value's postings intersected with the filter (see FORMAT.md, "Aggregations").
   *
   * <p>Memory: per query, scratch of one counter per distinct value of a faceted field in a
   * partition (sized for the largest partition, reused across partitions), two rank→slot lists of
   * the same bound per {@link Facet.Kind#TOP} or {@link Facet.Kind#ALL} facet, plus one entry per
   * distinct value having a match in any partition. Nothing grows with the number of documents or
   * partitions. A composite with a value dictionary of a faceted field counts into one counter per
   * distinct value of the composite instead. Kept beyond the query: a single-valued field without
   * document→value that is faceted over few matching documents gets, once per open partition, a
   * document→value array derived from its postings (two bytes per document).
   *
   * @throws IllegalArgumentException for an unknown field, a facet on a non-filterable field, stats
   *     on a non-sortable field, or a value of the wrong type; the message names the field
   */
  default Aggregation aggregate(Condition condition, List<Facet> facets, List<Stats> stats) {
    return aggregate(compile(Query.where(condition), facets, stats));
  }

  /**
   * {@link #aggregate(Condition, List, List)} of a compiled request: its facets and stats over the
   * matches of its condition (sort keys, skip and limit are ignored).
   *
   * @throws IllegalArgumentException as {@link #count(CompiledQuery)}
   */
  Aggregation aggregate(CompiledQuery query);

  /** The facet counts of {@link #aggregate} alone. */
  default List<Aggregation.FacetCounts> facets(Condition condition, Facet... facets) {
    return aggregate(condition, List.of(facets), List.of()).facets();
  }

  /**
   * Runs the query with a trace: each step of its condition (per partition for a composite) with
   * its matching count and time, and the final {@code execute} step honouring order, skip and
   * limit.
   *
   * @throws IllegalArgumentException as {@link #execute}
   */
  default Explanation explain(Query query) {
    return explain(compile(query));
  }

  /**
   * {@link #explain(Query)} of a compiled request.
   *
   * @throws IllegalArgumentException as {@link #count(CompiledQuery)}
   */
  Explanation explain(CompiledQuery query);

  /** The statistics of one field, as {@link #aggregate} computes them. */
  default Aggregation.FieldStats stats(Condition condition, Stats stats) {
    return aggregate(condition, List.of(), List.of(stats)).stats().get(0);
  }
}
