package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.Field;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Reads one field segment in place: the sorted value set (fixed or variable width, binary search),
 * the value→documents postings (per-value sorted id lists or bit sets, with cumulative per-value
 * document counts) and the document→value index (bit-packed value ranks).
 *
 * <p>Thread safety: safe for concurrent use. Holds offsets into the mapped memory and, once asked,
 * a derived document→value array ({@link #derivedValueIndexes()}).
 */
final class FieldReader {
  final MemorySegment data;
  final Field field;
  final int documents;
  final int valueCount;

  /** Fixed width of every value in bytes, or 0 for variable width. */
  final int width;

  final boolean singleValued;
  final boolean allLists;
  final int idBytes;
  final int bitWidth;

  /** Bytes per entry (2 or 4) of the value offsets, the cumulative counts, the posting offsets. */
  final int offsetWidth;

  final int prefixWidth;
  final int postingWidth;

  /** Absolute offsets (-1 when absent). */
  final long values;

  final long valueData;
  final long prefix;
  final long postingOffsets;
  final long postings;
  final long docValues;

  /** How errors name a field's segment: built only when one is thrown (opening is per merge). */
  private static String segmentName(Field field) {
    return "field '" + field.name() + "'";
  }

  FieldReader(MemorySegment data, Field field, int documents, long base, long length, String source)
      throws CorruptDatabaseException {
    this.data = data;
    this.field = field;
    this.documents = documents;
    if (length < FIELD_HEADER_SIZE) {
      throw new CorruptDatabaseException(
          source, segmentName(field), base, "field segment too short: " + length);
    }
    long end = base + length;
    valueCount = data.get(INT, base);
    width = data.get(INT, base + 4);
    int flags = data.get(INT, base + 8);
    idBytes = data.get(INT, base + 12);
    bitWidth = data.get(INT, base + 16);
    offsetWidth = data.get(ValueLayout.JAVA_BYTE, base + 20);
    prefixWidth = data.get(ValueLayout.JAVA_BYTE, base + 21);
    postingWidth = data.get(ValueLayout.JAVA_BYTE, base + 22);
    long valuesRel = data.get(LONG, base + 24);
    long postingsRel = data.get(LONG, base + 32);
    long docValuesRel = data.get(LONG, base + 40);
    singleValued = (flags & FLAG_SINGLE_VALUED) != 0;
    allLists = (flags & FLAG_ALL_LISTS) != 0;
    int expectedWidth = fixedWidth(field.type());
    if (valueCount < 0 || (documents > 0 && valueCount == 0 && field.role().isSortable())) {
      throw new CorruptDatabaseException(
          source, segmentName(field), base, "bad value count " + valueCount);
    }
    if (width != expectedWidth) {
      throw new CorruptDatabaseException(
          source,
          segmentName(field),
          base + 4,
          "value width " + width + " but " + field.type() + " needs " + expectedWidth);
    }
    values = base + valuesRel;
    if (valuesRel < FIELD_HEADER_SIZE || values > end) {
      throw new CorruptDatabaseException(
          source, segmentName(field), base + 24, "value set offset out of bounds");
    }
    long valuesEnd;
    if (width > 0) {
      valueData = values;
      valuesEnd = values + (long) valueCount * width;
    } else {
      if (offsetWidth != 2 && offsetWidth != 4) {
        throw new CorruptDatabaseException(
            source, segmentName(field), base + 20, "bad offset width " + offsetWidth);
      }
      valueData = values + (long) offsetWidth * (valueCount + 1);
      valuesEnd =
          valueData > end ? valueData : valueData + unsigned(valueData - offsetWidth, offsetWidth);
    }
    if (valuesEnd > end) {
      throw new CorruptDatabaseException(
          source, segmentName(field), values, "value set exceeds the segment");
    }
    if (width == 0) {
      // O(values) once at open, so that every value's bytes lie inside the value data
      long previous = 0;
      for (long i = 0; i <= valueCount; i++) {
        long at = unsigned(values + offsetWidth * i, offsetWidth);
        if (at < previous || (i == 0 && at != 0)) {
          throw new CorruptDatabaseException(
              source,
              segmentName(field),
              values + offsetWidth * i,
              "value offset " + i + " out of order");
        }
        previous = at;
      }
    }
    if (field.role().isFilterable()) {
      if (idBytes != idBytes(documents)) {
        throw new CorruptDatabaseException(
            source, segmentName(field), base + 12, "bad id width " + idBytes);
      }
      prefix = base + postingsRel;
      if ((prefixWidth != 2 && prefixWidth != 4)
          || (allLists ? postingWidth != 0 : postingWidth != 2 && postingWidth != 4)) {
        throw new CorruptDatabaseException(
            source, segmentName(field), base + 21, "bad count or offset width");
      }
      postingOffsets = allLists ? -1 : prefix + (long) prefixWidth * (valueCount + 1);
      postings =
          allLists
              ? prefix + (long) prefixWidth * (valueCount + 1)
              : postingOffsets + (long) postingWidth * (valueCount + 1);
      if (postingsRel < valuesEnd - base || postings > end) {
        throw new CorruptDatabaseException(
            source, segmentName(field), base + 32, "postings offset out of bounds");
      }
      long postingsEnd =
          allLists
              ? postings + (long) idBytes * unsigned(postings - prefixWidth, prefixWidth)
              : postings + unsigned(postings - postingWidth, postingWidth);
      if (postingsEnd > end) {
        throw new CorruptDatabaseException(
            source, segmentName(field), prefix, "postings exceed the segment");
      }
    } else {
      prefix = -1;
      postingOffsets = -1;
      postings = -1;
    }
    if (field.role().isSortable()) {
      docValues = base + docValuesRel;
      if (bitWidth != bitWidth(valueCount)) {
        throw new CorruptDatabaseException(
            source, segmentName(field), base + 16, "bad bit width " + bitWidth);
      }
      long bytes = (((long) documents * bitWidth + 7) >>> 3) + 8;
      if (docValuesRel < FIELD_HEADER_SIZE || docValues + bytes > end) {
        throw new CorruptDatabaseException(
            source, segmentName(field), base + 40, "document-to-value index exceeds the segment");
      }
    } else {
      docValues = -1;
    }
  }

  // ----- value set -----------------------------------------------------------------------------

  long valueOffset(int index) {
    return width > 0
        ? valueData + (long) index * width
        : valueData + unsigned(values + (long) offsetWidth * index, offsetWidth);
  }

  int valueLength(int index) {
    if (width > 0) {
      return width;
    }
    long at = values + (long) offsetWidth * index;
    return (int) (unsigned(at + offsetWidth, offsetWidth) - unsigned(at, offsetWidth));
  }

  /**
   * Entries {@code [0, count)} of a table of unsigned little-endian numbers of {@code bytes} (2 or
   * 4) bytes at {@code at}, copied out at once (a caller reading a whole table entry by entry pays
   * the segment's checks on every one).
   */
  int[] unsignedTable(long at, int count, int bytes) {
    int[] table = new int[count];
    if (bytes == 2) {
      short[] shorts = new short[count];
      MemorySegment.copy(data, SHORT, at, shorts, 0, count);
      for (int i = 0; i < count; i++) {
        table[i] = shorts[i] & 0xFFFF;
      }
    } else {
      MemorySegment.copy(data, INT, at, table, 0, count);
    }
    return table;
  }

  /** The postings prefix table of a filterable field: {@code valueCount + 1} cumulative counts. */
  int[] prefixTable() {
    return unsignedTable(prefix, valueCount + 1, prefixWidth);
  }

  /**
   * Where every value starts relative to {@code valueData}, and where the last one ends: {@code
   * valueCount + 1} entries.
   */
  int[] valueStarts() {
    if (width == 0) {
      return unsignedTable(values, valueCount + 1, offsetWidth);
    }
    int[] starts = new int[valueCount + 1];
    for (int i = 0; i <= valueCount; i++) {
      starts[i] = i * width;
    }
    return starts;
  }

  /** An unsigned little-endian number of 2 or 4 bytes. */
  long unsigned(long at, int bytes) {
    return bytes == 2 ? data.get(SHORT, at) & 0xFFFF : data.get(INT, at) & 0xFFFF_FFFFL;
  }

  byte[] valueBytes(int index) {
    long off = valueOffset(index);
    int len = valueLength(index);
    byte[] b = new byte[len];
    MemorySegment.copy(data, ValueLayout.JAVA_BYTE, off, b, 0, len);
    return b;
  }

  /** Compares value {@code index} with {@code key} in unsigned lexicographic order. */
  int compare(int index, Key key) {
    long off = valueOffset(index);
    int len = valueLength(index);
    return compareAt(data, off, len, key);
  }

  /**
   * Compares {@code len} bytes at {@code off} with a key, eight bytes at a time. Reading eight
   * bytes past a value is safe: every value is followed by at least the 16-byte trailer.
   */
  static int compareAt(MemorySegment data, long off, int len, Key key) {
    int klen = key.length();
    int n = Math.min(len, klen);
    long[] words = key.words();
    for (int i = 0; i < n; i += 8) {
      long a = data.get(BIG_LONG, off + i);
      long b = words[i >>> 3];
      int rem = n - i;
      if (rem < 8) {
        long mask = -1L << ((8 - rem) << 3);
        a &= mask;
        b &= mask;
      }
      if (a != b) {
        return Long.compareUnsigned(a, b);
      }
    }
    return Integer.compare(len, klen);
  }

  /** Index of {@code key}, or {@code -(insertion point) - 1} when absent. */
  int find(Key key) {
    int lo = 0;
    int hi = valueCount - 1;
    if (width == 8 && key.length() == 8) {
      long k = key.words()[0];
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int c = Long.compareUnsigned(data.get(BIG_LONG, valueData + ((long) mid << 3)), k);
        if (c < 0) {
          lo = mid + 1;
        } else if (c > 0) {
          hi = mid - 1;
        } else {
          return mid;
        }
      }
      return -(lo + 1);
    }
    if (width == 4 && key.length() == 4) {
      int k = (int) (key.words()[0] >>> 32);
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int c = Integer.compareUnsigned(data.get(BIG_INT, valueData + ((long) mid << 2)), k);
        if (c < 0) {
          lo = mid + 1;
        } else if (c > 0) {
          hi = mid - 1;
        } else {
          return mid;
        }
      }
      return -(lo + 1);
    }
    if (width > 0) {
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int c = compareAt(data, valueData + (long) mid * width, width, key);
        if (c < 0) {
          lo = mid + 1;
        } else if (c > 0) {
          hi = mid - 1;
        } else {
          return mid;
        }
      }
      return -(lo + 1);
    }
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      long at = values + (long) offsetWidth * mid;
      long start = unsigned(at, offsetWidth);
      int len = (int) (unsigned(at + offsetWidth, offsetWidth) - start);
      int c = compareAt(data, valueData + start, len, key);
      if (c < 0) {
        lo = mid + 1;
      } else if (c > 0) {
        hi = mid - 1;
      } else {
        return mid;
      }
    }
    return -(lo + 1);
  }

  /** Compares value {@code index} with a key, as unsigned bytes. */
  int compareValue(int index, Key key) {
    if (width == 8 && key.length() == 8) {
      return Long.compareUnsigned(
          data.get(BIG_LONG, valueData + ((long) index << 3)), key.words()[0]);
    }
    if (width > 0) {
      return compareAt(data, valueData + (long) index * width, width, key);
    }
    long at = values + (long) offsetWidth * index;
    long start = unsigned(at, offsetWidth);
    int len = (int) (unsigned(at + offsetWidth, offsetWidth) - start);
    return compareAt(data, valueData + start, len, key);
  }

  /**
   * True when value {@code index} lies within the bounds (a null bound is open), as the ranks
   * {@code [lowerBound(from), upperBound(to))} would say.
   */
  boolean valueWithin(int index, Key from, boolean fromInclusive, Key to, boolean toInclusive) {
    if (from != null) {
      int c = compareValue(index, from);
      if (c < 0 || (c == 0 && !fromInclusive)) {
        return false;
      }
    }
    if (to != null) {
      int c = compareValue(index, to);
      return c < 0 || (c == 0 && toInclusive);
    }
    return true;
  }

  /** First index whose value is {@code > key} (or {@code >= key} when inclusive). */
  int lowerBound(Key key, boolean inclusive) {
    int i = find(key);
    if (i >= 0) {
      return inclusive ? i : i + 1;
    }
    return -i - 1;
  }

  /** One past the last index whose value is {@code < key} (or {@code <= key} when inclusive). */
  int upperBound(Key key, boolean inclusive) {
    int i = find(key);
    if (i >= 0) {
      return inclusive ? i + 1 : i;
    }
    return -i - 1;
  }

  // ----- postings ------------------------------------------------------------------------------

  int prefix(int index) {
    return (int) unsigned(prefix + (long) prefixWidth * index, prefixWidth);
  }

  /** Number of documents having value {@code index}. */
  int count(int index) {
    return prefix(index + 1) - prefix(index);
  }

  /** Number of (document, value) pairs with a value index in {@code [from, to)}. */
  int countRange(int from, int to) {
    return prefix(to) - prefix(from);
  }

  boolean isListAt(int index) {
    return allLists || isList(count(index), idBytes, documents);
  }

  long postingsOf(int index) {
    return allLists
        ? postings + (long) idBytes * prefix(index)
        : postings + unsigned(postingOffsets + (long) postingWidth * index, postingWidth);
  }

  int id(long listOffset, int i) {
    return idBytes == 2
        ? data.get(SHORT, listOffset + 2L * i) & 0xFFFF
        : data.get(INT, listOffset + 4L * i);
  }

  /** Bit {@code doc} of the bit set postings at {@code at}. */
  boolean bit(long at, int doc) {
    return (data.get(LONG, at + 8L * (doc >>> 6)) & (1L << doc)) != 0;
  }

  /** True when document {@code doc} has value {@code index}. */
  boolean postingContains(int index, int doc) {
    long at = postingsOf(index);
    if (!isListAt(index)) {
      return bit(at, doc);
    }
    int lo = 0;
    int hi = count(index) - 1;
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int id = id(at, mid);
      if (id < doc) {
        lo = mid + 1;
      } else if (id > doc) {
        hi = mid - 1;
      } else {
        return true;
      }
    }
    return false;
  }

  /**
   * Writes the documents of value {@code index} that are in {@code filter} (every one when null) to
   * {@code out} in ascending order, and returns how many.
   */
  int collect(int index, long[] filter, int[] out) {
    long at = postingsOf(index);
    int n = 0;
    if (isListAt(index)) {
      int count = count(index);
      for (int i = 0; i < count; i++) {
        int doc = id(at, i);
        if (filter == null || (filter[doc >>> 6] & (1L << doc)) != 0) {
          out[n++] = doc;
        }
      }
      return n;
    }
    int words = words(documents);
    for (int w = 0; w < words; w++) {
      long word = data.get(LONG, at + 8L * w);
      if (filter != null) {
        word &= filter[w];
      }
      while (word != 0) {
        out[n++] = (w << 6) + Long.numberOfTrailingZeros(word);
        word &= word - 1;
      }
    }
    return n;
  }

  /**
   * Appends the documents of value {@code index} to {@code out} from {@code at}; returns the end.
   */
  int collectInto(int index, int[] out, int at) {
    long p = postingsOf(index);
    if (isListAt(index)) {
      int count = count(index);
      for (int i = 0; i < count; i++) {
        out[at++] = id(p, i);
      }
      return at;
    }
    int words = words(documents);
    for (int w = 0; w < words; w++) {
      long word = data.get(LONG, p + 8L * w);
      while (word != 0) {
        out[at++] = (w << 6) + Long.numberOfTrailingZeros(word);
        word &= word - 1;
      }
    }
    return at;
  }

  /** Number of documents of value {@code index} that are in {@code filter}. */
  int intersectionCount(int index, long[] filter) {
    long at = postingsOf(index);
    int n = 0;
    if (isListAt(index)) {
      int count = count(index);
      for (int i = 0; i < count; i++) {
        int doc = id(at, i);
        if ((filter[doc >>> 6] & (1L << doc)) != 0) {
          n++;
        }
      }
      return n;
    }
    for (int w = 0; w < filter.length; w++) {
      n += Long.bitCount(data.get(LONG, at + 8L * w) & filter[w]);
    }
    return n;
  }

  /**
   * ANDs the documents of value {@code index} into {@code bits} in place when its postings are a
   * bit set, and returns true; returns false (and leaves {@code bits} alone) for a list.
   */
  boolean andBitsInto(int index, long[] bits) {
    if (isListAt(index)) {
      return false;
    }
    long at = postingsOf(index);
    for (int w = 0; w < bits.length; w++) {
      bits[w] &= data.get(LONG, at + 8L * w);
    }
    return true;
  }

  /** ORs the documents of value {@code index} into {@code bits}. */
  void orInto(int index, long[] bits) {
    int count = count(index);
    long at = postingsOf(index);
    if (isListAt(index)) {
      for (int i = 0; i < count; i++) {
        int doc = id(at, i);
        bits[doc >>> 6] |= 1L << doc;
      }
    } else {
      for (int w = 0; w < bits.length; w++) {
        bits[w] |= data.get(LONG, at + 8L * w);
      }
    }
  }

  /** ORs the documents of every value with index in {@code [from, to)} into {@code bits}. */
  void orRangeInto(int from, int to, long[] bits) {
    if (allLists) {
      long at = postingsOf(from);
      int count = prefix(to) - prefix(from);
      for (int i = 0; i < count; i++) {
        int doc = id(at, i);
        bits[doc >>> 6] |= 1L << doc;
      }
      return;
    }
    for (int v = from; v < to; v++) {
      orInto(v, bits);
    }
  }

  // ----- document -> value ---------------------------------------------------------------------

  /** See {@link #derivedValueIndexes()}; null until first asked. */
  private volatile short[] derived;

  /**
   * For a single-valued filterable field of at most {@value Short#MAX_VALUE} values: each
   * document's value index (-1 when it has none), derived from the postings the first time it is
   * asked and kept as long as this reader (two bytes per document on the heap), so that facets over
   * few matching documents walk the documents rather than every value's postings. Null for other
   * fields. Thread safe: two threads may both derive it; either result is the same.
   */
  short[] derivedValueIndexes() {
    short[] d = derived;
    if (d != null || postings < 0 || !singleValued || valueCount > Short.MAX_VALUE) {
      return d;
    }
    d = new short[documents];
    java.util.Arrays.fill(d, (short) -1);
    int[] ids = new int[0];
    for (int v = 0; v < valueCount; v++) {
      int count = count(v);
      if (ids.length < count) {
        ids = new int[Math.max(count, ids.length * 2)];
      }
      int n = collect(v, null, ids);
      for (int i = 0; i < n; i++) {
        d[ids[i]] = (short) v;
      }
    }
    derived = d;
    return d;
  }

  /** The value index of a sortable field in a document. */
  int valueIndex(int doc) {
    if (bitWidth == 0) {
      return 0;
    }
    long bit = (long) doc * bitWidth;
    long word = data.get(LONG, docValues + (bit >>> 3));
    return (int) ((word >>> (bit & 7)) & ((1L << bitWidth) - 1));
  }
}
