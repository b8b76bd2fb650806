package dev.mosaic.partition;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * A {@link FileDigest} computed while a partition file streams by, in one pass: the CRC32C of every
 * byte but the last 8 (the trailer), checked on {@link #finish()} against the CRC32C the trailer
 * holds (a little-endian u32 at {@code length - 8}, format/FORMAT.md).
 *
 * <p>Thread safety: not thread-safe; one stream at a time.
 */
public final class StreamingDigest {
  /** Bytes at the end of a partition file that its content checksum does not cover. */
  public static final int TRAILER_BYTES = 8;

  private final CRC32C crc = new CRC32C();
  private final byte[] held = new byte[TRAILER_BYTES];
  private int heldLength;
  private long size;

  /** Adds the bytes from {@code b}'s position to its limit (the position advances to the limit). */
  public void update(ByteBuffer b) {
    int n = b.remaining();
    size += n;
    if (n >= TRAILER_BYTES) {
      crc.update(held, 0, heldLength);
      ByteBuffer body = b.slice(b.position(), n - TRAILER_BYTES);
      crc.update(body);
      b.position(b.limit() - TRAILER_BYTES);
      b.get(held, 0, TRAILER_BYTES);
      heldLength = TRAILER_BYTES;
      return;
    }
    // fewer than 8 new bytes: the oldest held bytes leave the tail for the checksum
    byte[] joined = new byte[heldLength + n];
    System.arraycopy(held, 0, joined, 0, heldLength);
    b.get(joined, heldLength, n);
    int out = Math.max(0, joined.length - TRAILER_BYTES);
    crc.update(joined, 0, out);
    heldLength = joined.length - out;
    System.arraycopy(joined, out, held, 0, heldLength);
  }

  /** Adds {@code length} bytes of {@code bytes} from {@code offset}. */
  public void update(byte[] bytes, int offset, int length) {
    update(ByteBuffer.wrap(bytes, offset, length));
  }

  /** Bytes seen so far. */
  public long size() {
    return size;
  }

  /**
   * The digest of the bytes seen.
   *
   * @throws MismatchException when fewer than a trailer's bytes were seen, or the content's CRC32C
   *     differs from the trailer's (the message gives both)
   */
  public FileDigest finish() throws MismatchException {
    if (size < TRAILER_BYTES) {
      throw new MismatchException(size + " bytes, shorter than a partition file's trailer");
    }
    if (held[4] != 'M' || held[5] != 'E' || held[6] != 'N' || held[7] != 'D') {
      throw new MismatchException(
          "the " + size + " bytes do not end with a partition file trailer (marker MEND)");
    }
    long trailer =
        Integer.toUnsignedLong(ByteBuffer.wrap(held).order(ByteOrder.LITTLE_ENDIAN).getInt(0));
    long content = crc.getValue();
    if (content != trailer) {
      throw new MismatchException(
          String.format(
              "content of %d bytes has crc32c=%08x but its trailer says %08x",
              size - TRAILER_BYTES, content, trailer));
    }
    return new FileDigest(size, content);
  }

  /** The streamed bytes are not an intact partition file. */
  public static final class MismatchException extends Exception {
    MismatchException(String message) {
      super(message);
    }
  }
}
