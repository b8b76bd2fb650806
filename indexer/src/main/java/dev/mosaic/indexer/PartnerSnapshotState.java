package dev.mosaic.indexer;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2LongMap;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import it.unimi.dsi.fastutil.objects.ObjectIterator;

/**
 * What the feed loader remembers of a partner's previous snapshot: per offer (by the hash of its
 * id), its fingerprint ({@link OfferBytes#fingerprint()}) and its index partition. Two primitive
 * maps, about 37 bytes per offer; enough to tell new, changed, moved and removed offers apart and
 * to address tombstones. Kept on disk by {@link PartnerStateFiles}.
 *
 * <p>Thread safety: not thread safe; the loader confines one partner's state to one publish at a
 * time.
 */
final class PartnerSnapshotState {
  private final Long2LongOpenHashMap fingerprints;
  private final Long2IntOpenHashMap partitions;

  PartnerSnapshotState(int expected) {
    fingerprints = new Long2LongOpenHashMap(expected);
    partitions = new Long2IntOpenHashMap(expected);
    partitions.defaultReturnValue(-1);
  }

  int size() {
    return fingerprints.size();
  }

  boolean contains(long offerHash) {
    return fingerprints.containsKey(offerHash);
  }

  long fingerprint(long offerHash) {
    return fingerprints.get(offerHash);
  }

  /** The offer's index partition, or -1 when the state does not hold it. */
  int partition(long offerHash) {
    return partitions.get(offerHash);
  }

  void put(long offerHash, long fingerprint, int partition) {
    fingerprints.put(offerHash, fingerprint);
    partitions.put(offerHash, partition);
  }

  /** Calls back for every offer: hash of its id, fingerprint and partition. */
  void forEach(OfferVisitor visitor) {
    for (ObjectIterator<Long2LongMap.Entry> it = fingerprints.long2LongEntrySet().fastIterator();
        it.hasNext(); ) {
      Long2LongMap.Entry e = it.next();
      visitor.visit(e.getLongKey(), e.getLongValue(), partitions.get(e.getLongKey()));
    }
  }

  /** One offer of a state. */
  @FunctionalInterface
  interface OfferVisitor {
    void visit(long offerHash, long fingerprint, int partition);
  }
}
