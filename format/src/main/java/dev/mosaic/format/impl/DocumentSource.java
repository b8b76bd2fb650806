package dev.mosaic.format.impl;

import dev.mosaic.format.Document;
import dev.mosaic.format.Field;
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

  /** A view of a growing list of documents of {@code schema}. */
  static DocumentSource of(Schema schema, List<Document> documents) {
    String[] names = schema.fields().stream().map(Field::name).toArray(String[]::new);
    return new DocumentSource() {
      @Override
      public int size() {
        return documents.size();
      }

      @Override
      public List<byte[]> values(int doc, int field) {
        return documents.get(doc).values(names[field]);
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
