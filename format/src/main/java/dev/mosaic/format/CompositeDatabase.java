package dev.mosaic.format;

import dev.mosaic.format.impl.CompositeReader;
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
   * A composite over partitions that all have exactly {@code schema}.
   *
   * @throws IllegalArgumentException naming the first partition whose schema differs
   */
  static CompositeDatabase of(Schema schema, List<? extends Database> partitions) {
    return new CompositeReader(schema, partitions);
  }

  /** The partitions, in the order given. */
  List<Database> partitions();
}
