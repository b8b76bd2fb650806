package dev.mosaic.indexer;

import dev.mosaic.partition.PartitionFileId;
import it.unimi.dsi.fastutil.longs.Long2ObjectMap;
import it.unimi.dsi.fastutil.longs.Long2ObjectOpenHashMap;
import java.util.Arrays;

/**
 * The offers of one index partition, compactly. What a rebuild needs of an offer already in the
 * partition's current file (the <em>base</em>) is its key hash, a content hash and where its
 * document sits in that file: three sorted primitive arrays (plus its serialized length, for
 * accounting), about 24 bytes per offer and no offer bytes — those live in the file and in the
 * compacted offers topic. Only the changes since the base (upserted offers' bytes, removals) are
 * held as bytes, until the next rebuild carries them into a new base.
 *
 * <p>Before the first file is built (a restore) every offer is a change; a restore that finds the
 * matching file on disk {@link #adopt adopts} it as the base instead.
 *
 * <p>Also keeps an order-independent fingerprint of the content (a sum of mixed key and content
 * hashes), so a node can tell after restoring whether the partition still matches the version
 * recorded in the manifest. Two offers are the same content when their 64-bit content hashes are.
 *
 * <p>Thread safety: all methods are synchronized. A {@link Plan} stays valid and immutable after
 * the lock is released: base arrays are replaced, never written in place.
 */
final class PartitionState {
  private static final byte[] REMOVED = new byte[0];
  private static final long[] NO_LONGS = new long[0];
  private static final int[] NO_INTS = new int[0];

  private final int partition;
  private PartitionFileId base;
  private long[] keys = NO_LONGS;
  private long[] contents = NO_LONGS;
  private int[] positions = NO_INTS;
  private int[] lengths = NO_INTS;
  private final Long2ObjectOpenHashMap<byte[]> changes = new Long2ObjectOpenHashMap<>();
  private long changedBytes;
  private long fingerprint;
  private int size;
  private long liveBytes;

  PartitionState(int partition) {
    this.partition = partition;
  }

  int partition() {
    return partition;
  }

  /**
   * Stores an offer's bytes under its key hash.
   *
   * @return false when the same content was already stored (nothing changed)
   */
  synchronized boolean put(long keyHash, byte[] value) {
    long hash = ContentHash.of(value, 0, value.length);
    int i = Arrays.binarySearch(keys, keyHash);
    byte[] changed = changes.get(keyHash);
    boolean present;
    long currentHash = 0;
    int currentLength = 0;
    if (changed != null) {
      present = changed != REMOVED;
      if (present) {
        currentHash = ContentHash.of(changed, 0, changed.length);
        currentLength = changed.length;
      }
    } else {
      present = i >= 0;
      if (present) {
        currentHash = contents[i];
        currentLength = lengths[i];
      }
    }
    if (present && currentHash == hash) {
      return false;
    }
    if (present) {
      fingerprint -= mix(keyHash, currentHash);
      liveBytes -= currentLength;
    } else {
      size++;
    }
    fingerprint += mix(keyHash, hash);
    liveBytes += value.length;
    // kept as a change even when it equals the base again: a rebuild may be carrying the previous
    // change into a new base right now (see commit)
    change(keyHash, value);
    return true;
  }

  /**
   * Removes the offer under a key hash.
   *
   * @return false when there was none
   */
  synchronized boolean remove(long keyHash) {
    int i = Arrays.binarySearch(keys, keyHash);
    byte[] changed = changes.get(keyHash);
    if (changed == REMOVED || (changed == null && i < 0)) {
      return false;
    }
    long currentHash = changed != null ? ContentHash.of(changed, 0, changed.length) : contents[i];
    fingerprint -= mix(keyHash, currentHash);
    liveBytes -= changed != null ? changed.length : lengths[i];
    size--;
    change(keyHash, REMOVED);
    return true;
  }

  private void change(long keyHash, byte[] value) {
    byte[] old = changes.put(keyHash, value);
    changedBytes += value.length - (old == null ? 0 : old.length);
  }

  private void forget(long keyHash) {
    byte[] old = changes.remove(keyHash);
    if (old != null) {
      changedBytes -= old.length;
    }
  }

  /** Live offers. */
  synchronized int size() {
    return size;
  }

  synchronized long fingerprint() {
    return fingerprint;
  }

  /** Changes not yet in a built file. */
  synchronized int pendingChanges() {
    return changes.size();
  }

