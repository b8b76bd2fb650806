package dev.mosaic.format.impl;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;

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
 * <p>Surviving a reopen: a dictionary {@linkplain #successor made for the next composite} inherits
 * every field dictionary of this one (built, or itself inherited and not yet used) with the set of
 * partition positions that changed since it was built. The first use of the field in the successor
 * patches it: only the values of the changed partitions are looked up and only the lists of those
 * values are rewritten, so a reopen that replaced one partition pays for that partition alone. When
 * positions moved (a grouped composite whose replaced partition split a group's window into two
 * units), the unchanged ones keep their entries where they moved to and only the per-value lists
 * are recounted. When more than {@link #PATCH_LIMIT_DIVISOR 1/8} of the positions changed, the
 * field is built anew.
 *
 * <p>Thread safety: safe for concurrent use; building a field's dictionary is synchronized, a built
 * dictionary is immutable and published through a final-field object.
 */
final class CompositeDictionary {
  /** Default heap budget of all dictionaries of one composite. */
  static final long DEFAULT_BUDGET_BYTES = 16L << 20;

  /** Estimated heap bytes of a distinct value beyond its bytes (map entry, boxes, arrays). */
  private static final int PER_VALUE_OVERHEAD = 160;

  /** Heap bytes of one (partition, value) entry: partition, rank, id and count. */
  private static final int PER_ENTRY_BYTES = 16;

  /**
   * Above this many (partition, value) entries, a field with more than one distinct value per two
   * documents is taken for an id and gets no dictionary.
   */
  private static final long HIGH_CARDINALITY_ENTRIES = 1 << 16;

  /** An inherited field is patched when at most 1/this of the positions changed, else rebuilt. */
  private static final int PATCH_LIMIT_DIVISOR = 8;

  private static final Field UNAVAILABLE =
      new Field(null, null, null, null, null, null, null, null, 0);

  private final DatabaseReader[] readers;
  private final Field[] fields;

  /** Per field: a predecessor's dictionary not yet patched for these partitions, or null. */
  private final Inherited[] inherited;

  private long budgetLeft;

  /** Fields derived by patching an inherited dictionary (for tests). */
  private int patched;

  /** {@code readers}: every partition, none null. */
  CompositeDictionary(DatabaseReader[] readers, int fieldCount, long budgetBytes) {
    this(readers, new Inherited[fieldCount], budgetBytes);
  }

  private CompositeDictionary(DatabaseReader[] readers, Inherited[] inherited, long budgetBytes) {
    this.readers = readers;
    this.fields = new Field[inherited.length];
    this.inherited = inherited;
    this.budgetLeft = budgetBytes;
  }

  /**
   * The dictionary of a composite over {@code next} (none null) that inherits this one's field
   * dictionaries: a position keeps its entries when {@code next} holds the very same reader there,
   * or when that reader was at another position here (the units of a grouped composite shift when a
   * replaced partition splits its group's window, see {@code GroupLayout}). Costs one identity
   * comparison per position (and an identity map of the positions when they moved); the patching
   * happens on a field's first use.
   */
  synchronized CompositeDictionary successor(DatabaseReader[] next, long budgetBytes) {
    int[] from = new int[next.length];
    int misses = 0;
    for (int i = 0; i < next.length; i++) {
      boolean same = i < readers.length && readers[i] == next[i];
      from[i] = same ? i : -1;
      misses += same ? 0 : 1;
    }
    if (misses > 1 || (misses > 0 && next.length != readers.length)) {
      java.util.Map<DatabaseReader, Integer> at = new java.util.IdentityHashMap<>();
      for (int i = readers.length - 1; i >= 0; i--) {
        at.put(readers[i], i); // the first position of a reader listed twice
      }
      for (int i = 0; i < next.length; i++) {
        if (from[i] < 0) {
          from[i] = at.getOrDefault(next[i], -1);
        }
      }
    }
    Inherited[] passed = new Inherited[fields.length];
    for (int f = 0; f < fields.length; f++) {
      Field built = fields[f];
      if (built != null && built != UNAVAILABLE) {
        passed[f] = Inherited.of(built, from);
      } else if (built == null && inherited[f] != null) {
        Inherited before = inherited[f];
        int[] composed = new int[from.length];
        for (int i = 0; i < from.length; i++) {
          composed[i] = from[i] < 0 ? -1 : before.positionOf(from[i]);
        }
        passed[f] = Inherited.of(before.field, composed);
      }
    }
    return new CompositeDictionary(next, passed, budgetBytes);
  }

  /**
   * A predecessor's field dictionary and where this composite's positions were in it: either
   * positions stayed in place ({@code from} null) and {@code changed} holds those to look up anew
   * and those that went; or they moved, {@code from[i]} is position {@code i}'s position in the
   * field (-1: look it up anew) and {@code changed} holds the positions to look up.
   */
  private record Inherited(Field field, java.util.BitSet changed, int[] from) {
    static Inherited of(Field field, int[] from) {
      int oldN = field.idsByPartition.length;
      java.util.BitSet changed = new java.util.BitSet();
      boolean inPlace = true;
      for (int i = 0; i < from.length; i++) {
        if (from[i] < 0) {
          changed.set(i);
        } else {
          inPlace &= from[i] == i;
        }
      }
      if (!inPlace) {
        return new Inherited(field, changed, from);
      }
      changed.set(from.length, Math.max(from.length, oldN)); // positions that went
      return new Inherited(field, changed, null);
    }

    /** Where position {@code i} of the composite this was passed to is in the field, or -1. */
    int positionOf(int i) {
      return from != null ? from[i] : changed.get(i) ? -1 : i;
    }

    /** Positions to look up anew (and, in place, positions that went). */
    int changedCount() {
      return changed.cardinality();
    }
  }

  /** How many field dictionaries were derived by patching a predecessor's. */
  synchronized int patchedFields() {
    return patched;
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
    Inherited from = inherited[index];
    inherited[index] = null;
    f = null;
    if (from != null
        && (long) from.changedCount() * PATCH_LIMIT_DIVISOR <= readers.length
        && from.field.heapBytes <= budgetLeft) {
      f =
          from.from == null
              ? patch(index, from.field, from.changed)
              : remap(index, from.field, from.from, from.changed);
      patched += f == null ? 0 : 1;
    }
    if (f == null) {
      f = tryBuild(index);
    }
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
    long estimate = entries * PER_ENTRY_BYTES;
    long documents = 0;
    for (DatabaseReader r : readers) {
      documents += r.documents();
    }
    if (estimate > budgetLeft || (entries > HIGH_CARDINALITY_ENTRIES && entries > documents / 2)) {
      return null; // over budget, or about one value per document (an id): not worth it
    }
    java.util.BitSet all = new java.util.BitSet(readers.length);
    all.set(0, readers.length);
    return patch(index, Field.EMPTY, all);
  }

  /**
   * {@code old} (built over other partitions) made true for this composite's: the entries of the
   * positions in {@code changed} are dropped and those of this composite's partitions at these
   * positions added; every other value's lists are shared with {@code old}. Null when the result
   * does not fit the budget.
   */
  private Field patch(int index, Field old, java.util.BitSet changed) {
    int n = readers.length;
    int oldN = old.idsByPartition.length;
    long[] totals = old.totals.clone();
    int[][] partitions = old.partitions.clone();
    int[][] ranks = old.ranks.clone();
    int[][] idsByPartition = Arrays.copyOf(old.idsByPartition, n);
    int[][] countsByPartition = Arrays.copyOf(old.countsByPartition, n);
    boolean[] single = Arrays.copyOf(old.single, n);
    long estimate = old.heapBytes;
    java.util.BitSet affected = new java.util.BitSet();
    for (int p = changed.nextSetBit(0); p >= 0 && p < oldN; p = changed.nextSetBit(p + 1)) {
      int[] idOf = old.idsByPartition[p];
      int[] countOf = old.countsByPartition[p];
      for (int rank = 0; rank < idOf.length; rank++) {
        totals[idOf[rank]] -= countOf[rank];
        affected.set(idOf[rank]);
      }
      estimate -= (long) idOf.length * PER_ENTRY_BYTES;
    }
    // new (id, partition, rank) entries, in ascending partition order
    IntArrayList addedIds = new IntArrayList();
    IntArrayList addedPartitions = new IntArrayList();
    IntArrayList addedRanks = new IntArrayList();
    NewValues added = new NewValues(old);
    for (int p = changed.nextSetBit(0); p >= 0 && p < n; p = changed.nextSetBit(p + 1)) {
      FieldReader f = fieldOf(p, index);
      single[p] = f.singleValued;
      int[] countOf = new int[f.valueCount];
      int[] idOf = added.idsOf(f, countOf);
      for (int rank = 0; rank < idOf.length; rank++) {
        int id = idOf[rank];
        if (id >= totals.length) {
          int grown = Math.max(16, Math.max(id + 1, totals.length * 2));
          totals = Arrays.copyOf(totals, grown);
          partitions = Arrays.copyOf(partitions, grown);
          ranks = Arrays.copyOf(ranks, grown);
        }
        if (partitions[id] == null) { // a value no partition had
          partitions[id] = new int[0];
          ranks[id] = new int[0];
        }
        totals[id] += countOf[rank];
        affected.set(id);
        addedIds.add(id);
        addedPartitions.add(p);
        addedRanks.add(rank);
      }
      idsByPartition[p] = idOf;
      countsByPartition[p] = countOf;
      estimate += (long) f.valueCount * PER_ENTRY_BYTES;
    }
    int valueCount = added.count;
    byte[][] values = added.values;
    estimate += added.bytes;
    if (estimate > budgetLeft) {
      return null;
    }
    // group the added entries by id (a stable counting sort keeps partitions ascending)
    int[] start = new int[valueCount + 1];
    for (int i = 0; i < addedIds.size(); i++) {
      start[addedIds.getInt(i) + 1]++;
    }
    for (int id = 0; id < valueCount; id++) {
      start[id + 1] += start[id];
    }
    int[] fill = Arrays.copyOf(start, valueCount);
    int[] byIdPartition = new int[addedIds.size()];
    int[] byIdRank = new int[addedIds.size()];
    for (int i = 0; i < addedIds.size(); i++) {
      int at = fill[addedIds.getInt(i)]++;
      byIdPartition[at] = addedPartitions.getInt(i);
      byIdRank[at] = addedRanks.getInt(i);
    }
    // one position replaced in place (a searcher's usual reopen): each list changes at one place
    int only = changed.cardinality() == 1 ? changed.nextSetBit(0) : -1;
    boolean inPlace = only >= 0 && only < oldN && only < n;
    for (int id = affected.nextSetBit(0); id >= 0; id = affected.nextSetBit(id + 1)) {
      int[] oldParts = partitions[id];
      int[] oldRanks = ranks[id];
      int a = start[id];
      int b = start[id + 1];
      if (inPlace) {
        replaceAt(partitions, ranks, id, only, b > a ? byIdRank[a] : -1);
        continue;
      }
      int[] parts = new int[oldParts.length + (b - a)];
      int[] rks = new int[parts.length];
      int out = 0;
      int i = 0;
      while (i < oldParts.length || a < b) {
        boolean takeOld = i < oldParts.length && (a >= b || oldParts[i] < byIdPartition[a]);
        if (takeOld) {
          if (!changed.get(oldParts[i])) {
            parts[out] = oldParts[i];
            rks[out++] = oldRanks[i];
          }
          i++;
        } else {
          parts[out] = byIdPartition[a];
          rks[out++] = byIdRank[a++];
        }
      }
      partitions[id] = out == parts.length ? parts : Arrays.copyOf(parts, out);
      ranks[id] = out == rks.length ? rks : Arrays.copyOf(rks, out);
    }
    return new Field(
        added.ids(),
        values,
        Arrays.copyOf(totals, valueCount),
        Arrays.copyOf(partitions, valueCount),
        Arrays.copyOf(ranks, valueCount),
        idsByPartition,
        countsByPartition,
        single,
        estimate);
  }

  /**
   * {@code old} made true for this composite's partitions when positions moved: position {@code p}
   * takes the entries of {@code old}'s position {@code from[p]} (shared, not copied), the positions
   * in {@code changed} are looked up anew, and the per-value lists and totals are recounted from
   * the per-position entries (integer work only, no value lookup). Null when the result does not
   * fit the budget.
   */
  private Field remap(int index, Field old, int[] from, java.util.BitSet changed) {
    int n = readers.length;
    int[][] idsByPartition = new int[n][];
    int[][] countsByPartition = new int[n][];
    boolean[] single = new boolean[n];
    long oldEntries = 0;
    for (int[] ids : old.idsByPartition) {
      oldEntries += ids.length;
    }
    long estimate = old.heapBytes - oldEntries * PER_ENTRY_BYTES;
    NewValues added = new NewValues(old);
    long entries = 0;
    for (int p = 0; p < n; p++) {
      if (from[p] >= 0) {
        idsByPartition[p] = old.idsByPartition[from[p]];
        countsByPartition[p] = old.countsByPartition[from[p]];
        single[p] = old.single[from[p]];
      } else {
        FieldReader f = fieldOf(p, index);
        single[p] = f.singleValued;
        countsByPartition[p] = new int[f.valueCount];
        idsByPartition[p] = added.idsOf(f, countsByPartition[p]);
      }
      entries += idsByPartition[p].length;
    }
    int valueCount = added.count;
    estimate += added.bytes;
    estimate += entries * PER_ENTRY_BYTES;
    if (estimate > budgetLeft) {
      return null;
    }
    // per value: the positions having it, ascending, and its rank there (a counting sort)
    long[] totals = new long[valueCount];
    int[] start = new int[valueCount + 1];
    for (int p = 0; p < n; p++) {
      int[] idOf = idsByPartition[p];
      int[] countOf = countsByPartition[p];
      for (int rank = 0; rank < idOf.length; rank++) {
        start[idOf[rank] + 1]++;
        totals[idOf[rank]] += countOf[rank];
      }
    }
    int[][] partitions = new int[valueCount][];
    int[][] ranks = new int[valueCount][];
    for (int id = 0; id < valueCount; id++) {
      int size = start[id + 1];
      partitions[id] = new int[size];
      ranks[id] = new int[size];
      start[id + 1] = 0; // reused as the fill position of value id
    }
    for (int p = 0; p < n; p++) {
      int[] idOf = idsByPartition[p];
      for (int rank = 0; rank < idOf.length; rank++) {
        int id = idOf[rank];
        int at = start[id + 1]++;
        partitions[id][at] = p;
        ranks[id][at] = rank;
      }
    }
    return new Field(
        added.ids(),
        added.values,
        totals,
        partitions,
        ranks,
        idsByPartition,
        countsByPartition,
        single,
        estimate);
  }

  /** Position {@code p}'s reader of field {@code index}, checked open. */
  private FieldReader fieldOf(int p, int index) {
    DatabaseReader r = readers[p];
    r.ensureOpen();
    return r.field(index);
  }

  /**
   * The value ids of a field being patched: those of the field it is derived from, and ids from its
   * value count on for the values no partition had. Not thread safe: one per patch.
   */
  private static final class NewValues {
    private final Field old;
    private final HashMap<ByteBuffer, Integer> fresh;

    /** Per value id: the bytes (the old field's array until a value is added). */
    byte[][] values;

    /** Value ids given so far. */
    int count;

    /** Estimated heap bytes of the values added. */
    long bytes;

    NewValues(Field old) {
      this.old = old;
      this.fresh = new HashMap<>(old.ids.extra);
      this.values = old.values;
      this.count = old.totals.length;
    }

    /** The value id of each rank of {@code f}; fills {@code countOf} with each rank's count. */
    int[] idsOf(FieldReader f, int[] countOf) {
      int[] idOf = new int[f.valueCount];
      for (int rank = 0; rank < f.valueCount; rank++) {
        byte[] value = f.valueBytes(rank);
        ByteBuffer key = ByteBuffer.wrap(value);
        Integer id = old.ids.get(key);
        if (id == null) {
          id = fresh.get(key);
        }
        if (id == null) {
          id = count++;
          fresh.put(key, id);
          if (values == old.values || id >= values.length) {
            // copied before the first write: the old array belongs to the old dictionary
            values = Arrays.copyOf(values, Math.max(16, (id + 1) * 2));
          }
          values[id] = value;
          bytes += PER_VALUE_OVERHEAD + value.length;
        }
        idOf[rank] = id;
        countOf[rank] = f.count(rank);
      }
      return idOf;
    }

    /** The value-to-id map of the derived field. */
    ValueIds ids() {
      return old.ids.base.isEmpty()
          ? new ValueIds(fresh, Map.of())
          : fresh.size() * 4L > old.ids.base.size() + 64L
              ? old.ids.flattened(fresh)
              : new ValueIds(old.ids.base, fresh);
    }
  }

  /**
   * Value {@code id}'s lists with position {@code p}'s entry set to {@code rank} (-1: removed): the
   * lists are copied in bulk; the partitions list stays shared when only the rank changes, and both
   * when nothing does.
   */
  private static void replaceAt(int[][] partitions, int[][] ranks, int id, int p, int rank) {
    int[] parts = partitions[id];
    int[] rks = ranks[id];
    int at = Arrays.binarySearch(parts, p);
    if (at >= 0 && rank >= 0) {
      if (rks[at] != rank) {
        rks = rks.clone(); // the partitions stay shared
        rks[at] = rank;
        ranks[id] = rks;
      }
    } else if (at >= 0) {
      int[] np = new int[parts.length - 1];
      int[] nr = new int[np.length];
      System.arraycopy(parts, 0, np, 0, at);
      System.arraycopy(parts, at + 1, np, at, np.length - at);
      System.arraycopy(rks, 0, nr, 0, at);
      System.arraycopy(rks, at + 1, nr, at, nr.length - at);
      partitions[id] = np;
      ranks[id] = nr;
    } else if (rank >= 0) {
      int ins = -at - 1;
      int[] np = new int[parts.length + 1];
      int[] nr = new int[np.length];
      System.arraycopy(parts, 0, np, 0, ins);
      System.arraycopy(parts, ins, np, ins + 1, parts.length - ins);
      System.arraycopy(rks, 0, nr, 0, ins);
      System.arraycopy(rks, ins, nr, ins + 1, rks.length - ins);
      np[ins] = p;
      nr[ins] = rank;
      partitions[id] = np;
      ranks[id] = nr;
    }
  }

  /**
   * Value bytes to value id: a large map shared by the dictionaries derived from one another and a
   * small one of the values added since (folded into a new shared map when it grows). Immutable.
   */
  private record ValueIds(Map<ByteBuffer, Integer> base, Map<ByteBuffer, Integer> extra) {
    Integer get(ByteBuffer key) {
      Integer id = base.get(key);
      return id != null || extra.isEmpty() ? id : extra.get(key);
    }

    ValueIds flattened(Map<ByteBuffer, Integer> added) {
      HashMap<ByteBuffer, Integer> all = new HashMap<>(base);
      all.putAll(added);
      return new ValueIds(all, Map.of());
    }
  }

  /** One field's dictionary. Immutable. */
  static final class Field {
    /** The dictionary of no partition, what a new field's dictionary is patched from. */
    private static final Field EMPTY =
        new Field(
            new ValueIds(Map.of(), Map.of()),
            new byte[0][],
            new long[0],
            new int[0][],
            new int[0][],
            new int[0][],
            new int[0][],
            new boolean[0],
            0);

    private final ValueIds ids;

    /**
     * Per value id: the value's bytes (do not modify; may be longer than the number of values;
     * shared with the dictionaries derived from this one that add no value).
     */
    private final byte[][] values;

    /** Per value id: documents having the value, over all partitions. */
    final long[] totals;

    /** Per value id: ascending indexes of the partitions having the value. */
    final int[][] partitions;

    /** Per value id: the value's rank in each of {@link #partitions}. */
    final int[][] ranks;

    /** Per partition, per rank: the value id (what a successor drops when the partition goes). */
    private final int[][] idsByPartition;

    /** Per partition, per rank: the documents having the value. */
    private final int[][] countsByPartition;

    /** Per partition: whether the field is single-valued there. */
    private final boolean[] single;

    /** True when every partition's field is single-valued. */
    final boolean singleValued;

    final long heapBytes;

    private Field(
        ValueIds ids,
        byte[][] values,
        long[] totals,
        int[][] partitions,
        int[][] ranks,
        int[][] idsByPartition,
        int[][] countsByPartition,
        boolean[] single,
        long heapBytes) {
      this.ids = ids;
      this.values = values;
      this.totals = totals;
      this.partitions = partitions;
      this.ranks = ranks;
      this.idsByPartition = idsByPartition;
      this.countsByPartition = countsByPartition;
      this.single = single;
      boolean all = true;
      if (single != null) {
        for (boolean b : single) {
          all &= b;
        }
      }
      this.singleValued = all;
      this.heapBytes = heapBytes;
    }

    /** Number of value ids. */
    int valueCount() {
      return totals.length;
    }

    /** The bytes of value {@code id} (do not modify). */
    byte[] value(int id) {
      return values[id];
    }

    /** Value index → value id in partition {@code partition} (do not modify). */
    int[] idsOf(int partition) {
      return idsByPartition[partition];
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
   * in} values in that partition ({@link PartitionSearcher#UNRESOLVED} for leaves without a
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
      Arrays.fill(resolved, PartitionSearcher.UNRESOLVED);
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
