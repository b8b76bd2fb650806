package dev.mosaic.format;

/**
 * Receives matching documents in query order, with the index of the partition each comes from.
 *
 * <p>NOTE: the {@code database} is only valid during the call and while the caller holds it open;
 * copy what you need out of payload views before the database is closed.
 */
@FunctionalInterface
public interface HitProcessor {
  /**
   * Called once per emitted document.
   *
   * @param partition the index of the document's partition in the composite's {@link
   *     CompositeDatabase#partitions()} (0 for a single {@link Database})
   * @param document the document id inside {@code database} (0-based)
   * @param database the partition the document belongs to
   * @return true to go on, false to stop the iteration
   */
  boolean process(int partition, int document, Database database);
}
