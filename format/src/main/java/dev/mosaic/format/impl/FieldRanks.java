package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import com.dynatrace.hash4j.hashing.Hasher64;
import com.dynatrace.hash4j.hashing.Hashing;
import it.unimi.dsi.fastutil.Hash;
import it.unimi.dsi.fastutil.objects.Object2IntOpenCustomHashMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * One field's content in rank terms: the distinct values sorted (a value's index is its rank), and
 * each document's distinct ranks, ascending, flattened ({@code ranks[start[d], start[d + 1])}).
 *
 * @param singleValued true when every document has at most one distinct value
 */
record FieldRanks(byte[][] sorted, int[] start, int[] ranks, boolean singleValued) {

  /**
   * Values by content for {@link #hashed}: XXH3 of the bytes (a value of a few to a few dozen bytes
   * hashes in a few loads, where {@code Arrays.hashCode} multiplies byte by byte).
   */
  private static final Hash.Strategy<byte[]> VALUE_HASH =
      new Hash.Strategy<>() {
        private final Hasher64 hash = Hashing.xxh3_64();

        @Override
        public int hashCode(byte[] value) {
          return value == null ? 0 : (int) hash.hashBytesToLong(value);
        }

        @Override
        public boolean equals(byte[] a, byte[] b) {
          return Arrays.equals(a, b);
        }
      };

  /**
   * Builds a field's ranks. When every value of the field has one width of at most 8 bytes (the
   * numbers, timestamps, booleans; strings that happen to), the values are packed into longs, whose
   * order is the values' unsigned byte order, and ranked by one primitive sort ({@link #packed});
   * else {@link #hashed}. Both give the same ranks.
   */
  static FieldRanks of(DocumentColumns source, int fieldIndex) {
    FieldRanks packed = packed(source, fieldIndex);
    return packed != null ? packed : hashed(source, fieldIndex);
  }

  /**
   * Ranks values of one width of at most 8 bytes as longs: each value packed big-endian (sign bit
   * flipped, so a signed sort is the unsigned byte order) in one pass over the documents, the
   * packed values sorted once and deduplicated, each value's rank found by binary search.
   *
   * @return null when the values differ in width, are wider than 8 bytes, or there are none
   */
  static FieldRanks packed(DocumentColumns source, int fieldIndex) {
    return packed(source.size(), source.column(fieldIndex));
  }

  private static FieldRanks packed(int n, DocumentColumns.Column column) {
    int width = -1;
    boolean multi = false;
    byte[][] all = column.values();
    int[] start = Arrays.copyOf(column.start(), n + 1); // compacted in place below
    int total = start[n];
    long[] keys = new long[Math.max(16, total)];
    int used = 0;
    for (int doc = 0; doc < n; doc++) {
      int from = start[doc];
      int count = start[doc + 1] - from;
      multi |= count > 1;
      for (int i = from; i < from + count; i++) {
        byte[] v = all[i];
        if (v.length != width) {
          if (width >= 0 || v.length > 8) {
            return null;
          }
          width = v.length;
        }
        long k = 0;
        for (int b = 0; b < width; b++) {
          k = k << 8 | (v[b] & 0xFF);
        }
        keys[used++] = k ^ Long.MIN_VALUE;
      }
    }
    if (width < 0) {
      return null;
    }
    start[n] = used;
    int[] ranks = new int[Math.max(16, used)];
    long[] distinct = new long[used];
    int m = rankByOneSort(keys, used, distinct, ranks);
    if (m < 0) {
      m = rankBySearch(keys, used, distinct, ranks);
    }
    byte[][] sorted = new byte[m][];
    for (int r = 0; r < m; r++) {
      long k = distinct[r] ^ Long.MIN_VALUE;
      byte[] v = new byte[width];
      for (int b = width - 1; b >= 0; b--) {
        v[b] = (byte) k;
        k >>>= 8;
      }
      sorted[r] = v;
    }
    return compacted(sorted, start, ranks, n, multi);
  }

