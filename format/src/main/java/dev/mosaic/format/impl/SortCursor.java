package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.BIG_INT;
import static dev.mosaic.format.impl.FileFormat.BIG_LONG;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * One unit's documents in query order (its first candidates) and the sort values (ranks) of the
 * current one, compared across partitions as bytes.
 *
 * <p>Thread safety: none; per query.
 */
final class SortCursor {
  /** The unit's index. */
  int partition;

  /** The unit, also what processors receive (a group window's documents are mapped back). */
  PartitionSearcher reader;

  int[] docs;
  final int[] orderFields;
  final FieldReader[] fields;
  final int[] ranks;

  int position;

  SortCursor(int partition, PartitionSearcher reader, int[] docs, int[] orderFields) {
    this.orderFields = orderFields;
    this.fields = new FieldReader[orderFields.length];
    this.ranks = new int[orderFields.length];
    retarget(partition, reader, docs);
  }

  /** Points the cursor at another unit (for a probe that is never kept in a heap). */
  void retarget(int partition, PartitionSearcher reader, int[] docs) {
    this.partition = partition;
    this.reader = reader;
    this.docs = docs;
    this.position = 0;
    for (int i = 0; i < orderFields.length; i++) {
      fields[i] = reader.field(orderFields[i]);
    }
  }

  /** True when {@code a}'s current document comes before {@code b}'s. */
  static boolean before(SortCursor a, SortCursor b, boolean[] desc) {
    for (int key = 0; key < desc.length; key++) {
      int c = a.compare(key, b);
      if (c != 0) {
        return desc[key] ? c > 0 : c < 0;
      }
    }
    return a.partition < b.partition;
  }

  void load() {
    int doc = docs[position];
    for (int i = 0; i < fields.length; i++) {
      ranks[i] = fields[i].valueIndex(doc);
    }
  }

  int compare(int key, SortCursor other) {
    return compare(this, ranks, key, other, other.ranks);
  }

  /** Compares key {@code key} of two documents given by their cursors and loaded ranks. */
  static int compare(SortCursor ca, int[] ranksA, int key, SortCursor cb, int[] ranksB) {
    FieldReader a = ca.fields[key];
    FieldReader b = cb.fields[key];
    int ra = ranksA[key];
    int rb = ranksB[key];
    if (a == b) {
      return Integer.compare(ra, rb);
    }
    switch (a.width) {
      case 8 -> {
        return Long.compareUnsigned(
            a.data.get(BIG_LONG, a.valueData + 8L * ra),
            b.data.get(BIG_LONG, b.valueData + 8L * rb));
      }
      case 4 -> {
        return Integer.compareUnsigned(
            a.data.get(BIG_INT, a.valueData + 4L * ra), b.data.get(BIG_INT, b.valueData + 4L * rb));
      }
      case 1 -> {
        return Integer.compare(
            a.data.get(ValueLayout.JAVA_BYTE, a.valueData + ra) & 0xFF,
            b.data.get(ValueLayout.JAVA_BYTE, b.valueData + rb) & 0xFF);
      }
      default -> {
        long oa = a.valueOffset(ra);
        long ob = b.valueOffset(rb);
        int la = a.valueLength(ra);
        int lb = b.valueLength(rb);
        long m = MemorySegment.mismatch(a.data, oa, oa + la, b.data, ob, ob + lb);
        if (m < 0) {
          return 0;
        }
        if (m == la) {
          return -1;
        }
        if (m == lb) {
          return 1;
        }
        return Integer.compare(
            a.data.get(ValueLayout.JAVA_BYTE, oa + m) & 0xFF,
            b.data.get(ValueLayout.JAVA_BYTE, ob + m) & 0xFF);
      }
    }
  }
}
