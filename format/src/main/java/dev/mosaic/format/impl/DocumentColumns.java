package dev.mosaic.format.impl;

import dev.mosaic.format.Document;
import java.util.Arrays;
import java.util.Objects;

/**
 * The documents a {@link DatabaseWriter} writes and a {@link PartitionUpdate} adds, by id: a
 * growing list held as one column per field of comparable-byte values, and the payloads. Each value
 * is appended to its field's column as the document is added, so the writer reads a field's values
 * as one array ({@link #column}) instead of walking every document's object graph once more. A
 * document is added whole ({@link #add(Document)}) or value by value ({@link #append} then {@link
 * #end}), which is how {@link dev.mosaic.format.DatabaseUpdate} takes a {@link Document.Builder}'s
 * values without a {@link Document} in between.
 *
 * <p>Thread safety: not thread safe; one writer thread. NOTE: values and payloads are kept by
 * reference (the callers hand over arrays they no longer modify); a {@link Column} given out is
 * valid until the next document is added.
 */
public final class DocumentColumns {
  /**
   * One field's values in all documents: document {@code d}'s at {@code values[start[d], start[d +
   * 1])}, in the order they were appended, for {@code d} below {@link #size()} (either array may be
   * longer). NOTE: shared, do not modify.
   */
  record Column(byte[][] values, int[] start) {}

  /** Per field, its values in document order: document {@code d}'s at {@code [start, start')}. */
  private final byte[][][] values;

  /** Per field, where each document's values start; entry {@code size} is the field's total. */
  private final int[][] start;

  /** Per field, values appended so far (the current document's included). */
  private final int[] used;

  private byte[][] payloads = new byte[16][];
  private int size;

  /** Empty, for documents of a schema of {@code fields} fields. */
  public DocumentColumns(int fields) {
    values = new byte[fields][16][];
    start = new int[fields][17];
    used = new int[fields];
  }

  /** Adds a built document. */
  public void add(Document document) {
    for (int f = 0; f < values.length; f++) {
      for (int i = 0, n = document.valueCount(f); i < n; i++) {
        append(f, document.value(f, i));
      }
    }
    end(document.payload());
  }

  /**
   * Appends a value of field {@code field} to the document being added (the values already checked
   * and encoded; a field's values in the order given).
   */
  public void append(int field, byte[] value) {
    byte[][] column = values[field];
    int at = used[field];
    if (at == column.length) {
      column = values[field] = Arrays.copyOf(column, grown(column.length));
    }
    column[at] = value;
    used[field] = at + 1;
  }

  /** Ends the document being added: its payload (an empty array when none). */
  public void end(byte[] payload) {
    if (size == Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("a database holds at most " + size + " documents");
    }
    if (size == payloads.length) {
      payloads = Arrays.copyOf(payloads, grown(payloads.length));
    }
    payloads[size] = payload;
    int next = size + 1;
    for (int f = 0; f < start.length; f++) {
      if (next + 1 > start[f].length) {
        start[f] = Arrays.copyOf(start[f], grown(start[f].length));
      }
      start[f][next] = used[f];
    }
    size = next;
  }

  private static int grown(int length) {
    long grown = length * 2L;
    if (grown > Integer.MAX_VALUE - 16) {
      if (length == Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("a column holds at most " + length + " values");
      }
      return Integer.MAX_VALUE - 16;
    }
    return (int) grown;
  }

  /** Number of documents. */
  public int size() {
    return size;
  }

  /** The values of field {@code field} (schema index) in every document. */
  Column column(int field) {
    return new Column(values[field], start[field]);
  }

  /** The payload of document {@code doc} (an empty array when none); not modified by the caller. */
  byte[] payload(int doc) {
    Objects.checkIndex(doc, size);
    return payloads[doc];
  }

  /** The payload length of document {@code doc}. */
  int payloadLength(int doc) {
    return payload(doc).length;
  }
}
