package dev.mosaic.transport;

import dev.mosaic.partition.PartitionFileId;
import java.util.Objects;

/**
 * The manifest's record of the latest version of one partition: its size and CRC32C, when and by
 * which node of which datacenter it was first accepted. Immutable.
 */
public record ManifestRecord(
    PartitionFileId id, long size, long crc32c, long acceptedAtMillis, String acceptedBy) {
  /** Checks the fields. */
  public ManifestRecord {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(acceptedBy, "acceptedBy");
    if (size < 0) {
      throw new IllegalArgumentException("size must be >= 0: " + size);
    }
  }
}
