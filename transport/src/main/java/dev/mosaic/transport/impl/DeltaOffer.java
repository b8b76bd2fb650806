package dev.mosaic.transport.impl;

import dev.mosaic.partition.ChangeSetFile;
import java.util.zip.CRC32C;

/**
 * A version offered as a change set: the base version it applies to, the encoded change set (the
 * format's {@code ChangeSet}), its CRC32C, and the trailer CRC32C of the file it rebuilds (the
 * partition module's {@code FileDigest.ofTrailer}: the content CRC32C the manifest also records).
 *
 * <p>Thread safety: immutable (the array is never modified once made).
 */
record DeltaOffer(long baseVersion, byte[] changes, long crc32c, long contentCrc32c) {

  /** The offer of a change set kept beside a file whose trailer CRC32C is {@code contentCrc32c}. */
  static DeltaOffer of(ChangeSetFile file, long contentCrc32c) {
    return of(file.baseVersion(), file.changes(), contentCrc32c);
  }

  static DeltaOffer of(long baseVersion, byte[] changes, long contentCrc32c) {
    CRC32C crc = new CRC32C();
    crc.update(changes);
    return new DeltaOffer(baseVersion, changes, crc.getValue(), contentCrc32c);
  }

  /**
   * Whether shipping this change set instead of a file of {@code fileSize} bytes is worth it: it
   * must build on an older version and be well under the file's size (a rebuild costs the receiver
   * a merge; a change set near the file's size saves nothing).
   */
  boolean worthIt(long version, long fileSize) {
    return baseVersion < version && changes.length < fileSize / 2;
  }
}
