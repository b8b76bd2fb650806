package dev.mosaic.format.impl;

import java.util.Arrays;
import java.util.function.IntPredicate;

/**
 * A set of document ids of one partition, all in {@code [0, universe())}, in one of three forms: a
 * {@link Range} of consecutive ids, {@link SortedIds} (ascending, distinct) or {@link Bits} (one
 * bit per document). The form owns the set algebra: {@link #and}, {@link #or} and {@link #andNot}
 * pick the cheapest form of their result (a range and a range intersect to a range, a few sorted
 * ids stay sorted ids, anything else becomes bits), and {@link #count} and {@link #next} read every
 * form.
 *
 * <p>Thread safety: immutable. No operation writes to its operands; results never share a mutable
 * array with them. The arrays given to {@link #ids} and {@link #bits} are taken, not copied: do not
 * modify them afterwards.
 */
sealed interface DocumentSet permits DocumentSet.Range, DocumentSet.SortedIds, DocumentSet.Bits {

  /** The ids are in {@code [0, universe)}. */
  int universe();

  /** Number of members. */
  long count();

  /** True when {@code doc} is a member. */
  boolean contains(int doc);

  /** The smallest member at or after {@code doc}, or -1 when there is none. */
  int next(int doc);

  /** The set with no member. */
  static DocumentSet empty(int universe) {
    return new Range(universe, 0, 0);
  }

  /** Every document of the universe. */
  static DocumentSet all(int universe) {
    return new Range(universe, 0, universe);
  }

  /** The ids {@code [from, to)}. */
  static DocumentSet range(int universe, int from, int to) {
    return new Range(universe, from, to);
  }

  /** The first {@code count} of {@code ids}, ascending and distinct (checked). */
  static DocumentSet ids(int universe, int[] ids, int count) {
    return new SortedIds(universe, ids, count);
  }

  /** The set bits of {@code words}, one per document ({@code ceil(universe / 64)} words). */
  static DocumentSet bits(int universe, long[] words) {
    return new Bits(universe, words);
  }

  /**
   * Calls {@code visitor} with every member in ascending order until it returns false.
   *
   * @return false when the visitor stopped
   */
  default boolean forEach(IntPredicate visitor) {
    for (int doc = next(0); doc >= 0; doc = doc + 1 < universe() ? next(doc + 1) : -1) {
      if (!visitor.test(doc)) {
        return false;
      }
    }
    return true;
  }

  /** The members of both. */
  default DocumentSet and(DocumentSet other) {
    int universe = sameUniverse(this, other);
    if (this instanceof Range a && other instanceof Range b) {
      return new Range(universe, Math.max(a.from, b.from), Math.min(a.to, b.to));
    }
    if (this instanceof SortedIds a) {
      return a.filter(other, true);
    }
    if (other instanceof SortedIds b) {
      return b.filter(this, true);
    }
    long[] words = words(this);
    andWords(words, other);
    return new Bits(universe, words);
  }

  /** The members of either. */
  default DocumentSet or(DocumentSet other) {
    int universe = sameUniverse(this, other);
    if (this instanceof Range a && other instanceof Range b) {
      if (a.isEmpty()) {
        return b;
      }
      if (b.isEmpty()) {
        return a;
      }
      if (a.from <= b.to && b.from <= a.to) {
        return new Range(universe, Math.min(a.from, b.from), Math.max(a.to, b.to));
      }
    }
    if (this instanceof SortedIds a && other instanceof SortedIds b) {
      return a.merge(b);
    }
    long[] words = words(this);
    orWords(words, other);
    return new Bits(universe, words);
  }

  /** The members of this set that are not members of {@code other}. */
  default DocumentSet andNot(DocumentSet other) {
    int universe = sameUniverse(this, other);
    if (this instanceof SortedIds a) {
      return a.filter(other, false);
    }
    if (this instanceof Range a && other instanceof Range b) {
      if (b.isEmpty() || b.to <= a.from || a.to <= b.from) {
        return a;
      }
      if (b.from <= a.from) {
        return new Range(universe, Math.max(a.from, b.to), a.to);
      }
      if (b.to >= a.to) {
        return new Range(universe, a.from, Math.min(a.to, b.from));
      }
    }
    long[] words = words(this);
    long[] mask = words(other);
    for (int w = 0; w < words.length; w++) {
      words[w] &= ~mask[w];
    }
    return new Bits(universe, words);
  }

