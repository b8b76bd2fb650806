package dev.mosaic.format;

import dev.mosaic.format.impl.CompositeReader;
import dev.mosaic.format.query.Query;
import java.util.List;

/**
 * Many partitions queried as one: counts sum, ordered queries merge the partitions' ordered streams
 * by sort key (ties broken by partition order, then document id), honouring skip and limit across
 * partitions. Partitions that cannot match are skipped cheaply.
 *
 * <p>Thread safety: immutable, safe for concurrent queries. NOTE: a composite does not own its
 * partitions: closing them is the caller's business, and a query on a closed partition throws
 * {@link IllegalStateException}.
 */
public interface CompositeDatabase extends Searchable {

  /**
   * A composite over partitions that all have exactly {@code schema}, each a database the format
   * opened ({@link Database#open}, {@link Database#map} or {@link Database#fromBytes}): a composite
   * reads its partitions directly.
   *
   * @throws IllegalArgumentException naming the first partition whose schema differs
   */
  static CompositeDatabase of(Schema schema, List<? extends Database> partitions) {
    return new CompositeReader(schema, partitions);
  }

  /**
   * {@link #count(Query)} with the partitions counted on an executor (in at most 64 tasks of
   * contiguous partitions), for latency-sensitive callers on a multi-core machine. The result is
   * the same as the sequential count.
   *
   * <p>NOTE: the calling thread blocks until every task is done; do not call it from a task of a
   * bounded executor that the tasks also need (deadlock). Exceptions of a partition are rethrown.
   */
  long count(Query query, java.util.concurrent.Executor executor);

  /**
   * {@link #execute(Query, DocumentProcessor)} with the per-partition work (evaluating the
   * condition; for ordered queries also sorting each partition's first {@code skip + limit}
   * candidates) done on an executor; the merge and every {@code processor} call run on the calling
   * thread, in exactly the order and with exactly the documents of the sequential path.
   *
   * <p>NOTE: unlike the sequential path, every partition is evaluated even when the limit is
   * reached early (no skipping of the partitions after it), and ordered queries do not prune
   * partitions against the current best; it pays when partitions are few and large, or the
   * condition is expensive. Same blocking caveat as {@link #count(Query,
   * java.util.concurrent.Executor)}.
   */
  void execute(Query query, DocumentProcessor processor, java.util.concurrent.Executor executor);

  /**
   * The composite of the next generation: the same schema and {@linkplain #groups() groups} over
   * {@code partitions}, reusing what this composite derived from the partitions both share at the
   * same position (the same {@link Database} objects), so that replacing a few partitions costs the
   * next composite's first queries only the work for those. Use it instead of {@link #of} when
   * partitions are replaced one at a time (a searcher's reopen). This composite stays usable; the
   * two share only immutable state.
   *
   * @throws IllegalArgumentException naming the first partition whose schema differs
   */
  CompositeDatabase withPartitions(List<? extends Database> partitions);

  /** The partitions, in the order given. */
  List<Database> partitions();

  /**
   * A composite over {@code partitions} that queries every run of two or more consecutive
   * partitions that are consecutive members of one of {@code groups} through the group's merged
   * database (a window of its documents), and every other partition as itself. Results are exactly
   * those of {@link #of}{@code (schema, partitions)}: same counts, facets and documents in the same
   * order, each handed to processors as its partition and the partition's own document id. A
   * partition replaced since a group was merged simply breaks the group's run there (its range is
   * skipped); the new partition is queried beside the group.
   *
   * <p>NOTE: the groups, like the partitions, are not owned by the composite; the partitions must
   * stay open as well (processors receive them).
   *
   * @throws IllegalArgumentException naming the first partition or group whose schema differs
   */
  static CompositeDatabase grouped(
      Schema schema, List<? extends Database> partitions, List<PartitionGroup> groups) {
    return CompositeReader.grouped(schema, partitions, groups);
  }

  /**
   * {@link #withPartitions(List)} with another set of groups (see {@link #grouped}): the next
   * generation after a background merge.
   */
  CompositeDatabase withPartitions(
      List<? extends Database> partitions, List<PartitionGroup> groups);

  /** The groups given to {@link #grouped} (empty for {@link #of}). */
  List<PartitionGroup> groups();
}
