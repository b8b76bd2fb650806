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
 * <p><b>Batches.</b> A change that belongs to a loader's batch ({@link BatchEnd}) also opens that
 * batch on its partition; once every batch open on a dirty partition has ended (its marker arrived
 * and its records were all seen), the partition is due at once, without waiting for the debounce.
 * While a batch is open on a partition, neither the debounce nor the maximum delay makes it due (a
 * slow loader would otherwise split one batch's changes over several rebuilds): a batch that never
 * ends is closed by its expiry ({@link BatchTracker}), and a batch closed without proof that all
 * its records were seen leaves the partition to the debounce and the maximum delay. Changes outside
 * a batch leave this alone and wait for the debounce, unless a batch ending on the same partition
 * takes them along.
 *
 * <p>Thread safety: all methods are synchronized.
 */
final class DirtyPartitions {
  private final boolean[] dirty;
  private final boolean[] rebuilding;
  private final long[] firstChange;
  private final long[] lastChange;
  private final int[] openBatches;
  private final boolean[] batchesEnded;
  private int dirtyCount;
  private int rebuildingCount;
  private long lastAnyChange;

  DirtyPartitions(int partitions) {
    dirty = new boolean[partitions];
    rebuilding = new boolean[partitions];
    firstChange = new long[partitions];
    lastChange = new long[partitions];
    openBatches = new int[partitions];
    batchesEnded = new boolean[partitions];
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

  /**
   * A change of a batch that had not changed this partition yet: the partition waits for that
   * batch's end too.
   */
  synchronized void openBatch(int partition, long nowNanos) {
    mark(partition, nowNanos);
    openBatches[partition]++;
    batchesEnded[partition] = false;
  }

  /**
   * A batch that changed this partition ended.
   *
   * @param complete whether every record of the batch was seen; if not, the partition waits for the
   *     debounce
   * @return whether the partition is now due at once
   */
  synchronized boolean closeBatch(int partition, boolean complete) {
    if (openBatches[partition] > 0) {
      openBatches[partition]--;
    }
    if (complete && openBatches[partition] == 0 && dirty[partition]) {
      batchesEnded[partition] = true;
    }
    return batchesEnded[partition];
  }

  synchronized void clear(int partition) {
    if (dirty[partition]) {
      dirty[partition] = false;
      dirtyCount--;
    }
    batchesEnded[partition] = false;
  }

  /** A partition is no longer owned: forget its pending change and its open batches. */
  synchronized void forget(int partition) {
    clear(partition);
    openBatches[partition] = 0;
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
      boolean waitsForBatch = openBatches[p] > 0;
      if (dirty[p]
          && !rebuilding[p]
          && (batchesEnded[p]
              || !waitsForBatch && (batchEnded || nowNanos - firstChange[p] >= maxDelayNanos))) {
        dirty[p] = false;
        dirtyCount--;
        batchesEnded[p] = false;
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
