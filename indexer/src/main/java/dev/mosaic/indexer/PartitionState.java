package dev.mosaic.indexer;

import it.unimi.dsi.fastutil.longs.Long2LongMap;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.util.Arrays;

/**
 * The offers of one index partition, compactly: the serialized offers are appended to one byte slab
 * and a primitive open-addressing map takes the record key's hash to a packed pointer (offset in
 * the high 40 bits, length in the low 24). No object per offer: the heap cost per offer is its
 * bytes plus about 21 bytes of map slots (load factor 0.75), plus slab slack below one growth step.
 * Replaced or removed offers leave garbage in the slab, reclaimed by compaction once it exceeds the
 * live bytes.
 *
 * <p>Also keeps an order-independent fingerprint of the content (a sum of mixed key and content
 * hashes), so a node can tell after restoring whether the partition still matches the version
 * recorded in the manifest.
 *
 * <p>Thread safety: all methods are synchronized. A {@link Snapshot} stays valid and immutable
 * after the lock is released: the slab is only appended to beyond the snapshot's pointers, and
 * compaction copies into a new array.
 */
final class PartitionState {
  private static final int MAX_LENGTH = (1 << 24) - 1;
  private static final long NONE = -1L;

  private final int partition;
  private final Long2LongOpenHashMap pointers = new Long2LongOpenHashMap();
  private byte[] slab = new byte[0];
  private int used;
  private long garbage;
  private long fingerprint;

  PartitionState(int partition) {
    this.partition = partition;
    pointers.defaultReturnValue(NONE);
  }

  int partition() {
    return partition;
  }

  /**
   * Stores an offer's bytes under its key hash.
   *
   * @return false when the same bytes were already stored (nothing changed)
   */
  synchronized boolean put(long keyHash, byte[] value) {
    if (value.length > MAX_LENGTH) {
      throw new IllegalArgumentException(
          "offer of " + value.length + " bytes exceeds the " + MAX_LENGTH + "-byte limit");
    }
    long old = pointers.get(keyHash);
    if (old != NONE) {
      int off = offset(old);
      int len = length(old);
      if (len == value.length && Arrays.equals(slab, off, off + len, value, 0, value.length)) {
        return false;
      }
      fingerprint -= mix(keyHash, OfferKeys.hash(slab, off, len));
      garbage += len;
    }
    ensureCapacity(value.length);
    System.arraycopy(value, 0, slab, used, value.length);
    pointers.put(keyHash, pointer(used, value.length));
    used += value.length;
    fingerprint += mix(keyHash, OfferKeys.hash(value, 0, value.length));
    maybeCompact();
    return true;
  }

  /**
   * Removes an offer.
   *
   * @return false when no offer had that key hash
   */
  synchronized boolean remove(long keyHash) {
    long old = pointers.remove(keyHash);
    if (old == NONE) {
      return false;
    }
    int off = offset(old);
    int len = length(old);
    fingerprint -= mix(keyHash, OfferKeys.hash(slab, off, len));
    garbage += len;
    maybeCompact();
    return true;
  }

  synchronized int size() {
    return pointers.size();
  }

  synchronized long fingerprint() {
    return fingerprint;
  }

  /** Heap bytes held: slab capacity plus the map's two slot arrays (estimated from its size). */
  synchronized long heapBytes() {
    long slots = Long.highestOneBit(Math.max(2, (long) Math.ceil(pointers.size() / 0.75)) * 2 - 1);
    return slab.length + 16L * (slots + 1) + 64;
  }

  /** Live payload bytes (what the offers serialize to). */
  synchronized long liveBytes() {
    return used - garbage;
  }

  /** The current content, ordered by key hash (so the same content always builds the same file). */
  synchronized Snapshot snapshot() {
    long[] keys = new long[pointers.size()];
    int i = 0;
    for (Long2LongMap.Entry e : pointers.long2LongEntrySet()) {
      keys[i++] = e.getLongKey();
    }
    Arrays.sort(keys);
    long[] ptrs = new long[keys.length];
    for (int j = 0; j < keys.length; j++) {
      ptrs[j] = pointers.get(keys[j]);
    }
    return new Snapshot(partition, slab, ptrs, fingerprint);
  }

  private void ensureCapacity(int extra) {
    long needed = (long) used + extra;
    if (needed <= slab.length) {
      return;
    }
    if (needed > Integer.MAX_VALUE - 16) {
      compact();
      needed = (long) used + extra;
      if (needed > Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("partition " + partition + " holds more than 2 GiB");
      }
      if (needed <= slab.length) {
        return;
      }
    }
    long grown = Math.max(needed, slab.length + (slab.length >> 1) + 256L);
    slab = Arrays.copyOf(slab, (int) Math.min(grown, Integer.MAX_VALUE - 16));
  }

  /** Drops the slab's growth slack and garbage (e.g. once a restore is complete). */
  synchronized void trim() {
    if (slab.length > used - garbage + 4096) {
      compactTo(0);
    }
  }

  private void maybeCompact() {
    if (garbage > 4096 && garbage > used - garbage) {
      compact();
    }
  }

  /** Copies the live bytes into a new slab sized to them (old snapshots keep the old array). */
  private void compact() {
    compactTo((used - garbage) >> 3);
  }

  /** Copies the live bytes into a new slab with {@code headroom} free bytes. */
  private void compactTo(long headroom) {
    long live = used - garbage;
    byte[] fresh = new byte[(int) Math.min(Integer.MAX_VALUE - 16, live + headroom + 256)];
    int at = 0;
    for (Long2LongMap.Entry e : pointers.long2LongEntrySet()) {
      long p = e.getLongValue();
      int len = length(p);
      System.arraycopy(slab, offset(p), fresh, at, len);
      e.setValue(pointer(at, len));
      at += len;
    }
    slab = fresh;
    used = at;
    garbage = 0;
  }

  static long pointer(int offset, int length) {
    return ((long) offset << 24) | length;
  }

  static int offset(long pointer) {
    return (int) (pointer >>> 24);
  }

  static int length(long pointer) {
    return (int) (pointer & MAX_LENGTH);
  }

  /** A well-mixed, order-independent contribution of one offer to the fingerprint. */
  static long mix(long keyHash, long contentHash) {
    long z = keyHash * 0x9E3779B97F4A7C15L ^ contentHash;
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return z ^ (z >>> 33);
  }

  /** An immutable view of a partition's offers, ordered by key hash. */
  record Snapshot(int partition, byte[] slab, long[] pointers, long fingerprint) {
    int size() {
      return pointers.length;
    }

    int offset(int i) {
      return PartitionState.offset(pointers[i]);
    }

    int length(int i) {
      return PartitionState.length(pointers[i]);
    }
  }
}
