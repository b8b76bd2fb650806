package dev.mosaic.searcher;

import dev.mosaic.format.Schema;
import dev.mosaic.partition.PartitionFileId;
import java.nio.file.Path;
import java.time.Instant;

/**
 * One published, verified partition file held by a {@link PartitionStore}.
 *
 * <p>Thread safety: immutable.
 *
 * @param id schema version, partition and version
 * @param path where the file lives
 * @param sizeInBytes the file size
 * @param crc32c the CRC32C of the file's content (every byte before its trailer, which holds it):
 *     the checksum the version manifest records, so a held file and its manifest record compare
 *     directly
 * @param publishedAt when the file was published (its modification time after a restart)
 * @param schema the schema read from the file
 */
public record StoredFile(
    PartitionFileId id,
    Path path,
    long sizeInBytes,
    long crc32c,
    Instant publishedAt,
    Schema schema) {

  /** The checksum as 8 lowercase hex digits. */
  public String crc32cHex() {
    return String.format("%08x", crc32c);
  }
}
