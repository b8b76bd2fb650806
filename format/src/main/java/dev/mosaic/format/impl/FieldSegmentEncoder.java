package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.Field;
import java.util.Arrays;

/**
 * Encodes field segments (header, sorted value set, postings when filterable, document-to-rank
 * index when sortable) from a field's content in rank terms. Shared by {@link DatabaseWriter},
 * {@link PartitionMerge} and {@link PartitionUpdate}, so all produce the same bytes for the same
 * content; {@link FieldReader} reads them.
 *
 * <p>Thread safety: stateless.
 */
final class FieldSegmentEncoder {
  private FieldSegmentEncoder() {}

  /**
   * Encodes a field segment from its content in rank terms: postings grouped by rank (filterable),
   * the document-to-rank index (sortable). Shared by the writer and {@link PartitionUpdate}.
   */
  static ByteSink encodeRanks(Field field, int n, FieldRanks r) {
    String name = field.name();
    int distinct = r.sorted().length;
    int[] start = r.start();
    int[] ranks = r.ranks();
    int used = start[n];
    int[] prefix = null;
    int[] ids = null;
    if (field.role().isFilterable()) {
      prefix = new int[distinct + 1];
      for (int i = 0; i < used; i++) {
        prefix[ranks[i] + 1]++;
      }
      for (int v = 0; v < distinct; v++) {
        prefix[v + 1] += prefix[v];
      }
      ids = new int[used];
      int[] cursor = Arrays.copyOf(prefix, distinct);
      for (int doc = 0; doc < n; doc++) {
        for (int i = start[doc]; i < start[doc + 1]; i++) {
          ids[cursor[ranks[i]]++] = doc;
        }
      }
    }
    int[] docRanks = null;
    if (field.role().isSortable()) {
      docRanks = new int[n];
      if (bitWidth(distinct) > 0) {
        for (int doc = 0; doc < n; doc++) {
          if (start[doc + 1] - start[doc] != 1) {
            throw new IllegalStateException("field '" + name + "' needs one value per document");
          }
          docRanks[doc] = ranks[start[doc]];
        }
      }
    }
    return encodeField(field, n, r.sorted(), r.singleValued(), prefix, ids, docRanks);
  }

  /**
   * Encodes one field segment (header, sorted value set, postings when filterable, document-to-rank
   * index when sortable) from the field's content in rank terms. Shared by the writer and by {@link
   * PartitionMerge}, so both produce the same bytes for the same content.
   *
   * @param n number of documents
   * @param sorted the distinct values in comparable-byte order (a value's index is its rank)
   * @param singleValued true when every document has at most one distinct value
   * @param prefix filterable only (else null): {@code distinct + 1} cumulative document counts
   * @param ids filterable only (else null): the documents of each rank, grouped by rank in rank
   *     order ({@code [prefix[r], prefix[r + 1])}), ascending within a rank
   * @param docRanks sortable only (else null): the rank of every document's value
   */
  static ByteSink encodeField(
      Field field,
      int n,
      byte[][] sorted,
      boolean singleValued,
      int[] prefix,
      int[] ids,
      int[] docRanks) {
    return encodeField(field, n, PackedValues.of(sorted), singleValued, prefix, ids, docRanks);
  }

