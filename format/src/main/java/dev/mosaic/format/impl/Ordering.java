package dev.mosaic.format.impl;

import it.unimi.dsi.fastutil.ints.IntArrays;
import java.util.Arrays;

/**
 * Orders one partition's matches by sort keys, ties by document id. Within a partition the value
 * rank stands for the value (value sets are sorted), so keys compare as integers: when the ranks of
 * all keys and the document id fit in 64 bits they are packed into one long and sorted as
 * primitives (a bounded heap keeps only the first {@code k}); otherwise ids are sorted with a
 * comparator over the ranks.
 */
final class Ordering {
  private Ordering() {}

  /**
   * Per thread: the buffer {@link #walk} collects one value's documents into (it never escapes a
   * call: its documents are copied out), kept between queries up to {@link #MAX_RETAINED_GROUP}
   * ints so that a query does not allocate one per partition.
   */
  private static final ThreadLocal<int[]> GROUP_SCRATCH =
      ThreadLocal.withInitial(() -> new int[1024]);

  private static final int MAX_RETAINED_GROUP = 1 << 16;

  /** The first {@code min(k, |m|)} matching documents in order. */
  static int[] top(
      PartitionSearcher db, Matches m, int[] orderFields, boolean[] descending, int k) {
    FieldReader first = db.field(orderFields[0]);
    if (first.postings >= 0 && k < db.documents()) {
      long matches = db.count(m);
      // Walking values in order visits about k * n / matches documents; sorting visits matches.
      if (matches > 64 && (double) k * db.documents() / matches * 4 < matches) {
        return walk(db, m, first, orderFields, descending, k);
      }
    }
    return sort(db, db.documentIds(m), orderFields, descending, k);
  }

  /**
   * Walks the first key's values in order and emits each value's matching documents (ascending
   * ids), ordering a value's group by the remaining keys; stops once {@code k} are found.
   */
  private static int[] walk(
      PartitionSearcher db,
      Matches m,
      FieldReader first,
      int[] orderFields,
      boolean[] descending,
      int k) {
    long[] filter = m.kind == Matches.ALL ? null : db.materialize(m);
    int[] out = new int[k];
    int n = 0;
    int[] group = GROUP_SCRATCH.get();
    int[] restFields = Arrays.copyOfRange(orderFields, 1, orderFields.length);
    boolean[] restDesc = Arrays.copyOfRange(descending, 1, descending.length);
    int values = first.valueCount;
    for (int step = 0; step < values && n < k; step++) {
      int rank = descending[0] ? values - 1 - step : step;
      int count = first.count(rank);
      if (count == 0) {
        continue;
      }
      if (group.length < count) {
        group = new int[Math.max(count, group.length * 2)];
        if (group.length <= MAX_RETAINED_GROUP) {
          GROUP_SCRATCH.set(group);
        }
      }
      int g = first.collect(rank, filter, group);
      if (g == 0) {
        continue;
      }
      int[] ordered = group;
      if (restFields.length > 0 && g > 1) {
        ordered = sort(db, Arrays.copyOf(group, g), restFields, restDesc, k - n);
        g = ordered.length;
      }
      int take = Math.min(g, k - n);
      System.arraycopy(ordered, 0, out, n, take);
      n += take;
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  /** Sorts {@code ids} (ascending document ids) by the keys and returns the first k. */
  private static int[] sort(
      PartitionSearcher db, int[] ids, int[] orderFields, boolean[] descending, int k) {
    int n = ids.length;
    if (n == 0 || k == 0) {
      return new int[0];
    }
    FieldReader[] keys = new FieldReader[orderFields.length];
    int bits = 0;
    for (int i = 0; i < keys.length; i++) {
      keys[i] = db.field(orderFields[i]);
      bits += keys[i].bitWidth;
    }
    if (bits <= 31) {
      return packed(ids, keys, descending, k);
    }
    IntArrays.quickSort(
        ids,
        (a, b) -> {
          for (int i = 0; i < keys.length; i++) {
            int c = Integer.compare(keys[i].valueIndex(a), keys[i].valueIndex(b));
            if (c != 0) {
              return descending[i] ? -c : c;
            }
          }
          return Integer.compare(a, b);
        });
    return k >= n ? ids : Arrays.copyOf(ids, k);
  }

  private static long key(int doc, FieldReader[] keys, boolean[] descending) {
    long key = 0;
    for (int i = 0; i < keys.length; i++) {
      FieldReader f = keys[i];
      int rank = f.valueIndex(doc);
      if (descending[i]) {
        rank = f.valueCount - 1 - rank;
      }
      key = (key << f.bitWidth) | rank;
    }
    return (key << 32) | doc;
  }

  private static int[] packed(int[] ids, FieldReader[] keys, boolean[] descending, int k) {
    int n = ids.length;
    if (k == 1) {
      long best = Long.MAX_VALUE;
      for (int doc : ids) {
        best = Math.min(best, key(doc, keys, descending));
      }
      return new int[] {(int) best};
    }
    if (k < n && k <= 1024 && k < n / 8) {
      // Bounded max-heap of the k smallest keys.
      long[] heap = new long[k];
      int size = 0;
      for (int doc : ids) {
        long key = key(doc, keys, descending);
        if (size < k) {
          int i = size++;
          while (i > 0) {
            int parent = (i - 1) >>> 1;
            if (heap[parent] >= key) {
              break;
            }
            heap[i] = heap[parent];
            i = parent;
          }
          heap[i] = key;
        } else if (key < heap[0]) {
          int i = 0;
          while (true) {
            int child = 2 * i + 1;
            if (child >= k) {
              break;
            }
            if (child + 1 < k && heap[child + 1] > heap[child]) {
              child++;
            }
            if (heap[child] <= key) {
              break;
            }
            heap[i] = heap[child];
            i = child;
          }
          heap[i] = key;
        }
      }
      Arrays.sort(heap, 0, size);
      int[] out = new int[size];
      for (int i = 0; i < size; i++) {
        out[i] = (int) heap[i];
      }
      return out;
    }
    long[] all = new long[n];
    for (int i = 0; i < n; i++) {
      all[i] = key(ids[i], keys, descending);
    }
    Arrays.sort(all);
    int[] out = new int[Math.min(k, n)];
    for (int i = 0; i < out.length; i++) {
      out[i] = (int) all[i];
    }
    return out;
  }
}
