package dev.mosaic.searcher;

import dev.mosaic.partition.PartitionFileId;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The published files a {@link PartitionStore} holds, by schema version and partition, and the
 * count of their changes that tells when the {@link Snapshots derived maps} are stale.
 *
 * <p>Thread safety: not thread safe; guarded by the store's lock (every caller holds it).
 */
final class PublishedFiles {
  private final Map<Integer, SchemaFiles> schemas = new HashMap<>();
  // changes of the held files, and the maps derived since the last one
  private long modifications;
  private Snapshots snapshots = new Snapshots(-1);

  /** The files of every schema version held so far, by schema version (live, not a copy). */
  Map<Integer, SchemaFiles> bySchemaVersion() {
    return schemas;
  }

  /** The files of a schema version, or null when none was ever held. */
  SchemaFiles schema(int schemaVersion) {
    return schemas.get(schemaVersion);
  }

  /** The files of a schema version, created empty when missing. */
  SchemaFiles schemaOrCreate(int schemaVersion) {
    return schemas.computeIfAbsent(schemaVersion, k -> new SchemaFiles());
  }

  /** The files of a partition, created empty when missing and {@code create}, else null. */
  PartitionFiles partitionFiles(int schemaVersion, int partition, boolean create) {
    SchemaFiles s = create ? schemaOrCreate(schemaVersion) : schemas.get(schemaVersion);
    if (s == null) {
      return null;
    }
    return create
        ? s.partitions.computeIfAbsent(partition, k -> new PartitionFiles(s, k))
        : s.partitions.get(partition);
  }

  /** The stored file of that id, if held. */
  Optional<StoredFile> storedFile(PartitionFileId id) {
    SchemaFiles s = schemas.get(id.schemaVersion());
    if (s == null) {
      return Optional.empty();
    }
    PartitionFiles p = s.partitions.get(id.partition());
    return p == null ? Optional.empty() : Optional.ofNullable(p.versions.get(id.version()));
  }

  /** Number of published files held, over all schema versions. */
  int fileCount() {
    return schemas.values().stream().mapToInt(SchemaFiles::fileCount).sum();
  }

  /**
   * Records a change of {@code p}'s files: the next {@link PartitionStore#servingFiles}, {@link
   * PartitionStore#servingArray} and {@link PartitionStore#latestVersions} derive their answers
   * again. Every change of a {@link PartitionFiles} must call it (with the lock held).
   */
  void modified(PartitionFiles p) {
    modifications++;
    p.schema.serve(p.partition, p.serving());
    p.schema.latest(p.partition, p.versions.isEmpty() ? -1 : p.versions.lastKey());
  }

  /** The maps derived since the last change (with the lock held). */
  Snapshots snapshots() {
    if (snapshots.at != modifications) {
      snapshots = new Snapshots(modifications);
    }
    return snapshots;
  }
}
