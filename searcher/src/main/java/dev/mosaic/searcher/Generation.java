package dev.mosaic.searcher;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.partition.PartitionFileId;
import java.time.Instant;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * One immutable view of the searcher's data: the composite database of the chosen version of every
 * partition, with a monotonic id. Obtain it with {@link Generations#acquire()} and release it by
 * closing it, exactly once per acquire:
 *
 * <pre>{@code
 * try (Generation g = generations.acquire()) {
 *   long n = g.database().count(query);
 * }
 * }</pre>
 *
 * <p>A query that holds a generation sees the same partitions from start to end; their memory stays
 * mapped until the last holder of the last generation using them has released it.
 *
 * <p>Thread safety: safe to share and query concurrently. NOTE: every {@link #close()} releases one
 * reference: closing twice for one acquire releases someone else's reference, and the partitions
 * may be unmapped under a running query (which then fails with {@link IllegalStateException}, never
 * crashes). Never use the generation or anything read from it (payload views) after closing.
 */
public final class Generation implements AutoCloseable {
  private final long id;
  private final CompositeDatabase database;
  // the partitions ascending, and the mapped file of each at the same index
  private final int[] partitionIds;
  private final MappedPartition[] mapped;
  private final StoredFile[] servedFrom;
  private final Instant createdAt;
  private final Generations owner;
  private final AtomicInteger references = new AtomicInteger(1);
  // derived once on first use: status pages, health and pollers ask for them many times, searches
  // for the partition of every hit; a reopen derives neither
  private volatile SortedMap<Integer, PartitionFileId> files;
  private volatile Map<Database, Integer> partitionByDatabase;

  /**
   * @param partitionIds the partitions, ascending
   * @param mapped the mapped file of each partition, at the same index (the arrays are taken over)
   * @param servedFrom the store's {@link PartitionStore#servingArray} this generation was built
   *     from: while the store returns the same array, nothing changed
   */
  Generation(
      long id,
      CompositeDatabase database,
      int[] partitionIds,
      MappedPartition[] mapped,
      StoredFile[] servedFrom,
      Instant createdAt,
      Generations owner) {
    if (partitionIds.length != mapped.length) {
      throw new IllegalArgumentException(
          partitionIds.length + " partitions for " + mapped.length + " mapped files");
    }
    this.id = id;
    this.database = database;
    this.partitionIds = partitionIds;
    this.mapped = mapped;
    this.servedFrom = servedFrom;
    this.createdAt = createdAt;
    this.owner = owner;
  }

  /** The generation id, increasing with every reopen that changed something. */
  public long id() {
    return id;
  }

  /** The composite database of this generation, partitions in ascending partition order. */
  public CompositeDatabase database() {
    return database;
  }

  /** When this generation was opened. */
  public Instant createdAt() {
    return createdAt;
  }

  /**
   * The file each partition serves in this generation, by partition (unmodifiable). Derived once
   * per generation (racing first callers may both derive it; the results are equal).
   */
  public SortedMap<Integer, PartitionFileId> files() {
    SortedMap<Integer, PartitionFileId> f = files;
    if (f == null) {
      SortedMap<Integer, PartitionFileId> out = new TreeMap<>();
      for (int i = 0; i < mapped.length; i++) {
        out.put(partitionIds[i], mapped[i].file().id());
      }
      f = Collections.unmodifiableSortedMap(out);
      files = f;
    }
    return f;
  }

  /** How many partitions this generation serves. */
  public int partitionCount() {
    return mapped.length;
  }

  /** The partition at {@code index} (0 ≤ index &lt; {@link #partitionCount()}), ascending. */
  public int partitionAt(int index) {
    return partitionIds[index];
  }

  /** The file the partition at {@code index} serves. */
  public PartitionFileId fileAt(int index) {
    return mapped[index].file().id();
  }

  /** The partition id of a partition database of this generation, or -1 when it is not one. */
  public int partitionOf(Database database) {
    Map<Database, Integer> byDatabase = partitionByDatabase;
    if (byDatabase == null) {
      byDatabase = new IdentityHashMap<>(mapped.length * 2);
      for (int i = 0; i < mapped.length; i++) {
        byDatabase.put(mapped[i].database(), partitionIds[i]);
      }
      partitionByDatabase = byDatabase; // racing first callers derive equal maps
    }
    Integer p = byDatabase.get(database);
    return p == null ? -1 : p;
  }

  /** Current number of references (the searcher's own while current, plus one per holder). */
  public int referenceCount() {
    return references.get();
  }

  /** Releases the reference obtained by {@link Generations#acquire()}. */
  @Override
  public void close() {
    decRef();
  }

  /** The mapped file of the partition at {@code index}. */
  MappedPartition mappedAt(int index) {
    return mapped[index];
  }

  /** The store's serving array this generation was built from. */
  StoredFile[] servedFrom() {
    return servedFrom;
  }

  boolean tryIncRef() {
    while (true) {
      int n = references.get();
      if (n <= 0) {
        return false;
      }
      if (references.compareAndSet(n, n + 1)) {
        return true;
      }
    }
  }

  void decRef() {
    int n = references.decrementAndGet();
    if (n == 0) {
      owner.retire(this);
    } else if (n < 0) {
      throw new IllegalStateException(
          "generation " + id + " released more often than acquired (reference count " + n + ")");
    }
  }

  @Override
  public String toString() {
    return "Generation{id="
        + id
        + ", partitions="
        + mapped.length
        + ", refs="
        + references.get()
        + "}";
  }
}