  /** The universe of both, refusing sets of different universes. */
  private static int sameUniverse(DocumentSet a, DocumentSet b) {
    if (a.universe() != b.universe()) {
      throw new IllegalArgumentException(
          "document sets of different partitions: universes "
              + a.universe()
              + " and "
              + b.universe());
    }
    return a.universe();
  }

  /** A fresh bit array holding the members of {@code set}. */
  private static long[] words(DocumentSet set) {
    long[] words = new long[(set.universe() + 63) >>> 6];
    orWords(words, set);
    return words;
  }

  private static void orWords(long[] words, DocumentSet set) {
    switch (set) {
      case Range r -> setRange(words, r.from, r.to);
      case SortedIds s -> {
        for (int i = 0; i < s.count; i++) {
          words[s.ids[i] >>> 6] |= 1L << s.ids[i];
        }
      }
      case Bits b -> {
        for (int w = 0; w < words.length; w++) {
          words[w] |= b.words[w];
        }
      }
    }
  }

  private static void andWords(long[] words, DocumentSet set) {
    switch (set) {
      case Range r -> {
        Arrays.fill(words, 0, Math.min(words.length, r.from >>> 6), 0L);
        if (r.isEmpty()) {
          Arrays.fill(words, 0L);
          return;
        }
        words[r.from >>> 6] &= -1L << r.from;
        if (r.to >>> 6 < words.length) {
          words[r.to >>> 6] &= (1L << r.to) - 1;
          Arrays.fill(words, (r.to >>> 6) + 1, words.length, 0L);
        }
      }
      case SortedIds s -> throw new AssertionError("sorted ids intersect by filtering");
      case Bits b -> {
        for (int w = 0; w < words.length; w++) {
          words[w] &= b.words[w];
        }
      }
    }
  }

  private static void setRange(long[] words, int from, int to) {
    if (from >= to) {
      return;
    }
    int first = from >>> 6;
    int last = (to - 1) >>> 6;
    if (first == last) {
      words[first] |= (-1L << from) & (-1L >>> (63 - ((to - 1) & 63)));
      return;
    }
    words[first] |= -1L << from;
    Arrays.fill(words, first + 1, last, -1L);
    words[last] |= -1L >>> (63 - ((to - 1) & 63));
  }

  /** The ids {@code [from, to)} (empty when {@code from >= to}). */
  final class Range implements DocumentSet {
    private final int universe;
    final int from;
    final int to;

    Range(int universe, int from, int to) {
      if (universe < 0 || from < 0 || to > universe) {
        throw new IllegalArgumentException(
            "range [" + from + ", " + to + ") outside [0, " + universe + ")");
      }
      this.universe = universe;
      this.from = from >= to ? 0 : from;
      this.to = from >= to ? 0 : to;
    }

    boolean isEmpty() {
      return from == to;
    }

    @Override
    public int universe() {
      return universe;
    }

    @Override
    public long count() {
      return to - from;
    }

    @Override
    public boolean contains(int doc) {
      return doc >= from && doc < to;
    }

    @Override
    public int next(int doc) {
      int d = Math.max(doc, from);
      return d < to ? d : -1;
    }

    @Override
    public String toString() {
      return "Range[" + from + ", " + to + ") of " + universe;
    }
  }

  /** Ascending distinct ids: the first {@code count} of an array. */
  final class SortedIds implements DocumentSet {
    private final int universe;
    final int[] ids;
    final int count;

