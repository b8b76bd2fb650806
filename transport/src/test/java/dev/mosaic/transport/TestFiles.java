package dev.mosaic.transport;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.zip.CRC32C;

/**
 * Stand-in partition files for transport tests: random bytes with a trailer holding the CRC32C of
 * all bytes before it, and the matching verifier (what the format's reader does for real files).
 */
final class TestFiles {
  private TestFiles() {}

  static Path write(Path file, long size, long seed) throws IOException {
    Files.createDirectories(file.getParent());
    Random random = new Random(seed);
    CRC32C crc = new CRC32C();
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      byte[] chunk = new byte[64 * 1024];
      long remaining = size - 8;
      while (remaining > 0) {
        int n = (int) Math.min(chunk.length, remaining);
        random.nextBytes(chunk);
        crc.update(chunk, 0, n);
        ch.write(ByteBuffer.wrap(chunk, 0, n));
        remaining -= n;
      }
      ch.write(ByteBuffer.allocate(8).putLong(0, crc.getValue()));
    }
    return file;
  }

  /** Throws {@link RejectedFileException} unless the trailer matches the bytes. */
  static void verify(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size < 8) {
        throw new RejectedFileException("corrupt partition file " + file + ": " + size + " bytes");
      }
      CRC32C crc = new CRC32C();
      ByteBuffer buf = ByteBuffer.allocate(64 * 1024);
      long remaining = size - 8;
      while (remaining > 0) {
        buf.clear().limit((int) Math.min(buf.capacity(), remaining));
        int n = ch.read(buf);
        buf.flip();
        crc.update(buf);
        remaining -= n;
      }
      ByteBuffer trailer = ByteBuffer.allocate(8);
      ch.read(trailer, size - 8);
      if (trailer.getLong(0) != crc.getValue()) {
        throw new RejectedFileException(
            "corrupt partition file " + file + ": trailer checksum mismatch");
      }
    }
  }
}
