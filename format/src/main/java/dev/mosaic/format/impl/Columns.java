package dev.mosaic.format.impl;

import java.util.Arrays;

/** Reads fields' values into {@link DocumentSource.Column}s. Not instantiable. */
final class Columns {
  private Columns() {}

  /** The column of field {@code field}. */
  static DocumentSource.Column one(DocumentSource source, int field) {
    return read(source, new int[] {field})[0];
  }

  /** The columns of fields {@code [0, fields)}, read in one pass over the documents. */
  static DocumentSource.Column[] all(DocumentSource source, int fields) {
    int[] all = new int[fields];
    Arrays.setAll(all, i -> i);
    return read(source, all);
  }

  /** The columns of {@code fields}, in that order, read in one pass over the documents. */
  private static DocumentSource.Column[] read(DocumentSource source, int[] fields) {
    int n = source.size();
    byte[][][] values = new byte[fields.length][Math.max(16, n)][];
    int[][] starts = new int[fields.length][n + 1];
    int[] used = new int[fields.length];
    for (int doc = 0; doc < n; doc++) {
      for (int c = 0; c < fields.length; c++) {
        int size = source.valueCount(doc, fields[c]);
        starts[c][doc] = used[c];
        if (used[c] + size > values[c].length) {
          long grown = Math.max((long) used[c] + size, values[c].length * 2L);
          if (grown > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException(
                "field " + fields[c] + " has too many values: " + grown);
          }
          values[c] = Arrays.copyOf(values[c], (int) grown);
        }
        for (int i = 0; i < size; i++) {
          values[c][used[c]++] = source.value(doc, fields[c], i);
        }
      }
    }
    DocumentSource.Column[] columns = new DocumentSource.Column[fields.length];
    for (int c = 0; c < fields.length; c++) {
      starts[c][n] = used[c];
      columns[c] = new DocumentSource.Column(values[c], starts[c]);
    }
    return columns;
  }
}
