package dev.mosaic.format.impl;

/**
 * A query value's comparable bytes, also as big-endian 64-bit words (zero padded) so that value
 * sets compare eight bytes per step, and its xxHash64 for Bloom filters (hashed once per query, not
 * per partition). Immutable.
 */
record Key(byte[] bytes, long[] words, long hash) {
  static Key of(byte[] bytes) {
    long[] words = new long[Math.max(1, (bytes.length + 7) >>> 3)];
    for (int i = 0; i < bytes.length; i++) {
      words[i >>> 3] |= (bytes[i] & 0xFFL) << (56 - ((i & 7) << 3));
    }
    return new Key(bytes, words, BloomFilter.hash(bytes));
  }

  int length() {
    return bytes.length;
  }
}
