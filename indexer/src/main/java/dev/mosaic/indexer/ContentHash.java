package dev.mosaic.indexer;

import com.dynatrace.hash4j.hashing.HashStream64;
import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;

/**
 * The hash of content the indexer compares but never routes by: offer fingerprints, the values and
 * keys a partition's state holds, state file checksums. XXH3 (64 bits, hash4j), which reads eight
 * bytes at a time; the loader hashes every offer of every changed partner, so its speed is the
 * diff's. Routing and record keys keep xxHash64 ({@link OfferKeys}), part of the topic's contract.
 *
 * <p>Values live only in one process's memory or in files versioned with their format, so the
 * function may change with a format version.
 *
 * <p>Thread safety: {@link #of} is stateless and safe from any thread; a {@link #stream()} belongs
 * to one thread.
 */
final class ContentHash {
  private static final Hasher64 XXH3 = Hashing.xxh3_64();

  private ContentHash() {}

  /** The hash of {@code bytes[offset, offset + length)}. */
  static long of(byte[] bytes, int offset, int length) {
    return XXH3.hashBytesToLong(bytes, offset, length);
  }

  /** A reusable stream hashing the concatenation of the ranges put into it (reset before use). */
  static HashStream64 stream() {
    return XXH3.hashStream();
  }
}
