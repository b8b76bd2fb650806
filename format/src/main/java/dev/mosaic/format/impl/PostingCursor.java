package dev.mosaic.format.impl;

/**
 * Membership in one value's postings for documents asked in ascending order, with the postings'
 * place and kind looked up once. A bit set answers with one bit; in a list each test gallops
 * forward from where the previous one stopped instead of searching the whole list again, so testing
 * {@code d} ascending documents against a list of {@code n} reads {@code O(d log(n / d))} ids near
 * each other rather than {@code d log n} scattered ones. A document below the previous one restarts
 * the search from the list's start (still correct, just not cheaper).
 *
 * <p>Thread safety: not thread safe; one per intersection.
 */
final class PostingCursor {
  private final FieldReader field;
  private final long at;
  private final int count;
  private final boolean list;
  private int position;
  private int last = -1;

  /** A cursor over the postings of value {@code index} of {@code field}. */
  PostingCursor(FieldReader field, int index) {
    this.field = field;
    this.at = field.postingsOf(index);
    this.count = field.count(index);
    this.list = field.isListAt(index);
  }

  /** True when {@code doc} has the value. */
  boolean contains(int doc) {
    if (!list) {
      return field.bit(at, doc);
    }
    if (doc < last) {
      position = 0;
    }
    last = doc;
    int lo = position;
    if (lo >= count || field.id(at, lo) >= doc) {
      return lo < count && field.id(at, lo) == doc;
    }
    // ids[lo] < doc: gallop to a bound hi with ids[hi] >= doc (or the end)
    int step = 1;
    int hi = lo + step;
    while (hi < count && field.id(at, hi) < doc) {
      lo = hi;
      step <<= 1;
      hi = lo + step;
    }
    hi = Math.min(hi, count);
    // ids[lo] < doc <= ids[hi] (ids[count] = +infinity): the first id >= doc is in (lo, hi]
    while (hi - lo > 1) {
      int mid = (lo + hi) >>> 1;
      if (field.id(at, mid) < doc) {
        lo = mid;
      } else {
        hi = mid;
      }
    }
    position = hi;
    return hi < count && field.id(at, hi) == doc;
  }
}