    SortedIds(int universe, int[] ids, int count) {
      if (count < 0 || count > ids.length) {
        throw new IllegalArgumentException(count + " ids of an array of " + ids.length);
      }
      for (int i = 0; i < count; i++) {
        if (ids[i] < 0 || ids[i] >= universe || (i > 0 && ids[i] <= ids[i - 1])) {
          throw new IllegalArgumentException(
              "ids must be ascending, distinct and in [0, "
                  + universe
                  + "): id "
                  + ids[i]
                  + " at "
                  + i);
        }
      }
      this.universe = universe;
      this.ids = ids;
      this.count = count;
    }

    @Override
    public int universe() {
      return universe;
    }

    @Override
    public long count() {
      return count;
    }

    @Override
    public boolean contains(int doc) {
      return Arrays.binarySearch(ids, 0, count, doc) >= 0;
    }

    @Override
    public int next(int doc) {
      int i = Arrays.binarySearch(ids, 0, count, doc);
      if (i < 0) {
        i = -i - 1;
      }
      return i < count ? ids[i] : -1;
    }

    @Override
    public boolean forEach(IntPredicate visitor) {
      for (int i = 0; i < count; i++) {
        if (!visitor.test(ids[i])) {
          return false;
        }
      }
      return true;
    }

    /** The ids that are ({@code keep}) or are not members of {@code other}. */
    SortedIds filter(DocumentSet other, boolean keep) {
      int[] kept = new int[count];
      int n = 0;
      for (int i = 0; i < count; i++) {
        if (other.contains(ids[i]) == keep) {
          kept[n++] = ids[i];
        }
      }
      return new SortedIds(universe, kept, n);
    }

    /** The union of two id lists, still ids. */
    SortedIds merge(SortedIds other) {
      int[] merged = new int[count + other.count];
      int i = 0;
      int j = 0;
      int n = 0;
      while (i < count || j < other.count) {
        int a = i < count ? ids[i] : Integer.MAX_VALUE;
        int b = j < other.count ? other.ids[j] : Integer.MAX_VALUE;
        merged[n++] = Math.min(a, b);
        i += a <= b ? 1 : 0;
        j += b <= a ? 1 : 0;
      }
      return new SortedIds(universe, merged, n);
    }

    @Override
    public String toString() {
      return "SortedIds" + Arrays.toString(Arrays.copyOf(ids, count)) + " of " + universe;
    }
  }

  /** One bit per document: bit {@code d & 63} of word {@code d >>> 6}. */
  final class Bits implements DocumentSet {
    private final int universe;
    final long[] words;

    Bits(int universe, long[] words) {
      if (words.length != (universe + 63) >>> 6) {
        throw new IllegalArgumentException(
            words.length + " words for a universe of " + universe + " documents");
      }
      if ((universe & 63) != 0 && words.length > 0 && words[words.length - 1] >>> universe != 0) {
        throw new IllegalArgumentException("bits set at or after the universe's end " + universe);
      }
      this.universe = universe;
      this.words = words;
    }

    @Override
    public int universe() {
      return universe;
    }

    @Override
    public long count() {
      long n = 0;
      for (long w : words) {
        n += Long.bitCount(w);
      }
      return n;
    }

    @Override
    public boolean contains(int doc) {
      return doc >= 0 && doc < universe && (words[doc >>> 6] & (1L << doc)) != 0;
    }

    @Override
    public int next(int doc) {
      if (doc >= universe) {
        return -1;
      }
      int d = Math.max(0, doc);
      int w = d >>> 6;
      long word = words[w] & (-1L << d);
      while (word == 0) {
        if (++w == words.length) {
          return -1;
        }
        word = words[w];
      }
      return (w << 6) + Long.numberOfTrailingZeros(word);
    }

    @Override
    public boolean forEach(IntPredicate visitor) {
      for (int w = 0; w < words.length; w++) {
        long word = words[w];
        while (word != 0) {
          if (!visitor.test((w << 6) + Long.numberOfTrailingZeros(word))) {
            return false;
          }
          word &= word - 1;
        }
      }
      return true;
    }

    @Override
    public String toString() {
      return "Bits(" + count() + " of " + universe + ")";
    }
  }
}
