package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.words;

/**
 * Evaluates compiled conditions ({@link Plan.Node}) on one partition into {@link Matches}, and owns
 * the set algebra over them: intersection (probing the smallest part's documents against the
 * others, or bit sets), union, complement, counting, materializing as bits and as ids.
 *
 * <p>Thread safety: immutable; safe for concurrent use. Every bit set or id array it returns is
 * per-call scratch owned by the caller.
 */
final class ConditionEvaluator {
  private final java.util.function.IntFunction<FieldReader> fields;
  private final int documents;
  private final BloomFilter[] blooms;

  /**
   * {@code fields}: the partition's field readers by index; {@code blooms}: per field its Bloom
   * filter or null.
   */
  ConditionEvaluator(
      java.util.function.IntFunction<FieldReader> fields, int documents, BloomFilter[] blooms) {
    this.fields = fields;
    this.documents = documents;
    this.blooms = blooms;
  }

  private FieldReader field(int index) {
    return fields.apply(index);
  }

  /**
   * Evaluates a condition. {@code resolved}, when not null, holds per leaf slot ({@link
   * Plan.Eq#slot()}) the value's rank in this partition as found by a composite-level dictionary: a
   * rank, -1 when the partition lacks the value, or {@link PartitionSearcher#UNRESOLVED} to search
   * the value set.
   */
  Matches evaluate(Plan.Node node, int[] resolved) {
    return switch (node) {
      case Plan.All a -> documents == 0 ? Matches.NOTHING : Matches.EVERYTHING;
      case Plan.Eq eq -> {
        int i;
        if (resolved != null
            && eq.slot() >= 0
            && resolved[eq.slot()] != PartitionSearcher.UNRESOLVED) {
          i = resolved[eq.slot()];
        } else {
          BloomFilter bloom = blooms[eq.field()];
          if (bloom != null && !bloom.mightContain(eq.key().hash())) {
            yield Matches.NOTHING;
          }
          i = field(eq.field()).find(eq.key());
        }
        yield i < 0 ? Matches.NOTHING : Matches.range(field(eq.field()), i, i + 1);
      }
      case Plan.In in -> {
        FieldReader f = field(in.field());
        Key[] keys = in.keys();
        int[] found = new int[keys.length];
        int n = 0;
        BloomFilter bloom = blooms[in.field()];
        for (int k = 0; k < keys.length; k++) {
          int i;
          if (resolved != null
              && in.slot() >= 0
              && resolved[in.slot() + k] != PartitionSearcher.UNRESOLVED) {
            i = resolved[in.slot() + k];
          } else {
            if (bloom != null && !bloom.mightContain(keys[k].hash())) {
              continue;
            }
            i = f.find(keys[k]);
          }
          if (i >= 0) {
            found[n++] = i;
          }
        }
        yield Matches.set(f, n == found.length ? found : java.util.Arrays.copyOf(found, n));
      }
      case Plan.Range r -> {
        FieldReader f = field(r.field());
        int from = r.from() == null ? 0 : f.lowerBound(r.from(), r.fromInclusive());
        int to = r.to() == null ? f.valueCount : f.upperBound(r.to(), r.toInclusive());
        if (from >= to) {
          yield Matches.NOTHING;
        }
        if (f.singleValued && f.countRange(from, to) == documents) {
          yield Matches.EVERYTHING;
        }
        yield Matches.range(f, from, to);
      }
      case Plan.And and -> and(and.children(), resolved);
      case Plan.Or or -> or(or.children(), resolved);
      case Plan.Not not -> {
        Matches m = evaluate(not.child(), resolved);
        if (m.kind == Matches.NONE) {
          yield documents == 0 ? Matches.NOTHING : Matches.EVERYTHING;
        }
        if (m.kind == Matches.ALL) {
          yield Matches.NOTHING;
        }
        long[] bits = materialize(m);
        for (int w = 0; w < bits.length; w++) {
          bits[w] = ~bits[w];
        }
        clearTail(bits);
        yield Matches.bits(bits);
      }
    };
  }

