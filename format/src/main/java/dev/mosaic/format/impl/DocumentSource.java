package dev.mosaic.format.impl;

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
   * 1])}, in the order {@link #values(int, int)} gives them, for {@code d} below {@link #size()}
   * (either array may be longer). NOTE: shared, do not modify.
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
}
