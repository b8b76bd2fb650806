package dev.mosaic.searcher;

import dev.mosaic.format.Database;
import dev.mosaic.format.Schema;
import dev.mosaic.partition.FileDigest;
import java.io.IOException;
import java.nio.file.Path;

/**
 * A verified file's schema, and its size and content checksum (the manifest's).
 *
 * <p>Thread safety: immutable.
 */
record VerifiedFile(Schema schema, FileDigest digest) {
  /**
   * Verifies a file completely (structure, and its content against the CRC32C of its trailer, in
   * one pass) and reads its digest from the trailer; throws with a precise reason.
   */
  static VerifiedFile verify(Path file) throws IOException {
    Schema schema = Database.verify(file);
    return new VerifiedFile(schema, FileDigest.ofTrailer(file));
  }
}