  /**
   * Most value comparisons (documents times deferred ranges) done in place of the searches of the
   * ranges' value sets.
   */
  private static final int DEFERRED_CHECKS = 32;

  private Matches and(Plan.Node[] children, int[] resolved) {
    Matches[] parts = new Matches[children.length];
    int deferred = 0;
    int n = 0;
    for (Plan.Node child : children) {
      if (child instanceof Plan.Range r && deferrable(r)) {
        // A range on a field with document->value: when the other parts leave few documents, each
        // is tested by comparing its value with the bounds, without searching the value set.
        deferred++;
        continue;
      }
      Matches m = evaluate(child, resolved);
      if (m.kind == Matches.NONE) {
        return Matches.NOTHING;
      }
      if (m.kind != Matches.ALL) {
        parts[n++] = m;
      }
    }
    if (deferred > 0 && n > 0) {
      long fewest = Long.MAX_VALUE;
      for (int i = 0; i < n; i++) {
        fewest = Math.min(fewest, estimate(parts[i]));
      }
      if (fewest * deferred <= DEFERRED_CHECKS) {
        return filter(intersect(parts, n), children);
      }
    }
    if (deferred > 0) {
      for (Plan.Node child : children) {
        if (child instanceof Plan.Range r && deferrable(r)) {
          Matches m = evaluate(r, resolved);
          if (m.kind == Matches.NONE) {
            return Matches.NOTHING;
          }
          if (m.kind != Matches.ALL) {
            parts[n++] = m;
          }
        }
      }
    }
    return intersect(parts, n);
  }

  private boolean deferrable(Plan.Range r) {
    FieldReader f = field(r.field());
    return f.docValues >= 0 && f.singleValued;
  }

  /**
   * The documents of {@code m} whose value is within every deferrable range of {@code children}.
   */
  private Matches filter(Matches m, Plan.Node[] children) {
    if (m.kind == Matches.NONE) {
      return m;
    }
    // the ids of an IDS part are this query's own scratch: filtered in place, without a copy
    int[] ids = m.kind == Matches.IDS ? m.ids : documentIds(m);
    int count = m.kind == Matches.IDS ? m.from : ids.length;
    int found = 0;
    for (int k = 0; k < count; k++) {
      int doc = ids[k];
      boolean in = true;
      for (int i = 0; i < children.length && in; i++) {
        if (children[i] instanceof Plan.Range r && deferrable(r)) {
          FieldReader f = field(r.field());
          in =
              f.valueWithin(
                  f.valueIndex(doc), r.from(), r.fromInclusive(), r.to(), r.toInclusive());
        }
      }
      if (in) {
        ids[found++] = doc;
      }
    }
    return Matches.ids(ids, found);
  }

  /** The intersection of the first {@code n} parts (none NONE or ALL). */
  private Matches intersect(Matches[] parts, int n) {
    if (n == 0) {
      return documents == 0 ? Matches.NOTHING : Matches.EVERYTHING;
    }
    // Ranges of one single-valued field intersect as rank ranges (a bound added to a query's own
    // range, say), which leaves a smaller driver.
    for (int i = 0; i < n; i++) {
      Matches a = parts[i];
      if (a.kind != Matches.RANGE || !a.field.singleValued) {
        continue;
      }
      for (int j = i + 1; j < n; j++) {
        Matches b = parts[j];
        if (b.kind == Matches.RANGE && b.field == a.field) {
          a = Matches.range(a.field, Math.max(a.from, b.from), Math.min(a.to, b.to));
          if (a.kind == Matches.NONE) {
            return Matches.NOTHING;
          }
          parts[i] = a;
          parts[j--] = parts[--n];
        }
      }
    }
    if (n == 1) {
      return parts[0];
    }
    // Start from the smallest estimate; AND the others in.
    int best = 0;
    long bestEstimate = Long.MAX_VALUE;
    for (int i = 0; i < n; i++) {
      long e = estimate(parts[i]);
      if (e < bestEstimate) {
        bestEstimate = e;
        best = i;
      }
    }
    if (bestEstimate <= Math.max(64, words(documents))) {
      Matches probed = probe(parts, n, best, bestEstimate);
      if (probed != null) {
        return probed;
      }
    }
    long[] acc = materialize(parts[best]);
    for (int i = 0; i < n; i++) {
      if (i != best) {
        andInto(acc, parts[i]);
      }
    }
    return Matches.bits(acc);
  }

