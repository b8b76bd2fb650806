package dev.mosaic.format.impl;

import dev.mosaic.format.Database;
import dev.mosaic.format.Document;
import dev.mosaic.format.Field;
import dev.mosaic.format.Schema;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes a partition as a previous partition's documents (kept by id) interleaved with new
 * documents, byte for byte as {@link DatabaseWriter} with default options writes the same documents
 * in the same order (see {@link dev.mosaic.format.DatabaseUpdate}). Kept documents are read from
 * the base's encoded form: their values through the base's value dictionaries (the
 * document-to-value index of sortable fields, the postings of filterable ones), their payloads as
 * stored bytes.
 *
 * <p>Thread safety: stateless; one call works on its own objects. The base must stay open during a
 * call.
 */
public final class PartitionUpdate {
  private PartitionUpdate() {}

  /** Marks an entry of the output order as an added document: {@code ADDED | index}. */
  public static final int ADDED = Integer.MIN_VALUE;

  /**
   * The base of an update as a partition read by this library.
   *
   * @throws IllegalArgumentException when {@code base} is a composite or a wrapper
   * @throws IllegalStateException when it is closed
   */
  public static Database checkBase(Database base) {
    if (!(base instanceof DatabaseReader reader)) {
      throw new IllegalArgumentException(
          "the base of an update must be a single partition database read by this library, got "
              + base);
    }
    reader.ensureOpen();
    return reader;
  }

  /** Number of documents of a base checked by {@link #checkBase}. */
  public static int documents(Database base) {
    return ((DatabaseReader) base).documents();
  }

  /**
   * Writes the update.
   *
   * @param base the previous partition (checked by {@link #checkBase}), or null for a full build
   * @param order the output documents: a base id, or {@code ADDED | i} for {@code added.get(i)}
   * @param count number of entries of {@code order} used
   * @return the size of the file written
   */
  public static long write(
      Schema schema,
      Database base,
      int[] order,
      int count,
      List<Document> added,
      Path output,
      boolean fsync)
      throws IOException {
    DatabaseReader reader = base == null ? null : (DatabaseReader) base;
    if (reader != null) {
      reader.ensureOpen();
    }
    DocumentSource source = new Interleaved(schema, reader, order, count, added);
    DatabaseWriter writer = new DatabaseWriter(schema, source);
    return AtomicFileWrite.write(
        output,
        true,
        fsync,
        ".updating",
        ch -> {
          writer.writeTo(ch);
        });
  }

  /** The output documents read from the base and the added list. */
  private static final class Interleaved implements DocumentSource {
    final Schema schema;
    final DatabaseReader base;
    final int[] order;
    final int count;
    final List<Document> added;
    final String[] names;
    final BaseValues[] baseValues;

    Interleaved(Schema schema, DatabaseReader base, int[] order, int count, List<Document> added) {
      this.schema = schema;
      this.base = base;
      this.order = order;
      this.count = count;
      this.added = added;
      this.names = schema.fields().stream().map(Field::name).toArray(String[]::new);
      this.baseValues = new BaseValues[names.length];
    }

    @Override
    public int size() {
      return count;
    }

    @Override
    public List<byte[]> values(int doc, int field) {
      int e = order[doc];
      if (e < 0) {
        return added.get(e & ~ADDED).values(names[field]);
      }
      BaseValues v = baseValues[field];
      if (v == null) {
        v = baseValues[field] = new BaseValues(base.field(field));
      }
      return v.of(e);
    }

    @Override
    public byte[] payload(int doc) {
      int e = order[doc];
      return e < 0 ? added.get(e & ~ADDED).payload() : base.payloadBytes(e);
    }

    @Override
    public int payloadLength(int doc) {
      int e = order[doc];
      if (e < 0) {
        return added.get(e & ~ADDED).payload().length;
      }
      PayloadBlocks b = base.payloadBlocks();
      return (int)
          (b != null ? b.length(e) : base.rawPayloadOffset(e + 1) - base.rawPayloadOffset(e));
    }
  }

  /** The value ranks of every base document in one field, from its encoded form. */
  private static final class BaseValues {
    final FieldReader field;
    final int[] start;
    final int[] ranks;

    BaseValues(FieldReader f) {
      this.field = f;
      int n = f.documents;
      if (f.field.role().isSortable()) {
        start = null;
        ranks = null;
        return;
      }
      // invert the postings: each document's ranks, ascending
      start = new int[n + 1];
      for (int j = 0; j < f.valueCount; j++) {
        forEachDocument(f, j, d -> start[d + 1]++);
      }
      for (int d = 0; d < n; d++) {
        start[d + 1] += start[d];
      }
      ranks = new int[start[n]];
      int[] cursor = Arrays.copyOf(start, n);
      for (int j = 0; j < f.valueCount; j++) {
        int rank = j;
        forEachDocument(f, j, d -> ranks[cursor[d]++] = rank);
      }
    }

    List<byte[]> of(int doc) {
      if (ranks == null) {
        return field.valueCount == 0 ? List.of() : List.of(field.valueBytes(field.valueIndex(doc)));
      }
      List<byte[]> list = new ArrayList<>(start[doc + 1] - start[doc]);
      for (int i = start[doc]; i < start[doc + 1]; i++) {
        list.add(field.valueBytes(ranks[i]));
      }
      return list;
    }
  }

  interface DocConsumer {
    void accept(int doc);
  }

  /** Calls {@code action} for every document having value {@code j}, ascending. */
  static void forEachDocument(FieldReader f, int j, DocConsumer action) {
    long posting = f.postingsOf(j);
    if (f.isListAt(j)) {
      int c = f.count(j);
      for (int x = 0; x < c; x++) {
        action.accept(f.id(posting, x));
      }
      return;
    }
    int words = FileFormat.words(f.documents);
    for (int w = 0; w < words; w++) {
      long word = f.data.get(FileFormat.LONG, posting + 8L * w);
      while (word != 0) {
        action.accept((w << 6) + Long.numberOfTrailingZeros(word));
        word &= word - 1;
      }
    }
  }
}
