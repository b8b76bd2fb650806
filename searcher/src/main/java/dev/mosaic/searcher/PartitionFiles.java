package dev.mosaic.searcher;

import java.util.TreeMap;

/**
 * The published files of one partition of a {@link PartitionStore}: every version held, and the
 * version it is pinned to (null when unpinned). Every change must be followed by {@link
 * PublishedFiles#modified}.
 *
 * <p>Thread safety: not thread safe; guarded by the store's lock.
 */
final class PartitionFiles {
  final SchemaFiles schema;
  final int partition;
  final TreeMap<Long, StoredFile> versions = new TreeMap<>();
  Long pinned;

  PartitionFiles(SchemaFiles schema, int partition) {
    this.schema = schema;
    this.partition = partition;
  }

  /** The file the partition serves: its pinned version when held, else its newest; null if none. */
  StoredFile serving() {
    if (pinned != null) {
      StoredFile f = versions.get(pinned);
      if (f != null) {
        return f;
      }
    }
    return versions.isEmpty() ? null : versions.lastEntry().getValue();
  }
}
