package dev.mosaic.indexer;

import it.unimi.dsi.fastutil.longs.Long2LongMap;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.objects.ObjectIterator;

/**
 * What the feed loader remembers of a partner's previous snapshot: per offer (by the hash of its
 * id), one long packing the high 48 bits of its fingerprint ({@link OfferBytes#fingerprint()}) and
 * its index partition in the low 16 bits. One primitive map, about 21 bytes per offer at fastutil's
 * default load factor; enough to tell new, changed, moved and removed offers apart and to address
 * tombstones. Kept on disk by {@link PartnerStateFiles}.
 *
 * <p>Index partitions must be below {@value #MAX_PARTITIONS}. A change escapes the diff only if the
 * 48 fingerprint bits of the old and new content collide (about 2^-48 per changed offer).
 *
 * <p>Thread safety: not thread safe; the loader confines one partner's state to one publish at a
 * time.
 */
final class PartnerSnapshotState {
  /** Partitions are stored in 15 bits, so no entry equals the map's "absent" value -1. */
  static final int MAX_PARTITIONS = 1 << 15;

  private static final long PARTITION_BITS = 0xFFFFL;

  /** What {@link #entry(long)} returns for an offer the state does not hold. */
  static final long ABSENT = -1L;

  private final Long2LongOpenHashMap entries;

  /** {@link OfferDigests#hash()} of the snapshot this state was made from, when known. */
  private long digestsHash;

  private boolean digestsHashKnown;

  PartnerSnapshotState(int expected) {
    entries = new Long2LongOpenHashMap(expected);
    entries.defaultReturnValue(ABSENT);
  }

  /** The packed entry of a fingerprint and a partition. */
  static long entry(long fingerprint, int partition) {
    if (partition < 0 || partition >= MAX_PARTITIONS) {
      throw new IllegalArgumentException(
          "index partition " + partition + " is outside [0, " + MAX_PARTITIONS + ")");
    }
    return (fingerprint & ~PARTITION_BITS) | partition;
  }

  /** The partition of a packed entry. */
  static int partitionOf(long entry) {
    return (int) (entry & PARTITION_BITS);
  }

  int size() {
    return entries.size();
  }

  /** Notes that this state was made from a snapshot with these {@link OfferDigests#hash()}. */
  void madeFrom(long digestsHash) {
    this.digestsHash = digestsHash;
    this.digestsHashKnown = true;
  }

  /**
   * Whether this state is known to be made from a snapshot whose offers' digests are {@code
   * digests}' ({@link OfferDigests#hash()}): diffing that snapshot against it would change nothing.
   * Not known for a state read back from disk or rebuilt from the topic.
   */
  boolean madeFromTheSameDigests(OfferDigests digests) {
    return digestsHashKnown && digestsHash == digests.hash();
  }

  boolean contains(long offerHash) {
    return entries.containsKey(offerHash);
  }

  /** The offer's packed entry, or -1 when the state does not hold it. */
  long entry(long offerHash) {
    return entries.get(offerHash);
  }

  /** The offer's index partition, or -1 when the state does not hold it. */
  int partition(long offerHash) {
    long e = entries.get(offerHash);
    return e == ABSENT ? -1 : partitionOf(e);
  }

  void put(long offerHash, long fingerprint, int partition) {
    entries.put(offerHash, entry(fingerprint, partition));
  }

  /** Puts an entry made by {@link #entry(long, int)} (or read back from a state file). */
  void putEntry(long offerHash, long entry) {
    checkEntry(entry);
    entries.put(offerHash, entry);
  }

  private static void checkEntry(long entry) {
    if (entry == ABSENT || partitionOf(entry) >= MAX_PARTITIONS) {
      throw new IllegalArgumentException("not a state entry: " + Long.toHexString(entry));
    }
  }

  /**
   * Puts an entry made by {@link #entry(long, int)} unless the state already holds the offer.
   *
   * @return whether it was put (false: the offer was there, its entry is unchanged)
   */
  boolean putIfAbsent(long offerHash, long entry) {
    checkEntry(entry);
    return entries.putIfAbsent(offerHash, entry) == ABSENT;
  }

  /** Forgets an offer. */
  void remove(long offerHash) {
    entries.remove(offerHash);
  }

  /** Calls back for every offer: hash of its id and packed entry. */
  void forEach(OfferVisitor visitor) {
    for (ObjectIterator<Long2LongMap.Entry> it = entries.long2LongEntrySet().fastIterator();
        it.hasNext(); ) {
      Long2LongMap.Entry e = it.next();
      visitor.visit(e.getLongKey(), e.getLongValue());
    }
  }

  /** One offer of a state. */
  @FunctionalInterface
  interface OfferVisitor {
    void visit(long offerHash, long entry);
  }
}
