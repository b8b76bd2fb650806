package dev.mosaic.searcher;

/**
 * Told when the files a {@link PartitionStore} would serve may have changed: a file was published,
 * a partition was pinned or unpinned, or a rescan found changes.
 *
 * <p>NOTE: called on the thread that made the change (a transport receiver, an HTTP handler), after
 * the change is durable and outside the store's lock. Return quickly: schedule work, don't do it.
 */
@FunctionalInterface
public interface StoreListener {
  /**
   * The store changed.
   *
   * @param schemaVersion the schema version whose files changed
   * @param partition the partition that changed, or -1 when several may have
   */
  void storeChanged(int schemaVersion, int partition);
}
