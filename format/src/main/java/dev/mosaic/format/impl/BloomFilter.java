package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.CorruptDatabaseException;
import java.lang.foreign.MemorySegment;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

/**
 * A per-partition Bloom filter over one field's distinct values (format version 2, segment kind
 * {@code bloom}): {@code k} bit probes derived from one xxHash64 of the value's comparable bytes by
 * double hashing, over a power-of-two number of bits. A miss proves the partition has no document
 * with that value, so {@code eq}/{@code in} skip the value-set binary search.
 *
 * <p>Thread safety: immutable.
 */
final class BloomFilter {
  /** Pure-Java safe implementation: the same hashes on every platform. */
  private static final XXHash64 XXHASH = XXHashFactory.safeInstance().hash64();

  static final long SEED = 0x4D4F534149434246L; // "MOSAICBF"
  static final int BITS_PER_VALUE = 10;
  static final int HASHES = 7;

  private final MemorySegment data;
  private final long words;
  private final int hashes;
  private final long mask;

  private BloomFilter(MemorySegment data, long words, int hashes, long mask) {
    this.data = data;
    this.words = words;
    this.hashes = hashes;
    this.mask = mask;
  }

  static long hash(byte[] value) {
    return hash(value, 0, value.length);
  }

  /** The hash of the value {@code bytes[offset, offset + length)}. */
  static long hash(byte[] bytes, int offset, int length) {
    return XXHASH.hash(bytes, offset, length, SEED);
  }

  /** Bit count for {@code values} distinct values: a power of two, at least 64. */
  static long bitsFor(int values) {
    long wanted = Math.max(64, (long) values * BITS_PER_VALUE);
    return Long.highestOneBit(wanted - 1) << 1;
  }

  /** Builds the segment bytes: u32 hash count, u32 zero, u64 bit count, then the bit words. */
  static ByteSink build(byte[][] values) {
    long[] words = wordsFor(values.length);
    for (byte[] v : values) {
      add(words, hash(v));
    }
    return segment(words);
  }

  /** As {@link #build(byte[][])}, from packed values. */
  static ByteSink build(PackedValues values) {
    long[] words = wordsFor(values.count());
    byte[] bytes = values.bytes();
    int[] starts = values.starts();
    for (int v = 0; v < values.count(); v++) {
      add(words, hash(bytes, starts[v], starts[v + 1] - starts[v]));
    }
    return segment(words);
  }

  /**
   * The filter {@link #build(PackedValues)} makes of the base filter's values plus {@code added}
   * ({@code values} distinct values in all), without hashing the base's values again: the base's
   * bits with the added values' set. A filter is the union of its values' bits, so this is the same
   * bytes whenever every value of the base is among the new values, the new values are the base's
   * plus {@code added}, and the base filter has the bit count and probes a build of {@code values}
   * values would have; null when the counts differ (then build it).
   */
  static ByteSink extend(BloomFilter base, int values, byte[][] added) {
    if (base.hashes != HASHES || base.bits() != bitsFor(values)) {
      return null;
    }
    long[] words = new long[(int) (base.bits() >>> 6)];
    MemorySegment.copy(base.data, LONG, base.words, words, 0, words.length);
    for (byte[] v : added) {
      add(words, hash(v));
    }
    return segment(words);
  }

  private static long[] wordsFor(int values) {
    long bits = bitsFor(values);
    if (bits > (1L << 33)) {
      throw new IllegalStateException("bloom filter of " + bits + " bits is too large");
    }
    return new long[(int) (bits >>> 6)];
  }

  /** Sets the value's {@code HASHES} bits (the bit count is a power of two). */
  private static void add(long[] words, long h) {
    long m = words.length * 64L - 1;
    long h2 = Long.rotateLeft(h, 32) | 1;
    for (int i = 0; i < HASHES; i++) {
      long bit = (h + i * h2) & m;
      words[(int) (bit >>> 6)] |= 1L << bit;
    }
  }

  private static ByteSink segment(long[] words) {
    ByteSink sink = new ByteSink(16 + 8 * words.length);
    sink.putInt(HASHES).putInt(0).putLong(words.length * 64L);
    return sink.putLongs(words, words.length);
  }

  static BloomFilter read(String source, MemorySegment data, long base, long length)
      throws CorruptDatabaseException {
    if (length < 16) {
      throw new CorruptDatabaseException(source, "bloom", base, "bloom segment too short");
    }
    int hashes = data.get(INT, base);
    long bits = data.get(LONG, base + 8);
    if (hashes < 1
        || hashes > 64
        || bits < 64
        || Long.bitCount(bits) != 1
        || 16 + (bits >>> 3) != length) {
      throw new CorruptDatabaseException(
          source, "bloom", base, "bad bloom filter: " + hashes + " hashes, " + bits + " bits");
    }
    return new BloomFilter(data, base + 16, hashes, bits - 1);
  }

  /** False when no value with this hash was added (certain); true when it may have been. */
  boolean mightContain(long h) {
    long h2 = Long.rotateLeft(h, 32) | 1;
    for (int i = 0; i < hashes; i++) {
      long bit = (h + i * h2) & mask;
      if ((data.get(LONG, words + ((bit >>> 6) << 3)) & (1L << bit)) == 0) {
        return false;
      }
    }
    return true;
  }

  long bits() {
    return mask + 1;
  }
}
