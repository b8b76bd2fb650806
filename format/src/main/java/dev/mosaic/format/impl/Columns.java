package dev.mosaic.format.impl;

import java.util.Arrays;

/** Reads a field's values into a {@link DocumentSource.Column}. Not instantiable. */
final class Columns {
  private Columns() {}

  /** The column of field {@code field}, read document by document. */
  static DocumentSource.Column one(DocumentSource source, int field) {
    int n = source.size();
    byte[][] values = new byte[Math.max(16, n)][];
    int[] start = new int[n + 1];
    int used = 0;
    for (int doc = 0; doc < n; doc++) {
      int size = source.valueCount(doc, field);
      start[doc] = used;
      if (used + size > values.length) {
        long grown = Math.max((long) used + size, values.length * 2L);
        if (grown > Integer.MAX_VALUE - 16) {
          throw new IllegalStateException("field " + field + " has too many values: " + grown);
        }
        values = Arrays.copyOf(values, (int) grown);
      }
      for (int i = 0; i < size; i++) {
        values[used++] = source.value(doc, field, i);
      }
    }
    start[n] = used;
    return new DocumentSource.Column(values, start);
  }
}