  /** As {@link #encodeField(Field, int, byte[][], boolean, int[], int[], int[])}, packed values. */
  static ByteSink encodeField(
      Field field,
      int n,
      PackedValues values,
      boolean singleValued,
      int[] prefix,
      int[] ids,
      int[] docRanks) {
    boolean filterable = field.role().isFilterable();
    boolean sortable = field.role().isSortable();
    int distinct = values.count();
    int width = fixedWidth(field.type());
    int idBytes = idBytes(n);
    int totalBytes = values.totalBytes();
    // a close estimate of the segment's size, so the sink is not grown while encoding
    long estimate = FIELD_HEADER_SIZE + 64 + 4L * (distinct + 1) + totalBytes;
    if (filterable) {
      estimate += 8L * (distinct + 1) + (long) prefix[distinct] * idBytes;
    }
    if (sortable) {
      estimate += ((long) n * bitWidth(distinct) + 7) / 8 + 16;
    }
    ByteSink sink = new ByteSink((int) Math.min(estimate, 1 << 30));
    int bitWidth = sortable ? bitWidth(distinct) : 0;
    sink.putInt(distinct).putInt(width).putInt(0).putInt(filterable ? idBytes : 0).putInt(bitWidth);
    sink.putInt(0).putLong(0).putLong(0).putLong(0);

    // Value set.
    sink.setLong(24, sink.size());
    if (width > 0) {
      sink.putBytes(values.bytes(), 0, totalBytes);
    } else {
      int offsetWidth = offsetWidth(totalBytes);
      sink.array()[20] = (byte) offsetWidth;
      sink.putAll(values.starts(), 0, distinct + 1, offsetWidth);
      sink.putBytes(values.bytes(), 0, totalBytes);
    }
    sink.align8();

    int flags = singleValued ? FLAG_SINGLE_VALUED : 0;
    if (filterable) {
      sink.setLong(32, sink.size());
      int used = prefix[distinct];
      boolean allLists = true;
      long postingBytes = 0;
      for (int v = 0; v < distinct; v++) {
        int c = prefix[v + 1] - prefix[v];
        if (isList(c, idBytes, n)) {
          postingBytes += (long) c * idBytes;
        } else {
          postingBytes += words(n) * 8L;
          allLists = false;
        }
      }
      if (allLists) {
        flags |= FLAG_ALL_LISTS;
      }
      int prefixWidth = offsetWidth(used);
      int postingWidth = offsetWidth(postingBytes);
      sink.array()[21] = (byte) prefixWidth;
      sink.array()[22] = (byte) (allLists ? 0 : postingWidth);
      sink.putAll(prefix, 0, distinct + 1, prefixWidth);
      int offsetsAt = sink.size();
      if (!allLists) {
        sink.skip(postingWidth * (distinct + 1));
      }
      int dataStart = sink.size();
      int words = words(n);
      long[] bitmap = null;
      if (allLists) {
        // every value's list follows the previous one's: all of them at once
        sink.putAll(ids, 0, used, idBytes);
      }
      for (int v = 0; !allLists && v < distinct; v++) {
        sink.setUnsigned(offsetsAt + postingWidth * v, sink.size() - dataStart, postingWidth);
        int from = prefix[v];
        int to = prefix[v + 1];
        if (isList(to - from, idBytes, n)) {
          sink.putAll(ids, from, to, idBytes);
        } else {
          if (bitmap == null) {
            bitmap = new long[words];
          } else {
            Arrays.fill(bitmap, 0L);
          }
          for (int i = from; i < to; i++) {
            int doc = ids[i];
            bitmap[doc >>> 6] |= 1L << doc;
          }
          sink.putLongs(bitmap, words);
        }
      }
      if (!allLists) {
        sink.setUnsigned(
            offsetsAt + postingWidth * distinct, sink.size() - dataStart, postingWidth);
      }
      sink.align8();
    }
    sink.setInt(8, flags);

    if (sortable) {
      sink.setLong(40, sink.size());
      long bits = (long) n * bitWidth;
      int bytes = (int) ((bits + 7) >>> 3);
      // a little-endian bit stream: packed into longs here, then written whole
      long[] packed = new long[(bytes + 8) >>> 3];
      if (bitWidth > 0) {
        for (int doc = 0; doc < n; doc++) {
          long bit = (long) doc * bitWidth;
          int word = (int) (bit >>> 6);
          int shift = (int) (bit & 63);
          long value = docRanks[doc] & 0xFFFF_FFFFL;
          packed[word] |= value << shift;
          if (shift + bitWidth > 64) {
            packed[word + 1] |= value >>> (64 - shift);
          }
        }
      }
      sink.putLongs(packed, packed.length);
      sink.skip(bytes + 8 - 8 * packed.length); // the last bytes of the stream are zero
      sink.align8();
    }
    return sink;
  }

  /** Bytes per entry of an offset or count table whose largest entry is {@code max}. */
  private static int offsetWidth(long max) {
    return max <= 0xFFFF ? 2 : 4;
  }
}
