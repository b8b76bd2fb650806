package dev.mosaic.format.impl;

import java.util.Arrays;
import java.util.List;

/** Reads fields' values into {@link DocumentSource.Column}s. Not instantiable. */
final class Columns {
  private Columns() {}

  /**
   * With {@code only} < 0 the columns of fields {@code [0, fields)}, read in one pass over the
   * documents; else the column of field {@code only} alone (at index 0).
   */
  static DocumentSource.Column[] of(DocumentSource source, int fields, int only) {
    int n = source.size();
    int count = only < 0 ? fields : 1;
    byte[][][] values = new byte[count][Math.max(16, n)][];
    int[][] starts = new int[count][n + 1];
    int[] used = new int[count];
    for (int doc = 0; doc < n; doc++) {
      for (int c = 0; c < count; c++) {
        int field = only < 0 ? c : only;
        List<byte[]> v = source.values(doc, field);
        int size = v.size();
        starts[c][doc] = used[c];
        if (used[c] + size > values[c].length) {
          long grown = Math.max((long) used[c] + size, values[c].length * 2L);
          if (grown > Integer.MAX_VALUE - 16) {
            throw new IllegalStateException("field " + field + " has too many values: " + grown);
          }
          values[c] = Arrays.copyOf(values[c], (int) grown);
        }
        for (int i = 0; i < size; i++) {
          values[c][used[c]++] = v.get(i);
        }
      }
    }
    DocumentSource.Column[] columns = new DocumentSource.Column[count];
    for (int c = 0; c < count; c++) {
      starts[c][n] = used[c];
      columns[c] = new DocumentSource.Column(values[c], starts[c]);
    }
    return columns;
  }
}
