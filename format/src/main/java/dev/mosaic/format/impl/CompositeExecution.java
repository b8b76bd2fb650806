package dev.mosaic.format.impl;

import dev.mosaic.format.DocumentProcessor;
import dev.mosaic.format.Schema;
import java.util.ArrayList;
import java.util.List;

/**
 * Emits a composite's matches in query order: unordered queries walk the units in order, skipping
 * whole units by their count; ordered queries with a small {@code skip + limit} collect the top
 * with a {@link TopCollector}, larger ones merge the units' first {@code skip + limit} candidates
 * ({@link CursorMerge}).
 *
 * <p>Thread safety: immutable; safe for concurrent queries.
 */
final class CompositeExecution {
  private final Schema schema;
  private final CompositeUnits units;

  CompositeExecution(Schema schema, CompositeUnits units) {
    this.schema = schema;
    this.units = units;
  }

  /** Emits the plan's page of matches in query order, each as its partition's document. */
  void execute(Plan plan, DocumentProcessor processor) {
    if (plan.limit == 0) {
      return;
    }
    if (plan.ordered()) {
      merge(plan, processor);
    } else {
      inPartitionOrder(plan, processor);
    }
  }

  private void inPartitionOrder(Plan plan, DocumentProcessor processor) {
    InOrderEmission page = new InOrderEmission(plan.skip, plan.limit);
    units.ensurePartitionsOpen();
    CompositeDictionary.Walk walk = units.walk(plan.condition);
    for (int i = walk.next(); i >= 0 && !page.done(); i = walk.next()) {
      PartitionSearcher r = units.searchers[i];
      r.ensureOpen();
      page.emit(units, i, units.evaluate(i, plan.condition, walk.resolved), processor);
    }
  }

  /** Largest skip + limit answered with a bounded global heap rather than a k-way merge. */
  static final int BOUNDED_TOP = 4096;

  /**
   * Ordered query with a small {@code skip + limit}: keeps the best {@code k} documents seen so far
   * in a bounded max-heap; each partition's sorted candidates enter only while they beat the
   * current k-th, so once the heap is warm most partitions cost one comparison.
   */
  private void boundedTop(Plan plan, DocumentProcessor processor) {
    boundedTop(plan, null, processor);
  }

  /**
   * {@link #boundedTop(Plan, DocumentProcessor)} over matches already evaluated per unit ({@code
   * evaluated[i]}, null where a unit has none) when {@code evaluated} is not null: no partition is
   * evaluated again, and only the units holding matches are visited.
   */
  void boundedTop(Plan plan, Matches[] evaluated, DocumentProcessor processor) {
    int k = plan.wanted();
    boolean[] desc = plan.descending;
    TopCollector top = new TopCollector(plan, schema);
    SortCursor probe = null; // one partition's best document against the k-th kept, reused
    units.ensurePartitionsOpen();
    CompositeDictionary.Walk walk = evaluated == null ? units.walk(plan.condition) : null;
    for (int i = evaluated == null ? walk.next() : nextEvaluated(evaluated, 0);
        i >= 0;
        i = evaluated == null ? walk.next() : nextEvaluated(evaluated, i + 1)) {
      SortCursor c;
      PartitionSearcher r = units.searchers[i];
      if (top.isFull()) {
        // Full: look at this partition's best document before sorting its candidates.
        r.ensureOpen();
        TopCollector.Threshold threshold = top.threshold();
        FieldReader sort = r.field(plan.orderFields[0]);
        boolean descending = desc[0];
        int bound =
            descending
                ? sort.lowerBound(threshold.key, true)
                : sort.upperBound(threshold.key, true);
        if (descending ? bound >= sort.valueCount : bound <= 0) {
          continue; // no value of the first key here is as good as the k-th kept one
        }
        Matches m =
            evaluated != null ? evaluated[i] : units.evaluate(i, threshold.bounded, walk.resolved);
        if (m.kind == Matches.NONE) {
          continue;
        }
        int[] best = Ordering.top(r, m, plan.orderFields, desc, 1);
        if (best.length == 0) {
          continue;
        }
        if (probe == null) {
          probe = new SortCursor(i, r, best, plan.orderFields);
        } else {
          probe.retarget(i, r, best);
        }
        probe.load();
        if (!top.beats(probe, best[0])) {
          continue;
        }
        c = new SortCursor(i, r, Ordering.top(r, m, plan.orderFields, desc, k), plan.orderFields);
      } else if (evaluated != null) {
        r.ensureOpen();
        int[] docs = Ordering.top(r, evaluated[i], plan.orderFields, desc, k);
        c = docs.length == 0 ? null : new SortCursor(i, r, docs, plan.orderFields);
      } else {
        c = units.cursor(i, plan, k, walk.resolved);
      }
      if (c != null) {
        top.offer(c);
      }
    }
    TopCollector.Entry[] sorted = top.sorted();
    for (int i = plan.skip; i < sorted.length; i++) {
      TopCollector.Entry e = sorted[i];
      if (!units.emit(e.cursor.partition, e.doc, e.cursor.reader.database(), processor)) {
        return;
      }
    }
  }

  /** The first unit at or after {@code from} with evaluated matches, or -1. */
  private static int nextEvaluated(Matches[] evaluated, int from) {
    for (int i = from; i < evaluated.length; i++) {
      if (evaluated[i] != null) {
        return i;
      }
    }
    return -1;
  }

  private void merge(Plan plan, DocumentProcessor processor) {
    int k = plan.wanted();
    if (k <= BOUNDED_TOP) {
      boundedTop(plan, processor);
      return;
    }
    List<SortCursor> cursors = new ArrayList<>();
    units.ensurePartitionsOpen();
    CompositeDictionary.Walk walk = units.walk(plan.condition);
    for (int i = walk.next(); i >= 0; i = walk.next()) {
      SortCursor c = units.cursor(i, plan, k, walk.resolved);
      if (c != null) {
        cursors.add(c);
      }
    }
    mergeCursors(cursors, plan, processor);
  }

  /** K-way merge of the partitions' sorted candidates, honouring skip and limit. */
  void mergeCursors(List<SortCursor> cursors, Plan plan, DocumentProcessor processor) {
    CursorMerge.merge(cursors, plan, (unit, doc, db) -> units.emit(unit, doc, db, processor));
  }
}
