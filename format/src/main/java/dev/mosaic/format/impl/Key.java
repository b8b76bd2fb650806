package dev.mosaic.format.impl;

/**
 * A query value's comparable bytes, also as big-endian 64-bit words (zero padded) so that value
 * sets compare eight bytes per step, and its xxHash64 for Bloom filters (hashed once per query, not
 * per partition). Immutable.
 */
record Key(byte[] bytes, long[] words, long hash) {
  static Key of(byte[] bytes) {
    return new Key(bytes, words(bytes), BloomFilter.hash(bytes));
  }

  /**
   * A key for value-set searches only ({@link FieldReader#find}): its hash is left 0, so it must
   * not be probed in a Bloom filter.
   */
  static Key unhashed(byte[] bytes) {
    return new Key(bytes, words(bytes), 0);
  }

  private static long[] words(byte[] bytes) {
    long[] words = new long[Math.max(1, (bytes.length + 7) >>> 3)];
    for (int i = 0; i < bytes.length; i++) {
      words[i >>> 3] |= (bytes[i] & 0xFFL) << (56 - ((i & 7) << 3));
    }
    return words;
  }

  int length() {
    return bytes.length;
  }
}
