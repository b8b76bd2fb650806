package dev.mosaic.indexer;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntList;

/**
 * Which index partitions changed since their last rebuild, and when; hands out the ones due, and
 * never one being rebuilt right now (a partition is never rebuilt twice at once; a change during a
 * rebuild makes it dirty again). A dirty partition is due once the batch that changed it ended —
 * the consumer caught up with the end of its partitions and no partition changed for the debounce —
 * or at the latest after the maximum delay since its first change. Waiting for the end of the whole
 * batch, not only for a quiet moment of one partition, gives a snapshot's upserts one rebuild per
 * partition even when the loader spreads them over more than the debounce.
 *
 * <p>Thread safety: all methods are synchronized.
 */
final class DirtyPartitions {
  private final boolean[] dirty;
  private final boolean[] rebuilding;
  private final long[] firstChange;
  private final long[] lastChange;
  private int dirtyCount;
  private int rebuildingCount;
  private long lastAnyChange;

  DirtyPartitions(int partitions) {
    dirty = new boolean[partitions];
    rebuilding = new boolean[partitions];
    firstChange = new long[partitions];
    lastChange = new long[partitions];
  }

  synchronized void mark(int partition, long nowNanos) {
    if (!dirty[partition]) {
      dirty[partition] = true;
      firstChange[partition] = nowNanos;
      dirtyCount++;
    }
    lastChange[partition] = nowNanos;
    lastAnyChange = nowNanos;
  }

  synchronized void clear(int partition) {
    if (dirty[partition]) {
      dirty[partition] = false;
      dirtyCount--;
    }
  }

  /**
   * Takes the due partitions, marking them as being rebuilt.
   *
   * @param caughtUp whether the consumer has read up to the end of its partitions
   */
  synchronized int[] takeDue(
      long nowNanos, boolean caughtUp, long debounceNanos, long maxDelayNanos) {
    if (dirtyCount == 0) {
      return new int[0];
    }
    boolean batchEnded = caughtUp && nowNanos - lastAnyChange >= debounceNanos;
    IntList due = new IntArrayList();
    for (int p = 0; p < dirty.length; p++) {
      if (dirty[p]
          && !rebuilding[p]
          && (batchEnded || nowNanos - firstChange[p] >= maxDelayNanos)) {
        dirty[p] = false;
        dirtyCount--;
        rebuilding[p] = true;
        rebuildingCount++;
        due.add(p);
      }
    }
    return due.toIntArray();
  }

  /**
   * A rebuild is about to read the partition's state: every change marked so far is in what it
   * reads, so the partition is clean again (changes applied but not yet marked only cause one more
   * rebuild, never a lost one). Folds changes that arrived while the rebuild waited for a thread
   * into that rebuild.
   */
  synchronized void readingState(int partition) {
    clear(partition);
  }

  synchronized void rebuilt(int partition) {
    if (rebuilding[partition]) {
      rebuilding[partition] = false;
      rebuildingCount--;
    }
  }

  /** Partitions waiting for a rebuild or being rebuilt. */
  synchronized int pending() {
    return dirtyCount + rebuildingCount;
  }

  synchronized int dirtyCount() {
    return dirtyCount;
  }
}
