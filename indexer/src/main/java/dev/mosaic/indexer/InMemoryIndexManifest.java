package dev.mosaic.indexer;

import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An {@link IndexManifest} in this JVM's memory, for benchmarks and single-process tools; versions
 * still only go up within the process, but nothing survives it.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class InMemoryIndexManifest implements IndexManifest {
  private final ConcurrentHashMap<Long, Entry> entries = new ConcurrentHashMap<>();

  @Override
  public Optional<Entry> latest(int schemaVersion, int partition) {
    return Optional.ofNullable(entries.get(key(schemaVersion, partition)));
  }

  @Override
  public boolean record(Entry entry) {
    boolean[] recorded = {false};
    entries.compute(
        key(entry.id().schemaVersion(), entry.id().partition()),
        (k, old) -> {
          if (old != null && old.id().version() >= entry.id().version()) {
            return old;
          }
          recorded[0] = true;
          return entry;
        });
    return recorded[0];
  }

  private static long key(int schemaVersion, int partition) {
    return ((long) schemaVersion << 32) | (partition & 0xffffffffL);
  }
}
