package dev.mosaic.searcher;

import dev.mosaic.format.Schema;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

/**
 * The published files of one schema version of a {@link PartitionStore}: its schema, its partitions
 * and, indexed by partition, each one's serving file and newest version (kept up to date by {@link
 * PublishedFiles#modified}).
 *
 * <p>Thread safety: not thread safe; guarded by the store's lock.
 */
final class SchemaFiles {
  Schema schema;
  final Map<Integer, PartitionFiles> partitions = new HashMap<>();
  // the serving file of each partition, kept up to date by modified(), indexed by partition
  StoredFile[] serving = new StoredFile[0];

  // the newest version of each partition, -1 for none, kept up to date by modified()
  long[] latest = new long[0];

  void latest(int partition, long version) {
    if (partition >= latest.length) {
      if (version < 0) {
        return;
      }
      int from = latest.length;
      latest = Arrays.copyOf(latest, Math.max(partition + 1, latest.length * 2));
      Arrays.fill(latest, from, latest.length, -1);
    }
    latest[partition] = version;
  }

  void serve(int partition, StoredFile file) {
    if (partition >= serving.length) {
      if (file == null) {
        return;
      }
      serving = Arrays.copyOf(serving, Math.max(partition + 1, serving.length * 2));
    }
    serving[partition] = file;
  }

  boolean hasFiles() {
    for (PartitionFiles p : partitions.values()) {
      if (!p.versions.isEmpty()) {
        return true;
      }
    }
    return false;
  }

  int fileCount() {
    int n = 0;
    for (PartitionFiles p : partitions.values()) {
      n += p.versions.size();
    }
    return n;
  }
}
