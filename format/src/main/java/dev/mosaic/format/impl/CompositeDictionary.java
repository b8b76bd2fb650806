package dev.mosaic.format.impl;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;

/**
 * Composite-level dictionaries of filterable fields: for every distinct value of a field over all
 * partitions, its total document count, the partitions that contain it and its rank in each. Built
 * lazily, one field at a time, the first time a query of the composite uses the field in an {@code
 * eq} or {@code in}, and only while the composite's heap budget allows (a field of about one
 * distinct value per document, an id say, does not fit and keeps the per-partition search).
 *
 * <p>With it, a composite answers a count of one {@code eq} (or of an {@code in} on a single-valued
 * field) from the totals without touching any partition, resolves {@code eq} and {@code in} leaves
 * to per-partition ranks without the binary search of each partition's value set (cold memory in a
 * separate mapping per partition), and skips outright the partitions that cannot match: those
 * lacking the value of an {@code eq} that the condition requires.
 *
 * <p>Thread safety: safe for concurrent use; building a field's dictionary is synchronized, a built
 * dictionary is immutable and published through a final-field object.
 */
final class CompositeDictionary {
  /** Default heap budget of all dictionaries of one composite. */
  static final long DEFAULT_BUDGET_BYTES = 16L << 20;

  /** Estimated heap bytes of a distinct value beyond its bytes (map entry, boxes, arrays). */
  private static final int PER_VALUE_OVERHEAD = 160;

  /**
   * Above this many (partition, value) entries, a field with more than one distinct value per two
   * documents is taken for an id and gets no dictionary.
   */
  private static final long HIGH_CARDINALITY_ENTRIES = 1 << 16;

  private static final Field UNAVAILABLE = new Field(null, null, null, null, false, 0);

  private final DatabaseReader[] readers;
  private final Field[] fields;
  private long budgetLeft;

  /** {@code readers}: every partition, none null. */
  CompositeDictionary(DatabaseReader[] readers, int fieldCount, long budgetBytes) {
    this.readers = readers;
    this.fields = new Field[fieldCount];
    this.budgetLeft = budgetBytes;
  }

  /** Heap bytes held by the dictionaries built so far (an estimate). */
  synchronized long heapBytes() {
    long n = 0;
    for (Field f : fields) {
      if (f != null && f != UNAVAILABLE) {
        n += f.heapBytes;
      }
    }
    return n;
  }

  /** The field's dictionary, built on first use; null when it does not fit the budget. */
  Field field(int index) {
    Field f = fields[index];
    if (f == null) {
      f = build(index);
    }
    return f == UNAVAILABLE ? null : f;
  }

  private synchronized Field build(int index) {
    Field f = fields[index];
    if (f != null) {
      return f;
    }
    f = tryBuild(index);
    if (f == null) {
      f = UNAVAILABLE;
    } else {
      budgetLeft -= f.heapBytes;
    }
    fields[index] = f;
    return f;
  }

  private Field tryBuild(int index) {
    long entries = 0;
    for (DatabaseReader r : readers) {
      r.ensureOpen();
      entries += r.field(index).valueCount;
    }
    long estimate = entries * 8;
    long documents = 0;
    for (DatabaseReader r : readers) {
      documents += r.documents();
    }
    if (estimate > budgetLeft || (entries > HIGH_CARDINALITY_ENTRIES && entries > documents / 2)) {
      return null; // over budget, or about one value per document (an id): not worth it
    }
    HashMap<ByteBuffer, Integer> ids = new HashMap<>();
    List<byte[]> values = new ArrayList<>();
    List<IntArrayList> partitions = new ArrayList<>();
    List<IntArrayList> ranks = new ArrayList<>();
    long[] totals = new long[16];
    boolean singleValued = true;
    for (int p = 0; p < readers.length; p++) {
      FieldReader f = readers[p].field(index);
      singleValued &= f.singleValued;
      for (int rank = 0; rank < f.valueCount; rank++) {
        byte[] value = f.valueBytes(rank);
        ByteBuffer key = ByteBuffer.wrap(value);
        Integer id = ids.get(key);
        if (id == null) {
          id = values.size();
          ids.put(key, id);
          values.add(value);
          partitions.add(new IntArrayList(4));
          ranks.add(new IntArrayList(4));
          if (id == totals.length) {
            totals = Arrays.copyOf(totals, id * 2);
          }
          estimate += PER_VALUE_OVERHEAD + value.length;
          if (estimate > budgetLeft) {
            return null;
          }
        }
        partitions.get(id).add(p);
        ranks.get(id).add(rank);
        totals[id] += f.count(rank);
      }
    }
    int[][] partitionArrays = new int[values.size()][];
    int[][] rankArrays = new int[values.size()][];
    for (int i = 0; i < partitionArrays.length; i++) {
      partitionArrays[i] = partitions.get(i).toIntArray();
      rankArrays[i] = ranks.get(i).toIntArray();
    }
    return new Field(
        ids,
        Arrays.copyOf(totals, values.size()),
        partitionArrays,
        rankArrays,
        singleValued,
        estimate);
  }

