package dev.mosaic.format.impl;

/**
 * The documents of one partition matching a condition, kept lazy as long as possible: nothing, all,
 * the postings of a range or a set of value indexes of one field, or a materialized bit set. A bit
 * set is per-query scratch owned by the query that made it.
 */
final class Matches {
  static final int NONE = 0;
  static final int ALL = 1;
  static final int RANGE = 2;
  static final int SET = 3;
  static final int BITS = 4;
  static final int IDS = 5;

  static final Matches NOTHING = new Matches(NONE, null, 0, 0, null, null);
  static final Matches EVERYTHING = new Matches(ALL, null, 0, 0, null, null);

  final int kind;
  final FieldReader field;

  /** RANGE: value indexes {@code [from, to)}. */
  final int from;

  final int to;

  /** SET: sorted distinct value indexes. */
  final int[] values;

  /** BITS: one bit per document. */
  final long[] bits;

  /** IDS: ascending document ids; {@code from} of them are used. */
  final int[] ids;

  private Matches(int kind, FieldReader field, int from, int to, int[] values, long[] bits) {
    this(kind, field, from, to, values, bits, null);
  }

  private Matches(
      int kind, FieldReader field, int from, int to, int[] values, long[] bits, int[] ids) {
    this.ids = ids;
    this.kind = kind;
    this.field = field;
    this.from = from;
    this.to = to;
    this.values = values;
    this.bits = bits;
  }

  static Matches range(FieldReader field, int from, int to) {
    return from >= to ? NOTHING : new Matches(RANGE, field, from, to, null, null);
  }

  static Matches set(FieldReader field, int[] values) {
    if (values.length == 0) {
      return NOTHING;
    }
    if (values.length == 1) {
      return new Matches(RANGE, field, values[0], values[0] + 1, null, null);
    }
    return new Matches(SET, field, 0, 0, values, null);
  }

  static Matches bits(long[] bits) {
    return new Matches(BITS, null, 0, 0, null, bits);
  }

  /** The first {@code count} of {@code ids} (ascending). */
  static Matches ids(int[] ids, int count) {
    return count == 0 ? NOTHING : new Matches(IDS, null, count, 0, null, null, ids);
  }

  /** True when this is the postings of exactly one value. */
  boolean singleValue() {
    return kind == RANGE && to - from == 1;
  }
}
