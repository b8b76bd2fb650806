package dev.mosaic.partition;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Size and CRC32C of a whole file, as the manifest records and the transport announces them.
 * Immutable.
 */
public record FileDigest(long size, long crc32c) {

  /** Reads the file once. */
  public static FileDigest of(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      CRC32C crc = new CRC32C();
      ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
      long size = 0;
      int n;
      while ((n = ch.read(buf)) >= 0) {
        buf.flip();
        crc.update(buf);
        buf.clear();
        size += n;
      }
      return new FileDigest(size, crc.getValue());
    }
  }
}
