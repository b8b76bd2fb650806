package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.Field;
import java.lang.foreign.MemorySegment;

/**
 * Reads one field segment in place: the sorted value set (fixed or variable width, binary search),
 * the value→documents postings (per-value sorted id lists or bit sets, with cumulative per-value
 * document counts) and the document→value index (bit-packed value ranks).
 *
 * <p>Thread safety: immutable; safe for concurrent use. Holds only offsets into the mapped memory.
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

  /** Absolute offsets (-1 when absent). */
  final long values;

  final long valueData;
  final long prefix;
  final long postingOffsets;
  final long postings;
  final long docValues;

  FieldReader(MemorySegment data, Field field, int documents, long base, long length, String source)
      throws CorruptDatabaseException {
    this.data = data;
    this.field = field;
    this.documents = documents;
    String segment = "field '" + field.name() + "'";
    if (length < FIELD_HEADER_SIZE) {
      throw new CorruptDatabaseException(
          source, segment, base, "field segment too short: " + length);
    }
    long end = base + length;
    valueCount = data.get(INT, base);
    width = data.get(INT, base + 4);
    int flags = data.get(INT, base + 8);
    idBytes = data.get(INT, base + 12);
    bitWidth = data.get(INT, base + 16);
    long valuesRel = data.get(LONG, base + 24);
    long postingsRel = data.get(LONG, base + 32);
    long docValuesRel = data.get(LONG, base + 40);
    singleValued = (flags & FLAG_SINGLE_VALUED) != 0;
    allLists = (flags & FLAG_ALL_LISTS) != 0;
    int expectedWidth = fixedWidth(field.type());
    if (valueCount < 0 || (documents > 0 && valueCount == 0 && field.role().isSortable())) {
      throw new CorruptDatabaseException(source, segment, base, "bad value count " + valueCount);
    }
    if (width != expectedWidth) {
      throw new CorruptDatabaseException(
          source,
          segment,
          base + 4,
          "value width " + width + " but " + field.type() + " needs " + expectedWidth);
    }
    values = base + valuesRel;
    if (valuesRel < FIELD_HEADER_SIZE || values > end) {
      throw new CorruptDatabaseException(
          source, segment, base + 24, "value set offset out of bounds");
    }
    long valuesEnd;
    if (width > 0) {
      valueData = values;
      valuesEnd = values + (long) valueCount * width;
    } else {
      valueData = values + 4L * (valueCount + 1);
      valuesEnd =
          valueData > end ? valueData : valueData + (data.get(INT, valueData - 4) & 0xFFFF_FFFFL);
    }
    if (valuesEnd > end) {
      throw new CorruptDatabaseException(source, segment, values, "value set exceeds the segment");
    }
    if (field.role().isFilterable()) {
      if (idBytes != idBytes(documents)) {
        throw new CorruptDatabaseException(source, segment, base + 12, "bad id width " + idBytes);
      }
      prefix = base + postingsRel;
      postingOffsets = allLists ? -1 : prefix + 4L * (valueCount + 1);
      postings = allLists ? prefix + 4L * (valueCount + 1) : postingOffsets + 4L * (valueCount + 1);
      if (postingsRel < valuesEnd - base || postings > end) {
        throw new CorruptDatabaseException(
            source, segment, base + 32, "postings offset out of bounds");
      }
      long postingsEnd =
          allLists
              ? postings + (long) idBytes * (data.get(INT, postings - 4) & 0xFFFF_FFFFL)
              : postings + (data.get(INT, postings - 4) & 0xFFFF_FFFFL);
      if (postingsEnd > end) {
        throw new CorruptDatabaseException(source, segment, prefix, "postings exceed the segment");
      }
    } else {
      prefix = -1;
      postingOffsets = -1;
      postings = -1;
    }
    if (field.role().isSortable()) {
      docValues = base + docValuesRel;
      if (bitWidth != bitWidth(valueCount)) {
        throw new CorruptDatabaseException(source, segment, base + 16, "bad bit width " + bitWidth);
      }
      long bytes = (((long) documents * bitWidth + 7) >>> 3) + 8;
      if (docValuesRel < FIELD_HEADER_SIZE || docValues + bytes > end) {
        throw new CorruptDatabaseException(
            source, segment, base + 40, "document-to-value index exceeds the segment");
      }
    } else {
      docValues = -1;
    }
  }

  // ----- value set -----------------------------------------------------------------------------

  long valueOffset(int index) {
    return width > 0
        ? valueData + (long) index * width
        : valueData + (data.get(INT, values + 4L * index) & 0xFFFF_FFFFL);
  }

  int valueLength(int index) {
    return width > 0
        ? width
        : data.get(INT, values + 4L * index + 4) - data.get(INT, values + 4L * index);
  }

  byte[] valueBytes(int index) {
    long off = valueOffset(index);
    int len = valueLength(index);
    byte[] b = new byte[len];
    MemorySegment.copy(data, java.lang.foreign.ValueLayout.JAVA_BYTE, off, b, 0, len);
    return b;
  }

  /** Compares value {@code index} with {@code key} in unsigned lexicographic order. */
  int compare(int index, MemorySegment key) {
    long off = valueOffset(index);
    int len = valueLength(index);
    long klen = key.byteSize();
    long m = MemorySegment.mismatch(data, off, off + len, key, 0, klen);
    if (m < 0) {
      return 0;
    }
    if (m == len) {
      return -1;
    }
    if (m == klen) {
      return 1;
    }
    return Integer.compare(
        data.get(java.lang.foreign.ValueLayout.JAVA_BYTE, off + m) & 0xFF,
        key.get(java.lang.foreign.ValueLayout.JAVA_BYTE, m) & 0xFF);
  }

  /** Index of {@code key}, or {@code -(insertion point) - 1} when absent. */
  int find(MemorySegment key) {
    if (width > 0 && key.byteSize() != width) {
      return -1;
    }
    int lo = 0;
    int hi = valueCount - 1;
    if (width == 8) {
      long k = key.get(BIG_LONG, 0);
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
    if (width == 4) {
      int k = key.get(BIG_INT, 0);
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
    while (lo <= hi) {
      int mid = (lo + hi) >>> 1;
      int c = compare(mid, key);
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

  /** First index whose value is {@code > key} (or {@code >= key} when inclusive). */
  int lowerBound(MemorySegment key, boolean inclusive) {
    int i = find(key);
    if (i >= 0) {
      return inclusive ? i : i + 1;
    }
    if (width > 0 && key.byteSize() != width) {
      return sizeMismatchBound(key);
    }
    return -i - 1;
  }

  /** One past the last index whose value is {@code < key} (or {@code <= key} when inclusive). */
  int upperBound(MemorySegment key, boolean inclusive) {
    int i = find(key);
    if (i >= 0) {
      return inclusive ? i + 1 : i;
    }
    if (width > 0 && key.byteSize() != width) {
      return sizeMismatchBound(key);
    }
    return -i - 1;
  }

  private int sizeMismatchBound(MemorySegment key) {
    // Keys are encoded with the field's type, so this only happens on a corrupt plan.
    throw new IllegalArgumentException(
        "field '" + field.name() + "': key of " + key.byteSize() + " bytes, values have " + width);
  }

  // ----- postings ------------------------------------------------------------------------------

  int prefix(int index) {
    return data.get(INT, prefix + 4L * index);
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
        : postings + (data.get(INT, postingOffsets + 4L * index) & 0xFFFF_FFFFL);
  }

  int id(long listOffset, int i) {
    return idBytes == 2
        ? data.get(SHORT, listOffset + 2L * i) & 0xFFFF
        : data.get(INT, listOffset + 4L * i);
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
