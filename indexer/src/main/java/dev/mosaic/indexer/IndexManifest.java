package dev.mosaic.indexer;

import dev.mosaic.partition.PartitionFileId;
import java.io.IOException;
import java.util.Optional;

/**
 * Where indexers record the newest version of every partition, per schema version. It is what makes
 * versions go up across restarts and failover: a node taking over a partition continues above the
 * recorded version, and {@link #record} refuses anything not newer than what is there.
 *
 * <p>Thread safety: implementations are safe for concurrent use, also from several processes
 * (recording is a compare-and-set).
 */
public interface IndexManifest {

  /** The newest recorded version of a partition under a schema version, if any. */
  Optional<Entry> latest(int schemaVersion, int partition) throws IOException;

  /**
   * Records a new version if it is newer than the recorded one (atomically).
   *
   * @return false, recording nothing, when a version at least as new is already recorded (another
   *     node owns the partition now)
   */
  boolean record(Entry entry) throws IOException;

  /**
   * One recorded partition version.
   *
   * @param id schema version, partition and version
   * @param fingerprint order-independent hash of the offers the file was built from
   * @param documents number of documents in the file
   * @param createdAtMillis when the file was built
   */
  record Entry(PartitionFileId id, long fingerprint, int documents, long createdAtMillis) {}
}