  /**
   * Intersects by walking the smallest part's documents and testing each against the others, with
   * no bit set at all when the others can answer membership in place (a document's value rank, a
   * search in a posting list, a bit of a stored bit set). Null when the smallest part cannot be
   * walked in document order cheaply.
   */
  private Matches probe(Matches[] parts, int n, int best, long estimate) {
    Matches driver = parts[best];
    int[] out;
    int found = 0;
    Matches[] others = new Matches[n - 1];
    for (int i = 0, j = 0; i < n; i++) {
      if (i != best) {
        Matches p = parts[i];
        if (!canProbe(p) || searchesCostMore(p, estimate)) {
          p = Matches.bits(materialize(p));
        }
        others[j++] = p;
      }
    }
    PostingCursor[][] cursors = cursors(others);
    if (driver.kind == Matches.IDS) {
      out = new int[driver.from];
      for (int i = 0; i < driver.from; i++) {
        int doc = driver.ids[i];
        if (containsAll(others, cursors, doc)) {
          out[found++] = doc;
        }
      }
    } else if (driver.singleValue() && driver.field.isListAt(driver.from)) {
      FieldReader f = driver.field;
      int count = f.count(driver.from);
      long at = f.postingsOf(driver.from);
      out = new int[count];
      for (int i = 0; i < count; i++) {
        int doc = f.id(at, i);
        if (containsAll(others, cursors, doc)) {
          out[found++] = doc;
        }
      }
    } else if (driver.kind == Matches.RANGE || driver.kind == Matches.SET) {
      // A few values' postings: gather their documents, sort, then test each.
      FieldReader f = driver.field;
      int[] ids = new int[(int) estimate];
      int gathered = 0;
      if (driver.kind == Matches.RANGE) {
        for (int v = driver.from; v < driver.to; v++) {
          gathered = f.collectInto(v, ids, gathered);
        }
      } else {
        for (int v : driver.values) {
          gathered = f.collectInto(v, ids, gathered);
        }
      }
      java.util.Arrays.sort(ids, 0, gathered);
      out = ids;
      int previous = -1;
      for (int i = 0; i < gathered; i++) {
        int doc = ids[i];
        if (doc != previous && containsAll(others, cursors, doc)) {
          out[found++] = doc;
        }
        previous = doc;
      }
    } else if (driver.kind == Matches.BITS) {
      out = new int[(int) Math.min(estimate, documents)];
      long[] bits = driver.bits;
      for (int w = 0; w < bits.length; w++) {
        long word = bits[w];
        while (word != 0) {
          int doc = (w << 6) + Long.numberOfTrailingZeros(word);
          word &= word - 1;
          if (containsAll(others, cursors, doc)) {
            out[found++] = doc;
          }
        }
      }
    } else {
      return null;
    }
    return Matches.ids(out, found);
  }

  /** Most values whose postings are searched one by one to test a document's membership. */
  private static final int PROBE_VALUES = 8;

  private static boolean canProbe(Matches m) {
    return switch (m.kind) {
      case Matches.BITS, Matches.IDS -> true;
      case Matches.RANGE -> m.field.docValues >= 0 || m.to - m.from <= PROBE_VALUES;
      case Matches.SET -> m.field.docValues >= 0 || m.values.length <= PROBE_VALUES;
      default -> false;
    };
  }

  /**
   * True when testing {@code drivers} documents against {@code m} by searching its values' posting
   * lists (a search per value and document) would read more than setting the bits of its postings
   * once: the membership of a few values without document→value, tested for many documents.
   */
  private boolean searchesCostMore(Matches m, long drivers) {
    if ((m.kind != Matches.RANGE && m.kind != Matches.SET) || m.field.docValues >= 0) {
      return false;
    }
    int values = m.kind == Matches.RANGE ? m.to - m.from : m.values.length;
    long postings = estimate(m);
    long searchSteps = 64 - Long.numberOfLeadingZeros(Math.max(1, postings / values));
    return postings + words(documents) < drivers * values * searchSteps;
  }

