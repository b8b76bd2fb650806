package dev.mosaic.transport.impl;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The CRC32C a partition file's trailer holds (format/FORMAT.md: a u32 at {@code length - 8},
 * covering every byte before it), read in O(1). A rebuilt file is checked against it because the
 * CRC32C of a whole partition file is the same for every file (a CRC over data followed by its own
 * CRC is a constant), so only the trailer's tells two files of one size apart; the store's
 * verification then proves the trailer matches the content. Not instantiable.
 */
final class FileChecksum {
  private FileChecksum() {}

  /** The trailer CRC32C of a partition file. */
  static long of(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size < 16) {
        throw new EOFException(file + " has " + size + " bytes, shorter than a trailer");
      }
      ByteBuffer b = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN);
      while (b.hasRemaining()) {
        if (ch.read(b, size - 8 + b.position()) < 0) {
          throw new EOFException(file + " ended while reading its trailer");
        }
      }
      return Integer.toUnsignedLong(b.getInt(0));
    }
  }
}
