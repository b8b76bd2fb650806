package dev.mosaic.api.feedfile;

import java.io.IOException;

/**
 * A snapshot file that cannot be read as a whole: no or a bad header, an unknown extension, or a
 * delimited Protobuf file whose framing is broken (a truncated file). Nothing of it may be
 * published: a full snapshot missing its tail would remove the offers it lost.
 */
public final class MalformedSnapshotFileException extends IOException {
  /** An exception with that message, which names the file. */
  public MalformedSnapshotFileException(String message) {
    super(message);
  }

  /** An exception with that message, which names the file, and its cause. */
  public MalformedSnapshotFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
