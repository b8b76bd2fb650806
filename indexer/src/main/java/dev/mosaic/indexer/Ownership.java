package dev.mosaic.indexer;

import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Which index partitions a node owns right now, their state and their ownership epochs. A node owns
 * the index partitions {@code p ≡ k (mod K)} of every Kafka partition k assigned to it; it may
 * record versions of a partition only with the epoch it claimed when the partition was assigned.
 *
 * <p>Thread safety: safe for concurrent use; the consumer thread assigns and drops, rebuild and
 * delivery threads read. A rebuild holding a {@link PartitionState} checks {@link #holds} to learn
 * whether the partition was dropped (and maybe re-assigned) meanwhile.
 */
final class Ownership {
  private final int partitions;
  private volatile int kafkaPartitions = 1;
  private final ConcurrentHashMap<Integer, PartitionState> states = new ConcurrentHashMap<>();
  private final ConcurrentHashMap<Integer, Long> epochs = new ConcurrentHashMap<>();
  private final Set<Integer> restoredKafkaPartitions = ConcurrentHashMap.newKeySet();

  Ownership(int partitions) {
    this.partitions = partitions;
  }

  void kafkaPartitions(int k) {
    this.kafkaPartitions = k;
  }

  int kafkaPartitions() {
    return kafkaPartitions;
  }

  /** The index partitions of Kafka partition {@code k}, ascending. */
  int[] indexPartitionsOf(int k) {
    int n = k < partitions ? (partitions - 1 - k) / kafkaPartitions + 1 : 0;
    int[] ps = new int[n];
    for (int i = 0, p = k; p < partitions; p += kafkaPartitions, i++) {
      ps[i] = p;
    }
    return ps;
  }

  /** Takes Kafka partition {@code k}: fresh, empty state for its index partitions, no epochs. */
  void assign(int k) {
    for (int p : indexPartitionsOf(k)) {
      states.put(p, new PartitionState(p));
      epochs.remove(p);
    }
  }

  /**
   * Starts Kafka partition {@code k} over (a restore from the topic): fresh, empty state for its
   * index partitions, which count as not restored; the epochs stay (the node still owns them).
   */
  void reset(int k) {
    restoredKafkaPartitions.remove(k);
    for (int p : indexPartitionsOf(k)) {
      if (states.containsKey(p)) {
        states.put(p, new PartitionState(p));
      }
    }
  }

  /** Gives Kafka partition {@code k} up: its state and epochs are dropped. */
  void drop(int k) {
    restoredKafkaPartitions.remove(k);
    for (int p : indexPartitionsOf(k)) {
      states.remove(p);
      epochs.remove(p);
    }
  }

  /** The state of an owned partition, or null. */
  PartitionState state(int p) {
    return states.get(p);
  }

  /** True while {@code state} is still the partition's state (not dropped or replaced). */
  boolean holds(int p, PartitionState state) {
    return states.get(p) == state;
  }

  void claimed(int p, long epoch) {
    if (states.containsKey(p)) {
      epochs.put(p, epoch);
    }
  }

  /** The epoch this node claimed for an owned partition; 0 when none (not owned, not claimed). */
  long epoch(int p) {
    return epochs.getOrDefault(p, 0L);
  }

  void restored(int k) {
    restoredKafkaPartitions.add(k);
  }

  boolean isRestored(int k) {
    return restoredKafkaPartitions.contains(k);
  }

  boolean anyRestored() {
    return !restoredKafkaPartitions.isEmpty();
  }

  /** Owned and restored index partitions, ascending. */
  SortedSet<Integer> restoredPartitions() {
    SortedSet<Integer> owned = new TreeSet<>();
    for (int k : restoredKafkaPartitions) {
      for (int p : indexPartitionsOf(k)) {
        owned.add(p);
      }
    }
    return owned;
  }

  long offers() {
    long n = 0;
    for (PartitionState s : states.values()) {
      n += s.size();
    }
    return n;
  }

  long stateBytes() {
    long n = 0;
    for (PartitionState s : states.values()) {
      n += s.heapBytes();
    }
    return n;
  }

  long rawOfferBytes() {
    long n = 0;
    for (PartitionState s : states.values()) {
      n += s.liveBytes();
    }
    return n;
  }

  void clear() {
    states.clear();
    epochs.clear();
    restoredKafkaPartitions.clear();
  }
}
