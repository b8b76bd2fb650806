package dev.mosaic.format.impl;

import dev.mosaic.format.HitProcessor;
import java.util.List;

/**
 * The k-way merge of an ordered query: the units' sorted candidates ({@link SortCursor}s) merged by
 * sort key, ties broken by unit order, honouring the plan's skip and limit.
 *
 * <p>Thread safety: stateless; the cursors are the caller's, one set per query.
 */
final class CursorMerge {
  private CursorMerge() {}

  /** Emits the merged documents, each with its unit's index and database, until done or stopped. */
  static void merge(List<SortCursor> cursors, Plan plan, HitProcessor processor) {
    for (SortCursor c : cursors) {
      c.load();
    }
    boolean[] desc = plan.descending;
    Heap<SortCursor> heap =
        Heap.of(cursors.toArray(new SortCursor[0]), (a, b) -> SortCursor.before(a, b, desc));
    long skip = plan.skip;
    long limit = plan.limit;
    while (heap.size() > 0 && limit > 0) {
      SortCursor top = heap.top();
      int doc = top.docs[top.position];
      if (skip > 0) {
        skip--;
      } else {
        limit--;
        if (!processor.process(top.partition, doc, top.reader.database())) {
          return;
        }
      }
      top.position++;
      if (top.position == top.docs.length) {
        heap.removeTop();
      } else {
        top.load();
        heap.topChanged();
      }
    }
  }
}
