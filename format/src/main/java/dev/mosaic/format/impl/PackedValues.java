package dev.mosaic.format.impl;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * A field's distinct values in comparable-byte order, packed into one array: value {@code i} is
 * {@code bytes[starts[i], starts[i + 1])}, and {@code starts[0] == 0}. The starts are the value
 * set's offset table as a field segment stores it, so a segment is written from them without a pass
 * per value; a partition update fills one by copying runs of its base's mapped value area.
 *
 * <p>Thread safety: not thread safe while being filled ({@link #append}); read-only afterwards.
 */
final class PackedValues {
  private byte[] bytes;
  private final int[] starts;
  private int count;

  /** An empty set with room for {@code capacity} values of {@code byteCapacity} bytes in all. */
  PackedValues(int capacity, int byteCapacity) {
    this.bytes = new byte[byteCapacity];
    this.starts = new int[capacity + 1];
  }

  /** The values of {@code sorted}, copied (for the writers that rank values as arrays). */
  static PackedValues of(byte[][] sorted) {
    long total = 0;
    for (byte[] v : sorted) {
      total += v.length;
    }
    if (total > Integer.MAX_VALUE - 16) {
      throw new ArithmeticException("value set of " + total + " bytes exceeds 2 GiB");
    }
    PackedValues packed = new PackedValues(sorted.length, (int) total);
    for (byte[] v : sorted) {
      packed.append(v, 0, v.length);
    }
    return packed;
  }

  /** Appends one value, {@code from[offset, offset + length)}. */
  void append(byte[] from, int offset, int length) {
    int at = ensureRoom(length);
    System.arraycopy(from, offset, bytes, at, length);
    starts[++count] = at + length;
  }

  /**
   * Appends the consecutive values {@code [first, end)} of a value area in a mapped file (value
   * {@code v} at {@code areaBase + areaStarts[v]}, as a field segment stores them), with one copy
   * of their bytes.
   */
  void appendRun(MemorySegment area, long areaBase, int[] areaStarts, int first, int end) {
    if (end <= first) {
      return;
    }
    int from = areaStarts[first];
    int length = areaStarts[end] - from;
    int at = ensureRoom(length);
    MemorySegment.copy(area, ValueLayout.JAVA_BYTE, areaBase + from, bytes, at, length);
    int shift = at - from;
    for (int v = first + 1; v <= end; v++) {
      starts[++count] = areaStarts[v] + shift;
    }
  }

  /** Grows the byte array to hold {@code length} more bytes; returns where they go. */
  private int ensureRoom(int length) {
    int at = starts[count];
    if (length > bytes.length - at) {
      bytes = Arrays.copyOf(bytes, Math.max(at + length, bytes.length * 2));
    }
    return at;
  }

  /** Number of values. */
  int count() {
    return count;
  }

  /** The value bytes; only {@code [0, totalBytes())} is meaningful. */
  byte[] bytes() {
    return bytes;
  }

  /** The start of every value and the end of the last ({@code count() + 1} entries meaningful). */
  int[] starts() {
    return starts;
  }

  /** Bytes of all values. */
  int totalBytes() {
    return starts[count];
  }
}
