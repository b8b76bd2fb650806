package dev.mosaic.indexer;

/**
 * A cursor over protobuf wire-format bytes, reading one field at a time without building messages:
 * tags, varints, lengths, and skipping a field's value. Just enough to walk the top-level fields of
 * a {@code FeedSnapshot} or an {@code Offer} (proto3, no groups).
 *
 * <p>Errors are {@link MalformedWireException}s naming the byte position and what was wrong.
 *
 * <p>Thread safety: not thread safe; one cursor per thread, reusable through {@link #reset}.
 */
final class WireReader {
  static final int VARINT = 0;
  static final int FIXED64 = 1;
  static final int LENGTH_DELIMITED = 2;
  static final int FIXED32 = 5;

  private byte[] buffer;
  private int pos;
  private int limit;

  /** Points the cursor at {@code length} bytes of {@code buffer} from {@code offset}. */
  WireReader reset(byte[] buffer, int offset, int length) {
    if (offset < 0 || length < 0 || offset + length > buffer.length) {
      throw new IndexOutOfBoundsException(
          "range " + offset + "+" + length + " of " + buffer.length + " bytes");
    }
    this.buffer = buffer;
    this.pos = offset;
    this.limit = offset + length;
    return this;
  }

  boolean atEnd() {
    return pos >= limit;
  }

  /** The position of the next unread byte (in the whole buffer). */
  int position() {
    return pos;
  }

  /** Reads a tag: field number {@code << 3 |} wire type. */
  int readTag() {
    int at = pos;
    long tag = readVarint();
    if (tag >>> 3 == 0 || tag > Integer.MAX_VALUE) {
      throw new MalformedWireException("invalid tag " + tag + " at byte " + at);
    }
    return (int) tag;
  }

  /** Reads a varint (up to 10 bytes). */
  long readVarint() {
    long result = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos >= limit) {
        throw new MalformedWireException("truncated varint at byte " + pos);
      }
      byte b = buffer[pos++];
      result |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        return result;
      }
    }
    throw new MalformedWireException("varint longer than 10 bytes before byte " + pos);
  }

  /**
   * Reads the length of a length-delimited value and checks that it fits.
   *
   * @return the length; the value starts at {@link #position()}
   */
  int readLength() {
    int at = pos;
    long length = readVarint();
    if (length < 0 || length > limit - pos) {
      throw new MalformedWireException(
          "length "
              + length
              + " at byte "
              + at
              + " runs past the end ("
              + (limit - pos)
              + " left)");
    }
    return (int) length;
  }

  /** Moves past {@code n} bytes already checked by {@link #readLength}. */
  void skipBytes(int n) {
    pos += n;
  }

  /** Skips the value of a field whose tag was just read. */
  void skipValue(int tag) {
    switch (tag & 7) {
      case VARINT -> readVarint();
      case FIXED64 -> skipFixed(8);
      case LENGTH_DELIMITED -> {
        int length = readLength(); // before the addition: readLength moves pos
        pos += length;
      }
      case FIXED32 -> skipFixed(4);
      default ->
          throw new MalformedWireException(
              "unsupported wire type " + (tag & 7) + " of field " + (tag >>> 3) + " before " + pos);
    }
  }

  private void skipFixed(int n) {
    if (limit - pos < n) {
      throw new MalformedWireException("truncated fixed" + (n * 8) + " at byte " + pos);
    }
    pos += n;
  }

  /** Bytes that are not valid protobuf wire format; the message names the position. */
  static final class MalformedWireException extends RuntimeException {
    MalformedWireException(String message) {
      super(message);
    }
  }
}
