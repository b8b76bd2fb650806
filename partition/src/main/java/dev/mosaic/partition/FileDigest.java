package dev.mosaic.partition;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * Size and content checksum of a partition file, as the manifest records and the transport
 * announces them: {@code crc32c} is the CRC32C of every byte before the file's 8-byte trailer, the
 * value the trailer itself holds (format/FORMAT.md). Immutable.
 *
 * <p>NOTE: not the CRC32C of the whole file. The trailer ends with the CRC32C of the bytes before
 * it, and a CRC over data followed by its own CRC is the same constant for every input, so a
 * whole-file CRC32C of an intact partition file tells nothing but its size.
 */
public record FileDigest(long size, long crc32c) {
  /** Largest read buffer of {@link #of(Path)}. */
  private static final long READ_BUFFER_BYTES = 1 << 20;

  /**
   * Reads the file once and checks it: the CRC32C of its content must equal its trailer's.
   *
   * @throws IOException when the file cannot be read, is shorter than a trailer, or its content
   *     does not match its trailer (the message names the file and both checksums)
   */
  public static FileDigest of(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      StreamingDigest digest = new StreamingDigest();
      // a heap buffer no larger than the file: a new direct buffer is zeroed on allocation and
      // freed only by a later GC, and at one per received file that was a quarter of the CPU of
      // applying a change set to a partition of 120 KB
      ByteBuffer buf = ByteBuffer.allocate((int) Math.clamp(ch.size(), 1, READ_BUFFER_BYTES));
      while (ch.read(buf) >= 0) {
        buf.flip();
        digest.update(buf);
        buf.clear();
      }
      try {
        return digest.finish();
      } catch (StreamingDigest.MismatchException e) {
        throw new IOException(file + ": " + e.getMessage(), e);
      }
    }
  }

  /**
   * Reads only the file's size and trailer, in O(1), without checking that the content matches the
   * trailer: for a sender, whose receivers check the content while the bytes stream in.
   *
   * @throws IOException when the file cannot be read or does not end with a partition file trailer
   */
  public static FileDigest ofTrailer(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size < StreamingDigest.TRAILER_BYTES) {
        throw new IOException(
            file + ": " + size + " bytes, shorter than a partition file's trailer");
      }
      ByteBuffer tail =
          ByteBuffer.allocate(StreamingDigest.TRAILER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
      while (tail.hasRemaining()) {
        if (ch.read(tail, size - StreamingDigest.TRAILER_BYTES + tail.position()) < 0) {
          throw new IOException(file + " ended while its trailer was read");
        }
      }
      if (tail.get(4) != 'M' || tail.get(5) != 'E' || tail.get(6) != 'N' || tail.get(7) != 'D') {
        throw new IOException(file + ": does not end with a partition file trailer (marker MEND)");
      }
      return new FileDigest(size, Integer.toUnsignedLong(tail.getInt(0)));
    }
  }

  /** The record's digest. */
  public static FileDigest of(ManifestRecord record) {
    return new FileDigest(record.size(), record.crc32c());
  }

  /** Whether this digest and the record name the same content. */
  public boolean matches(ManifestRecord record) {
    return size == record.size() && crc32c == record.crc32c();
  }

  @Override
  public String toString() {
    return "size=" + size + " crc32c=" + String.format("%08x", crc32c);
  }
}
