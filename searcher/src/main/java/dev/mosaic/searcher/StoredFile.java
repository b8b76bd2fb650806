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
 * @param crc32 CRC32 of the whole file, to tell versions and copies apart (not CRC32C: the format's
 *     trailer ends with the CRC32C of the bytes before it, so the CRC32C of a whole intact file is
 *     the same constant for every file)
 * @param publishedAt when the file was published (its modification time after a restart)
 * @param schema the schema read from the file
 */
public record StoredFile(
    PartitionFileId id,
    Path path,
    long sizeInBytes,
    long crc32,
    Instant publishedAt,
    Schema schema) {

  /** The checksum as 8 lowercase hex digits. */
  public String crc32Hex() {
    return String.format("%08x", crc32);
  }
}
