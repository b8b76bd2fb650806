package dev.mosaic.format.impl;

import dev.mosaic.format.Schema;

/**
 * The top-k collector of an ordered query with a small {@code skip + limit}: keeps the best {@code
 * k} documents seen so far in a bounded {@link Heap}, the worst kept on top. Each unit's sorted
 * candidates ({@link SortCursor}) enter only while they beat the current k-th, and once full its
 * {@link Threshold} lets the composite skip units that cannot beat it, so once warm most partitions
 * cost one comparison.
 *
 * <p>Thread safety: none; one per query.
 */
final class TopCollector {
  private final Plan plan;
  private final Schema schema;
  private final boolean[] desc;
  private final Heap<Entry> heap;
  private Threshold threshold;

  TopCollector(Plan plan, Schema schema) {
    this.plan = plan;
    this.schema = schema;
    this.desc = plan.descending;
    boolean[] order = desc;
    // the worst kept on top: an entry belongs above those that come before it
    this.heap = new Heap<>(new Entry[plan.wanted()], (a, b) -> before(b, a, order));
  }

  /** True when {@code k} documents are kept: a document must beat the worst to enter. */
  boolean isFull() {
    return heap.isFull();
  }

  /** The threshold of the worst kept document; only when {@link #isFull()}. */
  Threshold threshold() {
    if (threshold == null || threshold.worst != heap.top()) {
      threshold = new Threshold(heap.top(), plan, schema);
    }
    return threshold;
  }

  /**
   * True when the cursor's current (loaded) document {@code doc} beats the worst kept; only when
   * {@link #isFull()}.
   */
  boolean beats(SortCursor c, int doc) {
    return before(c, doc, heap.top(), desc);
  }

  /**
   * Offers the cursor's documents from its position on, in its order, until one does not beat the
   * worst kept (the rest cannot either).
   */
  void offer(SortCursor c) {
    for (; c.position < c.docs.length; c.position++) {
      c.load();
      if (heap.isFull() && !before(c, c.docs[c.position], heap.top(), desc)) {
        break; // this partition's remaining documents are no better
      }
      Entry e = new Entry(c, c.docs[c.position]);
      if (heap.isFull()) {
        heap.replaceTop(e);
      } else {
        heap.add(e);
      }
    }
  }

  /** The kept documents in query order. */
  Entry[] sorted() {
    Entry[] sorted = heap.toArray();
    java.util.Arrays.sort(sorted, (a, b) -> before(a, b, desc) ? -1 : before(b, a, desc) ? 1 : 0);
    return sorted;
  }

  /**
   * The first sort key of the worst kept document, as a key and as the query's condition narrowed
   * to documents at least as good on that key: documents strictly worse cannot enter the top, so a
   * partition is evaluated only over the values that can (a range leaf, evaluated first, that drops
   * a partition after one search of its sort value set when none can).
   */
  static final class Threshold {
    final Entry worst;
    final Key key;
    final Plan.Node bounded;

    Threshold(Entry worst, Plan plan, Schema schema) {
      this.worst = worst;
      SortCursor c = worst.cursor;
      this.key = Key.of(c.fields[0].valueBytes(worst.ranks[0]));
      int field = plan.orderFields[0];
      if (!schema.fields().get(field).role().isFilterable()) {
        this.bounded = plan.condition; // no postings to narrow by: the range check alone
        return;
      }
      Plan.Node range =
          plan.descending[0]
              ? new Plan.Range(field, key, true, null, false)
              : new Plan.Range(field, null, false, key, true);
      Plan.Node[] children;
      if (plan.condition instanceof Plan.And and) {
        children = new Plan.Node[and.children().length + 1];
        System.arraycopy(and.children(), 0, children, 1, and.children().length);
      } else {
        children = new Plan.Node[2];
        children[1] = plan.condition;
      }
      children[0] = range;
      this.bounded = new Plan.And(children);
    }
  }

  /** A document kept, with the sort values it had when kept. */
  static final class Entry {
    final SortCursor cursor;
    final int doc;
    final int[] ranks;

    Entry(SortCursor c, int doc) {
      this.cursor = c;
      this.doc = doc;
      this.ranks = c.ranks.clone();
    }
  }

  /** True when entry {@code a} comes before entry {@code b}. */
  private static boolean before(Entry a, Entry b, boolean[] desc) {
    for (int key = 0; key < desc.length; key++) {
      int c = SortCursor.compare(a.cursor, a.ranks, key, b.cursor, b.ranks);
      if (c != 0) {
        return desc[key] ? c > 0 : c < 0;
      }
    }
    if (a.cursor.partition != b.cursor.partition) {
      return a.cursor.partition < b.cursor.partition;
    }
    return a.doc < b.doc;
  }

  /** True when the cursor's current document {@code doc} comes before entry {@code b}. */
  private static boolean before(SortCursor a, int doc, Entry b, boolean[] desc) {
    for (int key = 0; key < desc.length; key++) {
      int c = SortCursor.compare(a, a.ranks, key, b.cursor, b.ranks);
      if (c != 0) {
        return desc[key] ? c > 0 : c < 0;
      }
    }
    if (a.partition != b.cursor.partition) {
      return a.partition < b.cursor.partition;
    }
    return doc < b.doc;
  }
}
