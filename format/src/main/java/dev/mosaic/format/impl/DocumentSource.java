package dev.mosaic.format.impl;

import dev.mosaic.format.Document;
import dev.mosaic.format.Schema;
import java.util.List;

/**
 * The documents a {@link DatabaseWriter} writes, by id: their comparable-byte values per field and
 * their payloads.
 *
 * <p>Thread safety: implementations are read by one writer thread at a time.
 */
interface DocumentSource {
  /** Number of documents. */
  int size();

  /** The values of field {@code field} (schema index) in document {@code doc}, any order. */
  List<byte[]> values(int doc, int field);

  /** How many values field {@code field} has in document {@code doc}. */
  default int valueCount(int doc, int field) {
    return values(doc, field).size();
  }

  /** The {@code i}-th of {@link #values(int, int)}, without the list. */
  default byte[] value(int doc, int field, int i) {
    return values(doc, field).get(i);
  }

  /**
   * One field's values in all documents: document {@code d}'s at {@code values[start[d], start[d +
   * 1])}, in the order {@link #values(int, int)} gives them. NOTE: shared, do not modify.
   */
  record Column(byte[][] values, int[] start) {}

  /**
   * The values of field {@code field} in every document, as {@link #values(int, int)} gives them
   * document by document.
   */
  default Column column(int field) {
    return Columns.one(this, field);
  }

  /** The payload of document {@code doc}; not modified by the caller. */
  byte[] payload(int doc);

  /** The payload length of document {@code doc}. */
  default int payloadLength(int doc) {
    return payload(doc).length;
  }

  /** Whether documents may be appended to the list behind this source. */
  default boolean addable() {
    return false;
  }

  /**
   * A view of a growing list of documents of {@code schema}. Its {@link #column columns} are read
   * in one pass over the documents, all fields at once, and kept while no document is added: a
   * partition's documents, each an object graph of its own, are walked once rather than once per
   * field (per field, every value cost a few cache misses).
   */
  static DocumentSource of(Schema schema, List<Document> documents) {
    int fields = schema.fields().size();
    return new DocumentSource() {
      private Column[] columns;
      private int columnsSize = -1;

      @Override
      public int size() {
        return documents.size();
      }

      @Override
      public Column column(int field) {
        if (columnsSize != documents.size()) {
          columns = Columns.all(this, fields);
          columnsSize = documents.size();
        }
        return columns[field];
      }

      @Override
      public List<byte[]> values(int doc, int field) {
        return documents.get(doc).values(field);
      }

      @Override
      public int valueCount(int doc, int field) {
        return documents.get(doc).valueCount(field);
      }

      @Override
      public byte[] value(int doc, int field, int i) {
        return documents.get(doc).value(field, i);
      }

      @Override
      public byte[] payload(int doc) {
        return documents.get(doc).payload();
      }

      @Override
      public boolean addable() {
        return true;
      }
    };
  }
}
