package dev.mosaic.indexer;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.Objects;

/**
 * xxHash64 over a byte range, reading eight bytes at a time through a little-endian array view: the
 * same values as the reference algorithm (and as lz4-java's {@code XXHash64}, which reads its input
 * a byte at a time), several times faster on long inputs. The loader fingerprints every offer of
 * every changed partner with it, so its speed is the diff's.
 *
 * <p>Thread safety: stateless, safe from any thread.
 */
final class XxHash64 {
  private static final long P1 = 0x9E3779B185EBCA87L;
  private static final long P2 = 0xC2B2AE3D27D4EB4FL;
  private static final long P3 = 0x165667B19E3779F9L;
  private static final long P4 = 0x85EBCA77C2B2AE63L;
  private static final long P5 = 0x27D4EB2F165667C5L;

  private static final VarHandle LONG =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
  private static final VarHandle INT =
      MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.LITTLE_ENDIAN);

  private XxHash64() {}

  /**
   * The xxHash64 of {@code bytes[offset, offset + length)} with {@code seed}.
   *
   * @throws IndexOutOfBoundsException when the range is not within the array
   */
  static long hash(byte[] bytes, int offset, int length, long seed) {
    Objects.checkFromIndexSize(offset, length, bytes.length);
    int end = offset + length;
    int at = offset;
    long h;
    if (length >= 32) {
      long v1 = seed + P1 + P2;
      long v2 = seed + P2;
      long v3 = seed;
      long v4 = seed - P1;
      int limit = end - 32;
      do {
        v1 = round(v1, (long) LONG.get(bytes, at));
        v2 = round(v2, (long) LONG.get(bytes, at + 8));
        v3 = round(v3, (long) LONG.get(bytes, at + 16));
        v4 = round(v4, (long) LONG.get(bytes, at + 24));
        at += 32;
      } while (at <= limit);
      h =
          Long.rotateLeft(v1, 1)
              + Long.rotateLeft(v2, 7)
              + Long.rotateLeft(v3, 12)
              + Long.rotateLeft(v4, 18);
      h = merge(h, v1);
      h = merge(h, v2);
      h = merge(h, v3);
      h = merge(h, v4);
    } else {
      h = seed + P5;
    }
    h += length;
    while (at + 8 <= end) {
      h ^= round(0, (long) LONG.get(bytes, at));
      h = Long.rotateLeft(h, 27) * P1 + P4;
      at += 8;
    }
    if (at + 4 <= end) {
      h ^= (((int) INT.get(bytes, at)) & 0xFFFF_FFFFL) * P1;
      h = Long.rotateLeft(h, 23) * P2 + P3;
      at += 4;
    }
    while (at < end) {
      h ^= (bytes[at] & 0xFFL) * P5;
      h = Long.rotateLeft(h, 11) * P1;
      at++;
    }
    h ^= h >>> 33;
    h *= P2;
    h ^= h >>> 29;
    h *= P3;
    h ^= h >>> 32;
    return h;
  }

  private static long round(long acc, long input) {
    acc += input * P2;
    acc = Long.rotateLeft(acc, 31);
    return acc * P1;
  }

  private static long merge(long acc, long value) {
    acc ^= round(0, value);
    return acc * P1 + P4;
  }
}
