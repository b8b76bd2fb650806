package dev.mosaic.indexer;

import it.unimi.dsi.fastutil.ints.Int2ObjectMap;
import it.unimi.dsi.fastutil.ints.Int2ObjectOpenHashMap;
import it.unimi.dsi.fastutil.ints.IntOpenHashSet;
import it.unimi.dsi.fastutil.ints.IntSet;
import it.unimi.dsi.fastutil.longs.Long2ObjectMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import java.util.Iterator;

/**
 * Follows the loader's batches per Kafka partition of the offers topic: counts each batch's records
 * seen since the partition was restored and which index partitions they changed, and when the
 * batch's {@link BatchEnd} marker arrives, closes the batch on those partitions — complete (they
 * may be rebuilt at once) only when at least as many records were seen as the marker counts.
 * Records read while restoring are not counted (the restore's reconciliation covers them), so a
 * batch that straddles a restore, a rebalance or a restart is never complete here and its
 * partitions wait for the debounce. A batch whose marker does not come within the expiry is closed
 * incomplete.
 *
 * <p>Thread safety: confined to the consumer thread.
 */
final class BatchTracker {
  /** Closes a batch on one index partition; returns whether it is now due at once. */
  interface Closer {
    boolean close(int indexPartition, boolean complete);
  }

  private static final class Open {
    long seen;
    long lastSeenNanos;
    final IntSet changed = new IntOpenHashSet();
  }

  private final Int2ObjectMap<Long2ObjectMap<Open>> byKafkaPartition =
      new Int2ObjectOpenHashMap<>();
  private final long expiryNanos;

  BatchTracker(long expiryNanos) {
    this.expiryNanos = expiryNanos;
  }

  /**
   * A record of {@code batch} was applied to index partition {@code p} of Kafka partition {@code
   * k}.
   *
   * @param changed whether it changed the partition's state
   * @return true when this is the batch's first change of {@code p} (the partition must now wait
   *     for the batch's end)
   */
  boolean record(int k, long batch, int p, boolean changed, long nowNanos) {
    Open open =
        byKafkaPartition
            .computeIfAbsent(k, x -> new Long2ObjectOpenHashMap<>())
            .computeIfAbsent(batch, x -> new Open());
    open.seen++;
    open.lastSeenNanos = nowNanos;
    return changed && open.changed.add(p);
  }

  /**
   * The batch's marker arrived in Kafka partition {@code k}: closes it on the index partitions it
   * changed.
   *
   * @return the index partitions now due at once
   */
  IntSet end(int k, BatchEnd end, Closer closer) {
    Long2ObjectMap<Open> batches = byKafkaPartition.get(k);
    Open open = batches == null ? null : batches.remove(end.batchId());
    IntSet due = new IntOpenHashSet();
    if (open == null) {
      return due;
    }
    boolean complete = open.seen >= end.records();
    for (int p : open.changed) {
      if (closer.close(p, complete)) {
        due.add(p);
      }
    }
    return due;
  }

  /** Forgets a Kafka partition's batches (revoked, lost, or restored again). */
  void forget(int k) {
    byKafkaPartition.remove(k);
  }

  /** Closes, incomplete, batches whose last record is older than the expiry. */
  void expire(long nowNanos, Closer closer) {
    for (Long2ObjectMap<Open> batches : byKafkaPartition.values()) {
      for (Iterator<Open> it = batches.values().iterator(); it.hasNext(); ) {
        Open open = it.next();
        if (nowNanos - open.lastSeenNanos >= expiryNanos) {
          it.remove();
          for (int p : open.changed) {
            closer.close(p, false);
          }
        }
      }
    }
  }

  /** Batches open (for tests and logs). */
  int openBatches() {
    int n = 0;
    for (Long2ObjectMap<Open> batches : byKafkaPartition.values()) {
      n += batches.size();
    }
    return n;
  }
}
