package dev.mosaic.format.impl;

import dev.mosaic.format.Database;
import dev.mosaic.format.DocumentProcessor;
import dev.mosaic.format.PartitionGroup;
import dev.mosaic.format.Schema;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * The units a composite queries (partitions, and groups' merged databases read as windows; see
 * {@link GroupLayout}), each read directly through its {@link PartitionSearcher}, with the value
 * dictionaries over them: the per-unit steps every composite query path is made of (evaluate a
 * unit, count it, hand its documents on as their partition's, walk the units that can match).
 *
 * <p>Thread safety: immutable but for benign caches; safe for concurrent queries.
 */
final class CompositeUnits {
  private final List<Database> partitions;
  private final GroupLayout layout;

  /** The databases queried, in partition order (see {@link GroupLayout}). */
  private final Database[] units;

  /** Per unit: its window of documents, null when every unit is whole (see {@link GroupLayout}). */
  final int[] windowFrom;

  final int[] windowTo;

  /** Per unit: the unit, read directly. */
  final PartitionSearcher[] searchers;

  final long documentCount;

  /** Null when the budget is zero. */
  final CompositeDictionary dictionary;

  /** The distinct lifetimes of the partitions' memory (one per arena). */
  private final MemorySegment.Scope[] scopes;

  /** {@link DatabaseReader#CLOSES} when every partition was last seen open. */
  private volatile long openCheckedAt = -1;

  private static DatabaseReader[] readersOf(PartitionSearcher[] searchers) {
    DatabaseReader[] readers = new DatabaseReader[searchers.length];
    for (int i = 0; i < searchers.length; i++) {
      readers[i] = searchers[i].reader();
    }
    return readers;
  }

  /**
   * The units of {@code partitions} in {@code groups}, checked against {@code schema}, with value
   * dictionaries inherited from {@code predecessor}'s (when not null and both have them), see
   * {@link CompositeDictionary#successor}.
   */
  CompositeUnits(
      Schema schema,
      List<Database> partitions,
      List<PartitionGroup> groups,
      long dictionaryBudgetBytes,
      CompositeUnits predecessor) {
    this.partitions = partitions;
    this.layout =
        groups.isEmpty()
            ? GroupLayout.ungrouped(this.partitions)
            : GroupLayout.of(
                this.partitions, groups, predecessor == null ? null : predecessor.layout);
    this.units = layout.units;
    this.windowFrom = layout.windowFrom;
    this.windowTo = layout.windowTo;
    this.searchers = new PartitionSearcher[units.length];
    for (int i = 0; i < this.partitions.size(); i++) {
      Database d = this.partitions.get(i);
      if (d.schema() != schema && !d.schema().equals(schema)) {
        throw new IllegalArgumentException(
            "partition " + i + " (" + d + ") has schema " + d.schema() + ", expected " + schema);
      }
    }
    long n = 0;
    for (int i = 0; i < searchers.length; i++) {
      Database d = units[i];
      if (d.schema() != schema && !d.schema().equals(schema)) {
        throw new IllegalArgumentException(
            "group database " + d + " has schema " + d.schema() + ", expected " + schema);
      }
      searchers[i] = PartitionSearcher.of(d);
      n += windowFrom == null ? d.documentCount() : windowTo[i] - windowFrom[i];
    }
    this.documentCount = n;
    java.util.Set<MemorySegment.Scope> distinct =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (PartitionSearcher r : searchers) {
      distinct.add(r.reader().scope());
    }
    this.scopes = distinct.toArray(new MemorySegment.Scope[0]);
    if (dictionaryBudgetBytes <= 0) {
      // NOTE: with a partial window the dictionaries' whole-database totals are not used
      this.dictionary = null;
    } else if (predecessor != null && predecessor.dictionary != null) {
      this.dictionary =
          predecessor.dictionary.successor(readersOf(searchers), dictionaryBudgetBytes);
    } else {
      this.dictionary =
          new CompositeDictionary(
              readersOf(searchers), schema.fields().size(), dictionaryBudgetBytes);
    }
  }

  /** Number of databases a query visits (groups' windows and partitions queried as themselves). */
  /** Number of units. */
  int size() {
    return units.length;
  }

  /**
   * The matches of unit {@code unit}, restricted to its window when it has a partial one (a fresh
   * bit set then).
   */
  Matches evaluate(int unit, Plan.Node node, int[] resolved) {
    Matches m = searchers[unit].evaluate(node, resolved);
    return windowFrom == null ? m : window(unit, m);
  }

  private Matches window(int unit, Matches m) {
    int from = windowFrom[unit];
    int to = windowTo[unit];
    PartitionSearcher r = searchers[unit];
    if (m.kind == Matches.NONE || (from == 0 && to == r.documents())) {
      return m;
    }
    long[] bits = m.kind == Matches.BITS ? m.bits : r.materialize(m);
    java.util.Arrays.fill(bits, 0, from >>> 6, 0L);
    if ((from & 63) != 0) {
      bits[from >>> 6] &= -1L << from;
    }
    if (to >>> 6 < bits.length) {
      bits[to >>> 6] &= (1L << to) - 1;
      java.util.Arrays.fill(bits, (to >>> 6) + 1, bits.length, 0L);
    }
    return Matches.bits(bits);
  }

  /** Unit {@code unit}'s count of {@code node}'s matches. */
  long count(int unit, Plan.Node node, int[] resolved) {
    PartitionSearcher r = searchers[unit];
    return windowFrom == null ? r.count(node, resolved) : r.count(evaluate(unit, node, resolved));
  }

  /** {@code processor} as unit {@code unit}'s documents must reach it (as their partition's). */
  DocumentProcessor processorOf(int unit, DocumentProcessor processor) {
    GroupLayout.Run run = layout.runs[unit];
    return run == null ? processor : (doc, db) -> run.process(doc, processor);
  }

  /** Hands unit {@code unit}'s document to {@code processor} as its partition's document. */
  boolean emit(int unit, int doc, Database listed, DocumentProcessor processor) {
    GroupLayout.Run run = layout.runs[unit];
    return run == null ? processor.process(doc, listed) : run.process(doc, processor);
  }

  /** Field dictionaries this composite derived by patching its predecessor's, 0 when none. */
  int dictionaryPatches() {
    return dictionary == null ? 0 : dictionary.patchedFields();
  }

  /** Heap bytes of the value dictionaries built so far (an estimate), 0 when none. */
  long dictionaryHeapBytes() {
    return dictionary == null ? 0 : dictionary.heapBytes();
  }

  /**
   * Throws when a partition is closed or its memory unmapped. Looks at the partitions themselves
   * only when some reader was closed since they were last all seen open.
   */
  void ensurePartitionsOpen() {
    for (MemorySegment.Scope scope : scopes) {
      if (!scope.isAlive()) {
        throw new IllegalStateException("a partition's memory is unmapped: its arena is closed");
      }
    }
    long closes = DatabaseReader.CLOSES.get();
    if (closes == openCheckedAt) {
      return;
    }
    for (PartitionSearcher r : searchers) {
      r.ensureOpen();
    }
    openCheckedAt = closes;
  }

  /** The partitions that can match {@code node}, with its leaves' ranks resolved per partition. */
  CompositeDictionary.Walk walk(Plan.Node node) {
    return dictionary != null
        ? dictionary.walk(node)
        : CompositeDictionary.walkAll(node, searchers.length);
  }

  /** The plan's count over every unit. */
  long count(Plan plan) {
    Plan.Node node = plan.condition;
    long total = 0;
    if (dictionary != null) {
      ensurePartitionsOpen();
      long known = windowFrom == null ? dictionary.count(node) : -1;
      if (known >= 0) {
        return known;
      }
      CompositeDictionary.Walk walk = dictionary.walk(node);
      for (int i = walk.next(); i >= 0; i = walk.next()) {
        PartitionSearcher r = searchers[i];
        r.ensureOpen();
        total += count(i, node, walk.resolved);
      }
      return total;
    }
    for (int i = 0; i < searchers.length; i++) {
      searchers[i].ensureOpen();
      total += count(i, node, null);
    }
    return total;
  }

  /**
   * The index of each listed partition object (the first listing when one is listed twice), built
   * on first use; immutable once published.
   */
  private volatile java.util.Map<Database, Integer> indexes;

  /** The index of each listed partition object (its first listing). */
  java.util.Map<Database, Integer> partitionIndexes() {
    java.util.Map<Database, Integer> byDatabase = indexes;
    if (byDatabase == null) {
      java.util.Map<Database, Integer> map = new java.util.IdentityHashMap<>();
      for (int i = 0; i < partitions.size(); i++) {
        map.putIfAbsent(partitions.get(i), i);
      }
      indexes = byDatabase = java.util.Collections.unmodifiableMap(map);
    }
    return byDatabase;
  }

  /** A partition's ordered candidates, or null when it has none. */
  SortCursor cursor(int i, Plan plan, int k) {
    return cursor(i, plan, k, null);
  }

  /** {@link #cursor(int, Plan, int)} with leaf ranks resolved (or null). */
  SortCursor cursor(int i, Plan plan, int k, int[] resolved) {
    PartitionSearcher r = searchers[i];
    r.ensureOpen();
    Matches m = evaluate(i, plan.condition, resolved);
    if (m.kind == Matches.NONE) {
      return null;
    }
    int[] docs = Ordering.top(r, m, plan.orderFields, plan.descending, k);
    return docs.length == 0 ? null : new SortCursor(i, r, docs, plan.orderFields);
  }
}