  /** One field's dictionary. Immutable. */
  static final class Field {
    private final HashMap<ByteBuffer, Integer> ids;

    /** Per value id: documents having the value, over all partitions. */
    final long[] totals;

    /** Per value id: ascending indexes of the partitions having the value. */
    final int[][] partitions;

    /** Per value id: the value's rank in each of {@link #partitions}. */
    final int[][] ranks;

    /** True when every partition's field is single-valued. */
    final boolean singleValued;

    final long heapBytes;

    private Field(
        HashMap<ByteBuffer, Integer> ids,
        long[] totals,
        int[][] partitions,
        int[][] ranks,
        boolean singleValued,
        long heapBytes) {
      this.ids = ids;
      this.totals = totals;
      this.partitions = partitions;
      this.ranks = ranks;
      this.singleValued = singleValued;
      this.heapBytes = heapBytes;
    }

    /** The value's id, or -1 when no partition has it. */
    int id(Key key) {
      Integer id = ids.get(ByteBuffer.wrap(key.bytes()));
      return id == null ? -1 : id;
    }
  }

  // ----- per query ----------------------------------------------------------------------------

  /**
   * The condition's count answered from the dictionaries alone, or -1 when it cannot be: an {@code
   * eq}, or an {@code in} on a field single-valued in every partition.
   */
  long count(Plan.Node node) {
    if (node instanceof Plan.Eq eq) {
      Field f = field(eq.field());
      if (f != null) {
        int id = f.id(eq.key());
        return id < 0 ? 0 : f.totals[id];
      }
    } else if (node instanceof Plan.In in) {
      Field f = field(in.field());
      if (f != null && f.singleValued) {
        long total = 0;
        for (Key k : in.keys()) {
          int id = f.id(k);
          total += id < 0 ? 0 : f.totals[id];
        }
        return total;
      }
    }
    return -1;
  }

  /** A walk over the partitions that can match {@code node}, in ascending order. */
  Walk walk(Plan.Node node) {
    return new Walk(this, node, readers.length);
  }

  /** A walk over every partition without resolved ranks. */
  static Walk walkAll(Plan.Node node, int partitionCount) {
    return new Walk(null, node, partitionCount);
  }

  /**
   * Visits, in ascending order, the partitions that can match a condition and, for each, fills
   * {@link #resolved} (indexed by leaf slot) with the ranks of the condition's {@code eq}/{@code
   * in} values in that partition ({@link DatabaseReader#UNRESOLVED} for leaves without a
   * dictionary). Not thread safe: one per query.
   */
  static final class Walk {
    /** Resolved ranks of the current partition, by leaf slot. */
    final int[] resolved;

    private final int partitionCount;
    private final int[] candidates;
    private int position;
    private int current = -1;

    /**
     * Dictionary leaves: slot, the value's partitions and ranks (null when no partition has it).
     */
    private int[] leafSlots = new int[0];

    private int[][] leafPartitions = new int[0][];
    private int[][] leafRanks = new int[0][];
    private int[] cursors;
    private int leaves;

    private Walk(CompositeDictionary dictionary, Plan.Node node, int partitionCount) {
      this.partitionCount = partitionCount;
      this.resolved = new int[Plan.slotCount(node)];
      Arrays.fill(resolved, DatabaseReader.UNRESOLVED);
      this.candidates = dictionary == null ? null : dictionary.resolve(node, this);
      this.cursors = new int[leaves];
    }

