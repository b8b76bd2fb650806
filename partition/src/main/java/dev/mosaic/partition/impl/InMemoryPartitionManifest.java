package dev.mosaic.partition.impl;

import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionManifest;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.UnaryOperator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PartitionManifest} in this JVM's memory. Thread safety: safe for concurrent use (one lock;
 * listeners run on the writing thread, outside it).
 */
public final class InMemoryPartitionManifest extends CompareAndSetManifest {
  private static final Logger LOG = LoggerFactory.getLogger(InMemoryPartitionManifest.class);

  private final Map<Long, ManifestRecord> records = new HashMap<>();
  private final Map<Integer, Long> epochs = new HashMap<>();
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();

  @Override
  public void start() {}

  @Override
  public synchronized long claim(int partition, String owner) {
    Objects.requireNonNull(owner, "owner");
    return epochs.merge(partition, 1L, Long::sum);
  }

  @Override
  Update update(
      int schemaVersion, int partition, long fenceEpoch, UnaryOperator<ManifestRecord> change) {
    Update u;
    synchronized (this) {
      long key = ((long) schemaVersion << 32) | (partition & 0xffffffffL);
      ManifestRecord held = records.get(key);
      if (fenceEpoch > 0 && epochs.getOrDefault(partition, 0L) != fenceEpoch) {
        return new Update(held, false, true);
      }
      ManifestRecord next = change.apply(held);
      if (next == null) {
        return new Update(held, false, false);
      }
      records.put(key, next);
      u = new Update(next, true, false);
    }
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        LOG.warn("manifest listener failed", e);
      }
    }
    return u;
  }

  @Override
  public synchronized Optional<ManifestRecord> latest(int schemaVersion, int partition) {
    return Optional.ofNullable(
        records.get(((long) schemaVersion << 32) | (partition & 0xffffffffL)));
  }

  @Override
  public synchronized Collection<ManifestRecord> all() {
    return List.copyOf(records.values());
  }

  @Override
  public void addListener(Runnable listener) {
    listeners.add(listener);
  }

  @Override
  public void close() {}
}