  /**
   * Per part of {@code others}, cursors over its values' postings when its membership is looked up
   * in them (values without document→value), else null: the driver's documents come in ascending
   * order, so each search of a list starts where the last one ended.
   */
  private static PostingCursor[][] cursors(Matches[] others) {
    PostingCursor[][] cursors = new PostingCursor[others.length][];
    for (int i = 0; i < others.length; i++) {
      Matches m = others[i];
      if ((m.kind != Matches.RANGE && m.kind != Matches.SET) || m.field.docValues >= 0) {
        continue;
      }
      int values = m.kind == Matches.RANGE ? m.to - m.from : m.values.length;
      PostingCursor[] c = new PostingCursor[values];
      for (int v = 0; v < values; v++) {
        c[v] = new PostingCursor(m.field, m.kind == Matches.RANGE ? m.from + v : m.values[v]);
      }
      cursors[i] = c;
    }
    return cursors;
  }

  private static boolean containsAll(Matches[] others, PostingCursor[][] cursors, int doc) {
    for (int i = 0; i < others.length; i++) {
      PostingCursor[] c = cursors[i];
      if (c != null ? !anyContains(c, doc) : !contains(others[i], doc)) {
        return false;
      }
    }
    return true;
  }

  private static boolean anyContains(PostingCursor[] cursors, int doc) {
    for (PostingCursor c : cursors) {
      if (c.contains(doc)) {
        return true;
      }
    }
    return false;
  }

  private static boolean contains(Matches m, int doc) {
    switch (m.kind) {
      case Matches.BITS:
        return (m.bits[doc >>> 6] & (1L << doc)) != 0;
      case Matches.IDS:
        return java.util.Arrays.binarySearch(m.ids, 0, m.from, doc) >= 0;
      case Matches.SET:
        if (m.field.docValues < 0) {
          for (int v : m.values) {
            if (m.field.postingContains(v, doc)) {
              return true;
            }
          }
          return false;
        }
        return java.util.Arrays.binarySearch(m.values, m.field.valueIndex(doc)) >= 0;
      default:
        FieldReader f = m.field;
        if (f.docValues >= 0) {
          int rank = f.valueIndex(doc);
          return rank >= m.from && rank < m.to;
        }
        for (int v = m.from; v < m.to; v++) {
          if (f.postingContains(v, doc)) {
            return true;
          }
        }
        return false;
    }
  }

  private Matches or(Plan.Node[] children, int[] resolved) {
    long[] acc = null;
    Matches single = null;
    for (Plan.Node child : children) {
      Matches m = evaluate(child, resolved);
      if (m.kind == Matches.NONE) {
        continue;
      }
      if (m.kind == Matches.ALL) {
        return m;
      }
      if (single == null && acc == null) {
        single = m;
        continue;
      }
      if (acc == null) {
        acc = materialize(single);
      }
      orInto(acc, m);
    }
    if (acc != null) {
      return Matches.bits(acc);
    }
    return single == null ? Matches.NOTHING : single;
  }

  /** Upper bound of the number of documents in {@code m}, cheaply. */
  private long estimate(Matches m) {
    return switch (m.kind) {
      case Matches.NONE -> 0;
      case Matches.IDS -> m.from;
      case Matches.RANGE -> m.field.countRange(m.from, m.to);
      case Matches.SET -> {
        long sum = 0;
        for (int v : m.values) {
          sum += m.field.count(v);
        }
        yield sum;
      }
      default -> documents;
    };
  }