    private void addLeaf(int slot, int[] partitions, int[] ranks) {
      if (leaves == leafSlots.length) {
        int n = Math.max(4, leaves * 2);
        leafSlots = Arrays.copyOf(leafSlots, n);
        leafPartitions = Arrays.copyOf(leafPartitions, n);
        leafRanks = Arrays.copyOf(leafRanks, n);
      }
      leafSlots[leaves] = slot;
      leafPartitions[leaves] = partitions;
      leafRanks[leaves] = ranks;
      leaves++;
    }

    /** The next partition that can match (ranks in {@link #resolved}), or -1 at the end. */
    int next() {
      int p;
      if (candidates == null) {
        p = current + 1;
        if (p >= partitionCount) {
          return -1;
        }
      } else {
        if (position >= candidates.length) {
          return -1;
        }
        p = candidates[position++];
      }
      current = p;
      for (int l = 0; l < leaves; l++) {
        int[] partitions = leafPartitions[l];
        if (partitions == null) {
          resolved[leafSlots[l]] = -1;
          continue;
        }
        int c = cursors[l];
        while (c < partitions.length && partitions[c] < p) {
          c++;
        }
        cursors[l] = c;
        resolved[leafSlots[l]] = c < partitions.length && partitions[c] == p ? leafRanks[l][c] : -1;
      }
      return p;
    }
  }

  /**
   * Registers the condition's dictionary leaves with the walk and returns the ascending partitions
   * that can match, or null for all.
   */
  private int[] resolve(Plan.Node node, Walk walk) {
    return switch (node) {
      case Plan.Eq eq -> {
        Field f = eq.slot() < 0 ? null : field(eq.field());
        if (f == null) {
          yield null;
        }
        int id = f.id(eq.key());
        if (id < 0) {
          walk.addLeaf(eq.slot(), null, null);
          yield new int[0];
        }
        walk.addLeaf(eq.slot(), f.partitions[id], f.ranks[id]);
        yield f.partitions[id];
      }
      case Plan.In in -> {
        Field f = in.slot() < 0 ? null : field(in.field());
        if (f == null) {
          yield null;
        }
        int[] union = new int[0];
        for (int k = 0; k < in.keys().length; k++) {
          int id = f.id(in.keys()[k]);
          if (id < 0) {
            walk.addLeaf(in.slot() + k, null, null);
          } else {
            walk.addLeaf(in.slot() + k, f.partitions[id], f.ranks[id]);
            union = union(union, f.partitions[id]);
          }
        }
        yield union;
      }
      case Plan.And and -> {
        int[] result = null;
        for (Plan.Node c : and.children()) {
          int[] p = resolve(c, walk);
          if (p != null) {
            result = result == null ? p : intersection(result, p);
          }
        }
        yield result;
      }
      case Plan.Or or -> {
        int[] result = new int[0];
        boolean all = false;
        for (Plan.Node c : or.children()) {
          int[] p = resolve(c, walk);
          if (p == null) {
            all = true;
          } else if (!all) {
            result = union(result, p);
          }
        }
        yield all ? null : result;
      }
      case Plan.Not not -> {
        resolve(not.child(), walk); // ranks still help; the partitions do not
        yield null;
      }
      default -> null;
    };
  }

  static int[] union(int[] a, int[] b) {
    if (a.length == 0) {
      return b;
    }
    if (b.length == 0) {
      return a;
    }
    int[] out = new int[a.length + b.length];
    int i = 0;
    int j = 0;
    int n = 0;
    while (i < a.length && j < b.length) {
      if (a[i] < b[j]) {
        out[n++] = a[i++];
      } else if (a[i] > b[j]) {
        out[n++] = b[j++];
      } else {
        out[n++] = a[i++];
        j++;
      }
    }
    while (i < a.length) {
      out[n++] = a[i++];
    }
    while (j < b.length) {
      out[n++] = b[j++];
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  static int[] intersection(int[] a, int[] b) {
    int[] out = new int[Math.min(a.length, b.length)];
    int i = 0;
    int j = 0;
    int n = 0;
    while (i < a.length && j < b.length) {
      if (a[i] < b[j]) {
        i++;
      } else if (a[i] > b[j]) {
        j++;
      } else {
        out[n++] = a[i++];
        j++;
      }
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
  }
}
