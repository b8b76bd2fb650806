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
  private final SortedMap<Integer, MappedPartition> partitions;
  private final Instant createdAt;
  private final Generations owner;
  private final AtomicInteger references = new AtomicInteger(1);
  private final Map<Database, Integer> partitionByDatabase = new IdentityHashMap<>();
  // files(), derived once on first use: status pages, health and pollers ask for it many times
  private volatile SortedMap<Integer, PartitionFileId> files;

  Generation(
      long id,
      CompositeDatabase database,
      SortedMap<Integer, MappedPartition> partitions,
      Instant createdAt,
      Generations owner) {
    this.id = id;
    this.database = database;
    this.partitions = Collections.unmodifiableSortedMap(new TreeMap<>(partitions));
    this.createdAt = createdAt;
    this.owner = owner;
    partitions.forEach((p, m) -> partitionByDatabase.put(m.database(), p));
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
      partitions.forEach((p, m) -> out.put(p, m.file().id()));
      f = Collections.unmodifiableSortedMap(out);
      files = f;
    }
    return f;
  }

  /** How many partitions this generation serves. */
  public int partitionCount() {
    return partitions.size();
  }

  /** The partition id of a partition database of this generation, or -1 when it is not one. */
  public int partitionOf(Database database) {
    Integer p = partitionByDatabase.get(database);
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

  SortedMap<Integer, MappedPartition> mappedPartitions() {
    return partitions;
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
        + partitions.size()
        + ", refs="
        + references.get()
        + "}";
  }
}