  long count(Matches m) {
    return switch (m.kind) {
      case Matches.NONE -> 0;
      case Matches.ALL -> documents;
      case Matches.RANGE ->
          m.field.singleValued || m.to - m.from == 1
              ? m.field.countRange(m.from, m.to)
              : popcount(materialize(m));
      case Matches.SET -> {
        if (m.field.singleValued) {
          long sum = 0;
          for (int v : m.values) {
            sum += m.field.count(v);
          }
          yield sum;
        }
        yield popcount(materialize(m));
      }
      case Matches.IDS -> m.from;
      default -> popcount(m.bits);
    };
  }

  /** The matches as a bit set owned by the caller (fresh unless {@code m} already owns one). */
  long[] materialize(Matches m) {
    if (m.kind == Matches.BITS) {
      return m.bits;
    }
    long[] bits = new long[words(documents)];
    orInto(bits, m);
    return bits;
  }

  private void orInto(long[] acc, Matches m) {
    switch (m.kind) {
      case Matches.NONE -> {}
      case Matches.ALL -> {
        java.util.Arrays.fill(acc, -1L);
        clearTail(acc);
      }
      case Matches.RANGE -> m.field.orRangeInto(m.from, m.to, acc);
      case Matches.SET -> {
        for (int v : m.values) {
          m.field.orInto(v, acc);
        }
      }
      case Matches.IDS -> {
        for (int i = 0; i < m.from; i++) {
          int doc = m.ids[i];
          acc[doc >>> 6] |= 1L << doc;
        }
      }
      default -> {
        for (int w = 0; w < acc.length; w++) {
          acc[w] |= m.bits[w];
        }
      }
    }
  }

  private void andInto(long[] acc, Matches m) {
    if (m.kind == Matches.BITS) {
      for (int w = 0; w < acc.length; w++) {
        acc[w] &= m.bits[w];
      }
      return;
    }
    FieldReader f = m.field;
    if (m.kind == Matches.RANGE && f.docValues >= 0) {
      // Single-valued sortable field: test each remaining document's value rank in place.
      for (int w = 0; w < acc.length; w++) {
        long word = acc[w];
        long keep = word;
        while (word != 0) {
          int bit = Long.numberOfTrailingZeros(word);
          word &= word - 1;
          int rank = f.valueIndex((w << 6) + bit);
          if (rank < m.from || rank >= m.to) {
            keep &= ~(1L << bit);
          }
        }
        acc[w] = keep;
      }
      return;
    }
    if (m.singleValue() && f.andBitsInto(m.from, acc)) {
      return; // one value's bit set, ANDed from the mapping without a copy
    }
    long[] other = materialize(m);
    for (int w = 0; w < acc.length; w++) {
      acc[w] &= other[w];
    }
  }

  private void clearTail(long[] bits) {
    int rem = documents & 63;
    if (rem != 0 && bits.length > 0) {
      bits[bits.length - 1] &= (1L << rem) - 1;
    }
  }

  static long popcount(long[] bits) {
    long n = 0;
    for (long w : bits) {
      n += Long.bitCount(w);
    }
    return n;
  }

  /** Number of documents in {@code m}, filling {@code out} (sized to the count) with their ids. */
  int[] documentIds(Matches m) {
    if (m.kind == Matches.IDS) {
      return m.from == m.ids.length ? m.ids : java.util.Arrays.copyOf(m.ids, m.from);
    }
    if (m.kind == Matches.ALL) {
      int[] ids = new int[documents];
      for (int i = 0; i < documents; i++) {
        ids[i] = i;
      }
      return ids;
    }
    if (m.singleValue() && m.field.isListAt(m.from)) {
      FieldReader f = m.field;
      int count = f.count(m.from);
      long at = f.postingsOf(m.from);
      int[] ids = new int[count];
      for (int i = 0; i < count; i++) {
        ids[i] = f.id(at, i);
      }
      return ids;
    }
    long[] bits = materialize(m);
    int[] ids = new int[(int) popcount(bits)];
    int n = 0;
    for (int w = 0; w < bits.length; w++) {
      long word = bits[w];
      while (word != 0) {
        ids[n++] = (w << 6) + Long.numberOfTrailingZeros(word);
        word &= word - 1;
      }
    }
    return ids;
  }
}
