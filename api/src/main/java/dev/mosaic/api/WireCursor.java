package dev.mosaic.api;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A cursor over a small serialized message in an array (a {@code FieldValue}, a payload): varints,
 * lengths and skips, checked against the message's end, without the objects and limits of a
 * Protobuf {@code CodedInputStream}. Where the bytes are not what it reads exactly (a varint
 * running past the end or over ten bytes, a length past the end), {@link #varint} gives -1 without
 * moving (a whole varint of value -1 moves: callers compare {@link #position()}) and {@link
 * #length} gives -1: the callers then leave the message to Protobuf's parser, which names the
 * error.
 *
 * <p>Thread safety: not thread safe; confined to one call (small enough to live in registers).
 */
final class WireCursor {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private final byte[] bytes;
  private final int end;
  private int pos;

  WireCursor(byte[] bytes, int start, int end) {
    this.bytes = bytes;
    this.pos = start;
    this.end = end;
  }

  boolean atEnd() {
    return pos >= end;
  }

  /** The position of the next unread byte (in the whole array). */
  int position() {
    return pos;
  }

  int remaining() {
    return end - pos;
  }

  /** The varint here (moving past it), or -1 without moving when there is no whole one. */
  long varint() {
    long result = 0;
    for (int i = pos, shift = 0; i < end && shift < 64; i++, shift += 7) {
      byte b = bytes[i];
      result |= (long) (b & 0x7f) << shift;
      if (b >= 0) {
        pos = i + 1;
        return result;
      }
    }
    return -1;
  }

  /** A length-delimited value's length (moving past it), or -1 when it does not fit. */
  int length() {
    int at = pos;
    long length = varint();
    if (length < 0 || length > end - pos) {
      pos = at;
      return -1;
    }
    return (int) length;
  }

  /** Moves past {@code n} bytes already checked; returns where they start. */
  int skip(int n) {
    int at = pos;
    pos += n;
    return at;
  }

  /** The little-endian eight bytes here (moving past them); the caller checked they are there. */
  long fixed64() {
    return (long) LONGS.get(bytes, skip(Long.BYTES));
  }
}