  /**
   * Ranks {@code keys[0, used)} with one sort, when their spread leaves room for a value's position
   * beside it in a long: each key less the smallest, shifted up, its position in the low bits;
   * sorted, the longs come in key order (ties in position order), and one sweep gives the distinct
   * keys and every position's rank. Most columns qualify (an int's spread is below 2^32; prices and
   * time stamps of a partition span far less than 2^40).
   *
   * @return the distinct key count, or -1 when the spread is too wide ({@link #rankBySearch})
   */
  private static int rankByOneSort(long[] keys, int used, long[] distinct, int[] ranks) {
    long min = Long.MAX_VALUE;
    long max = Long.MIN_VALUE;
    for (int i = 0; i < used; i++) {
      min = Math.min(min, keys[i]);
      max = Math.max(max, keys[i]);
    }
    int positionBits = Math.max(1, 32 - Integer.numberOfLeadingZeros(used - 1));
    long spread = max - min; // unsigned: at most 2^64 - 1
    // the shifted spread must stay below 2^63, so that a signed sort orders the longs
    if (Long.compareUnsigned(spread, (1L << (63 - positionBits)) - 1) > 0) {
      return -1;
    }
    long[] packed = new long[used];
    for (int i = 0; i < used; i++) {
      packed[i] = (keys[i] - min) << positionBits | i;
    }
    Arrays.sort(packed);
    long positionMask = (1L << positionBits) - 1;
    int m = 0;
    long previous = -1;
    for (int i = 0; i < used; i++) {
      long key = packed[i] >>> positionBits;
      if (key != previous) {
        distinct[m++] = key + min;
        previous = key;
      }
      ranks[(int) (packed[i] & positionMask)] = m - 1;
    }
    return m;
  }

  /**
   * Ranks {@code keys[0, used)} by sorting a copy, dropping repeats and finding each key's rank by
   * binary search.
   *
   * @return the distinct key count
   */
  private static int rankBySearch(long[] keys, int used, long[] distinct, int[] ranks) {
    System.arraycopy(keys, 0, distinct, 0, used);
    Arrays.sort(distinct, 0, used);
    int m = 0;
    for (int i = 0; i < used; i++) {
      if (i == 0 || distinct[i] != distinct[m - 1]) {
        distinct[m++] = distinct[i];
      }
    }
    for (int i = 0; i < used; i++) {
      ranks[i] = Arrays.binarySearch(distinct, 0, m, keys[i]);
    }
    return m;
  }

  /**
   * Builds a field's ranks in time linear in its values plus one sort of its distinct ones: one
   * hash look-up per value gives it a provisional id (first-seen order), the distinct values are
   * sorted once, and the provisional ids are then mapped to ranks through an array.
   */
  static FieldRanks hashed(DocumentColumns source, int fieldIndex) {
    int n = source.size();
    DocumentColumns.Column column = source.column(fieldIndex);
    Object2IntOpenCustomHashMap<byte[]> idOf =
        new Object2IntOpenCustomHashMap<>(Math.min(n, 1 << 16), VALUE_HASH);
    idOf.defaultReturnValue(-1);
    List<byte[]> distinctValues = new ArrayList<>();
    byte[][] all = column.values();
    int[] start = Arrays.copyOf(column.start(), n + 1); // compacted in place below
    int[] ranks = new int[Math.max(16, start[n])];
    int used = 0;
    boolean multi = false;
    for (int doc = 0; doc < n; doc++) {
      int from = start[doc];
      int count = start[doc + 1] - from;
      for (int i = from; i < from + count; i++) {
        byte[] v = all[i];
        int id = idOf.putIfAbsent(v, distinctValues.size());
        if (id < 0) {
          id = distinctValues.size();
          distinctValues.add(v);
        }
        ranks[used++] = id;
      }
      multi |= count > 1;
    }
    start[n] = used;
    byte[][] sorted = distinctValues.toArray(new byte[0][]);
    Arrays.sort(sorted, Arrays::compareUnsigned);
    int[] rankOfId = new int[sorted.length];
    for (int r = 0; r < sorted.length; r++) {
      rankOfId[idOf.getInt(sorted[r])] = r;
    }
    for (int i = 0; i < used; i++) {
      ranks[i] = rankOfId[ranks[i]];
    }
    return compacted(sorted, start, ranks, n, multi);
  }

  /** With several values in some document: each document's distinct ranks, ascending. */
  private static FieldRanks compacted(
      byte[][] sorted, int[] start, int[] ranks, int n, boolean multi) {
    boolean singleValued = true;
    if (multi) {
      // each document's distinct ranks, ascending, compacted in place
      int w = 0;
      for (int doc = 0; doc < n; doc++) {
        int from = start[doc];
        int to = start[doc + 1];
        start[doc] = w;
        if (to - from > 1) {
          Arrays.sort(ranks, from, to);
        }
        for (int r = from; r < to; r++) {
          if (r == from || ranks[r] != ranks[r - 1]) {
            ranks[w++] = ranks[r];
          }
        }
        if (w - start[doc] > 1) {
          singleValued = false;
        }
      }
      start[n] = w;
    }
    return new FieldRanks(sorted, start, ranks, singleValued);
  }
}
