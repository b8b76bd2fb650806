package dev.mosaic.indexer;

import dev.mosaic.partition.PartitionFileId;
import java.nio.file.Path;

/**
 * Told about every partition file an {@link IndexerNode} wrote and recorded in the manifest, right
 * before it is handed to the sender.
 *
 * <p>Thread safety: called from rebuild threads, concurrently for different partitions;
 * implementations must be thread safe and quick. NOTE: an exception thrown here is logged and
 * otherwise ignored.
 */
@FunctionalInterface
public interface RebuildListener {
  /** A new version of a partition was written to {@code file} with {@code documents} documents. */
  void rebuilt(PartitionFileId id, Path file, int documents);
}
