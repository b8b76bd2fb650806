package dev.mosaic.format;

import dev.mosaic.format.query.Query;

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
  long count(Query query);

  /**
   * Emits the matching documents in the query's order (document id order, and partition order for a
   * composite, when there is no {@code orderBy}; ties on the sort keys are broken the same way),
   * skipping {@code skip} and stopping after {@code limit} or when the processor returns false.
   *
   * @throws IllegalArgumentException as {@link #count}, and for ordering on a non-sortable field
   */
  void execute(Query query, DocumentProcessor processor);
}
