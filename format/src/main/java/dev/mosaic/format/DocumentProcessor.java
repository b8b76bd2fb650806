package dev.mosaic.format;

/**
 * Receives matching documents in query order.
 *
 * <p>NOTE: the {@code database} is only valid during the call and while the caller holds it open;
 * copy what you need out of payload views before the database is closed.
 */
@FunctionalInterface
public interface DocumentProcessor {
  /**
   * Called once per emitted document.
   *
   * @param document the document id inside {@code database} (0-based)
   * @param database the partition the document belongs to
   * @return true to go on, false to stop the iteration
   */
  boolean process(int document, Database database);
}