  /** The file the base describes, or null before the first one. */
  synchronized PartitionFileId base() {
    return base;
  }

  /** Approximate heap bytes: the base arrays, the changes' bytes and map slots. */
  synchronized long heapBytes() {
    return 24L * keys.length + changedBytes + 40L * changes.size() + 96;
  }

  /** Serialized bytes of the live offers (the raw size the state is measured against). */
  synchronized long liveBytes() {
    return liveBytes;
  }

  /** Drops the change map's growth slack (e.g. once a restore is complete). */
  synchronized void trim() {
    changes.trim();
  }

  /**
   * Takes {@code file}, built from exactly this partition's content (matching fingerprint) with one
   * document per offer in key-hash order, as the base: the offers' bytes are dropped.
   *
   * @return false, changing nothing, when the state has a base or removals already, or the file's
   *     document count is not the number of offers (some offer was left out of it)
   */
  synchronized boolean adopt(PartitionFileId file, int documents) {
    if (base != null || keys.length > 0 || documents != size) {
      return false;
    }
    long[] sorted = new long[size];
    int n = 0;
    for (Long2ObjectMap.Entry<byte[]> e : changes.long2ObjectEntrySet()) {
      if (e.getValue() != REMOVED) {
        sorted[n++] = e.getLongKey();
      }
    }
    Arrays.sort(sorted);
    long[] hashes = new long[sorted.length];
    int[] sizes = new int[sorted.length];
    int[] at = new int[sorted.length];
    for (int i = 0; i < sorted.length; i++) {
      byte[] v = changes.get(sorted[i]);
      hashes[i] = ContentHash.of(v, 0, v.length);
      sizes[i] = v.length;
      at[i] = i;
    }
    setBase(file, sorted, hashes, at, sizes);
    changes.clear();
    changes.trim();
    changedBytes = 0;
    return true;
  }

  /** The current content, for a rebuild: the base and the changes, ordered by key hash. */
  synchronized Plan plan() {
    long[] changedKeys = changes.keySet().toLongArray();
    Arrays.sort(changedKeys);
    byte[][] values = new byte[changedKeys.length][];
    for (int i = 0; i < changedKeys.length; i++) {
      byte[] v = changes.get(changedKeys[i]);
      values[i] = v == REMOVED ? null : v;
    }
    return new Plan(
        partition, base, keys, contents, positions, lengths, changedKeys, values, fingerprint);
  }

  /**
   * Makes a built (and recorded) file the base: the changes of {@code plan} are in it and their
   * bytes are dropped; changes that arrived since stay.
   */
  synchronized void commit(Plan plan, Merged merged) {
    setBase(merged.file(), merged.keys(), merged.contents(), merged.positions(), merged.lengths());
    for (int i = 0; i < plan.changedKeys().length; i++) {
      long k = plan.changedKeys()[i];
      byte[] now = changes.get(k);
      byte[] then = plan.changedValues()[i];
      if (now == then || (now == REMOVED && then == null)) {
        forget(k);
      }
    }
    if (changes.isEmpty()) {
      changes.trim(); // give back a restore's table
    }
  }

  private void setBase(PartitionFileId file, long[] k, long[] c, int[] p, int[] l) {
    base = file;
    keys = k;
    contents = c;
    positions = p;
    lengths = l;
  }

  /** A well-mixed, order-independent contribution of one offer to the fingerprint. */
  static long mix(long keyHash, long contentHash) {
    long z = keyHash * 0x9E3779B97F4A7C15L ^ contentHash;
    z = (z ^ (z >>> 33)) * 0xff51afd7ed558ccdL;
    z = (z ^ (z >>> 33)) * 0xc4ceb9fe1a85ec53L;
    return z ^ (z >>> 33);
  }

  /**
   * An immutable view of a partition for a rebuild: the base (sorted key hashes, content hashes,
   * document positions in the base file or -1 when left out of it, serialized lengths) and the
   * changes since (sorted key hashes, the new bytes or null for a removal).
   */
  record Plan(
      int partition,
      PartitionFileId base,
      long[] keys,
      long[] contents,
      int[] positions,
      int[] lengths,
      long[] changedKeys,
      byte[][] changedValues,
      long fingerprint) {}

  /** The base a rebuild produced, in the form {@link #commit} takes. */
  record Merged(
      PartitionFileId file, long[] keys, long[] contents, int[] positions, int[] lengths) {}
}
