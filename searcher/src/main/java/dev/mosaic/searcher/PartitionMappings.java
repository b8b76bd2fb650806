package dev.mosaic.searcher;

import dev.mosaic.format.Database;
import dev.mosaic.partition.PartitionFileId;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partition files {@link Generations} has mapped, by file, and the arenas they live in: maps a
 * file into an arena (retaining it in the store) and closes an arena (unmapping its files and
 * releasing them to the store), keeping the gauges of mapped partitions, mapped bytes and open
 * arenas.
 *
 * <p>Thread safety: not thread safe. {@link #map}, {@link #mapped}, {@link #isMapped} and {@link
 * #forget} are called under the generations' books lock; {@link #closeArena} touches only the arena
 * (which no generation uses any more) and the atomic gauges, on the unmapper thread or under the
 * books lock when a reopen fails.
 */
final class PartitionMappings {
  // logs under the generations' name: mapping is the generations' story
  private static final Logger LOG = LoggerFactory.getLogger(Generations.class);

  private final PartitionStore store;
  private final Runnable beforeArenaClose;
  private final Timer unmapTimer;
  private final AtomicLong mappedPartitions;
  private final AtomicLong mappedBytes;
  private final AtomicLong liveArenas;
  // books lock
  private final Map<PartitionFileId, MappedPartition> mapped = new HashMap<>();

  PartitionMappings(
      PartitionStore store,
      Runnable beforeArenaClose,
      Timer unmapTimer,
      AtomicLong mappedPartitions,
      AtomicLong mappedBytes,
      AtomicLong liveArenas) {
    this.store = store;
    this.beforeArenaClose = beforeArenaClose;
    this.unmapTimer = unmapTimer;
    this.mappedPartitions = mappedPartitions;
    this.mappedBytes = mappedBytes;
    this.liveArenas = liveArenas;
  }

  /** The mapping of that file, or null when it is not mapped. */
  MappedPartition mapped(PartitionFileId id) {
    return mapped.get(id);
  }

  /** Whether that file is mapped. */
  boolean isMapped(PartitionFileId id) {
    return mapped.containsKey(id);
  }

  /** Forgets the mapping of that file (no generation uses it any more, or its reopen failed). */
  void forget(PartitionFileId id) {
    mapped.remove(id);
  }

  /** A new arena, counted as open. */
  SharedArena openArena() {
    SharedArena arena = new SharedArena();
    liveArenas.incrementAndGet();
    return arena;
  }

  /**
   * Retains the file in the store and maps it into {@code arena}; null (logged) when the file left
   * the store or cannot be mapped.
   */
  MappedPartition map(StoredFile f, SharedArena arena) {
    try {
      store.retain(f.id());
    } catch (IllegalArgumentException e) {
      LOG.warn("{} left the store before it could be mapped", f.id());
      return null;
    }
    Database db;
    try {
      db = Database.map(f.path(), arena.arena(), false);
    } catch (IOException | RuntimeException e) {
      LOG.error(
          "cannot map {} ({}); the partition keeps its previous version", f.id(), f.path(), e);
      store.release(f.id());
      return null;
    }
    arena.added(f);
    MappedPartition m = new MappedPartition(f, db, arena);
    mapped.put(f.id(), m);
    mappedPartitions.incrementAndGet();
    mappedBytes.addAndGet(f.sizeInBytes());
    return m;
  }

  /** Closes the arena, unmapping its files, and releases them to the store. */
  void closeArena(SharedArena a) {
    beforeArenaClose.run();
    long t0 = System.nanoTime();
    a.close();
    if (!a.empty()) {
      unmapTimer.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
    }
    liveArenas.decrementAndGet();
    mappedPartitions.addAndGet(-a.fileCount());
    mappedBytes.addAndGet(-a.bytes());
    for (PartitionFileId id : a.files()) {
      try {
        store.release(id);
      } catch (RuntimeException e) {
        LOG.error("releasing {} to the store failed", id, e);
      }
    }
  }
}
