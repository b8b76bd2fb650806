package dev.mosaic.format.impl;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Arrays;

/** A growable little-endian byte buffer used while writing a segment. Not thread safe. */
final class ByteSink {
  private static final VarHandle SHORT =
      MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  private byte[] bytes;
  private int size;

  ByteSink(int capacity) {
    bytes = new byte[Math.max(16, capacity)];
  }

  int size() {
    return size;
  }

  byte[] array() {
    return bytes;
  }

  private void ensure(int more) {
    if (more > bytes.length - size) {
      grow(more);
    }
  }

  private void grow(int more) {
    long needed = (long) size + more;
    if (needed > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("a segment cannot exceed 2 GiB, needed " + needed);
    }
    long grown = Math.max(needed, Math.min(Integer.MAX_VALUE - 16L, bytes.length * 2L));
    bytes = Arrays.copyOf(bytes, (int) grown);
  }

  ByteSink putByte(int v) {
    ensure(1);
    bytes[size++] = (byte) v;
    return this;
  }

  ByteSink putShort(int v) {
    ensure(2);
    SHORT.set(bytes, size, (short) v);
    size += 2;
    return this;
  }

  ByteSink putInt(int v) {
    ensure(4);
    INT.set(bytes, size, v);
    size += 4;
    return this;
  }

  ByteSink putLong(long v) {
    ensure(8);
    LONG.set(bytes, size, v);
    size += 8;
    return this;
  }

  ByteSink putBytes(byte[] b) {
    return putBytes(b, 0, b.length);
  }

  /** Appends {@code b[offset, offset + length)}. */
  ByteSink putBytes(byte[] b, int offset, int length) {
    ensure(length);
    System.arraycopy(b, offset, bytes, size, length);
    size += length;
    return this;
  }

  /** Appends {@code values[from, to)}, each as 2 bytes ({@code width == 2}) or 4 bytes. */
  ByteSink putAll(int[] values, int from, int to, int width) {
    ensure((to - from) * width);
    int at = size;
    if (width == 2) {
      for (int i = from; i < to; i++, at += 2) {
        SHORT.set(bytes, at, (short) values[i]);
      }
    } else {
      for (int i = from; i < to; i++, at += 4) {
        INT.set(bytes, at, values[i]);
      }
    }
    size = at;
    return this;
  }

  /** Appends zero bytes. */
  ByteSink skip(int n) {
    ensure(n);
    size += n;
    return this;
  }

  /** Pads with zeros to a multiple of 8. */
  ByteSink align8() {
    return skip((8 - (size & 7)) & 7);
  }

  /** Appends {@code v} as an unsigned little-endian number of {@code width} bytes (2 or 4). */
  ByteSink putUnsigned(int v, int width) {
    return width == 2 ? putShort(v) : putInt(v);
  }

  void setUnsigned(int position, int v, int width) {
    if (width == 2) {
      SHORT.set(bytes, position, (short) v);
    } else {
      INT.set(bytes, position, v);
    }
  }

  void setInt(int position, int v) {
    INT.set(bytes, position, v);
  }

  void setLong(int position, long v) {
    LONG.set(bytes, position, v);
  }

  /** Appends the first {@code count} longs of {@code values}, little-endian. */
  ByteSink putLongs(long[] values, int count) {
    ensure(8 * count);
    for (int i = 0; i < count; i++) {
      LONG.set(bytes, size + 8 * i, values[i]);
    }
    size += 8 * count;
    return this;
  }
}
