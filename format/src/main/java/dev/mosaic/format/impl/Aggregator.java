package dev.mosaic.format.impl;

import dev.mosaic.format.Aggregation;
import dev.mosaic.format.Field;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Stats;
import it.unimi.dsi.fastutil.bytes.ByteArrays;
import it.unimi.dsi.fastutil.objects.Object2IntOpenCustomHashMap;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Accumulates facet counts and field statistics over the partitions of one query.
 *
 * <p>Execution. Per partition and faceted field it picks the cheaper way, from the partition's
 * statistics: the stored per-value counts when every document matches; else walking the matching
 * documents through document→value (FULL fields) when they are fewer than the postings a walk of
 * value→documents would read ({@code min(postings, values × filter words)}); else walking
 * value→documents and intersecting each value's postings with the filter, in value order, stopping
 * as soon as every matching document of a single-valued field has been counted.
 *
 * <p>Memory. Per query: one {@code int} counter per distinct value of the faceted field in a
 * partition ({@link #scratchLength()}: the largest such count over the partitions, allocated once
 * and reused, every counter cleared after its partition), plus two value index→slot arrays of the
 * same bound per TOP/ALL facet (the previous partition's slot of each of its values: reused as is
 * when the next partition's value set is byte for byte the same, else merged with it in value
 * order, so a value present in both costs at most one comparison and no hashing), plus one entry
 * per distinct value counted in any partition (the merged result). Nothing grows with the number of
 * documents or partitions.
 *
 * <p>Not thread safe: one per query.
 */
final class Aggregator {
  private final Schema schema;
  private final Plan.Node condition;
  private final List<Facet> facets;
  private final List<Stats> statsRequests;
  private final int[] facetFields;
  private final Key[][] facetKeys;
  private final long[][] facetValueCounts;
  private final FacetTable[] facetTables;
  private final int[] statsFields;
  private final Key[][] bounds;
  private final Key[] min;
  private final Key[] max;
  private final long[] statsCounts;
  private final long[][] buckets;
  private long count;
  private int[] scratch = new int[0];

  /**
   * Per TOP/ALL facet: the composite dictionary of its field when one is used (null otherwise), and
   * the counts by the dictionary's value ids. With it, a partition's counts go to their values
   * through the partition's value index → id array, with no comparison of value bytes.
   */
  private final CompositeDictionary.Field[] facetDictionaries;

  private final long[][] idCounts;

  /** The composite's index of the partition being added (for {@link #facetDictionaries}). */
  private int partition = -1;

  /** How many (partition, facet) pairs each way counted, by {@link Way} ordinal; for tests. */
  private final int[] ways = new int[Way.values().length];

  /** The ways of counting a facet in one partition. */
  enum Way {
    /** Every document matches: the stored per-value document counts. */
    STORED_COUNTS,
    /** Matching documents through document→value. */
    DOCUMENT_WALK,
    /** Value→documents, each value's postings intersected with the filter. */
    VALUE_WALK,
    /**
     * Matching documents through the document→value array derived from the postings of a
     * single-valued field that stores none ({@link FieldReader#derivedValueIndexes()}).
     */
    DERIVED_WALK,
    /** The given values only, each found in the value set (VALUES facets). */
    GIVEN_VALUES
  }

  /** Compiles {@code condition}, facets and stats (for tests; queries pass their {@link Plan}). */
  Aggregator(Schema schema, Condition condition, List<Facet> facets, List<Stats> stats) {
    this(
        schema,
        Plan.compile(schema, dev.mosaic.format.query.Query.where(condition), facets, stats));
  }

  /** An aggregator of {@code plan}'s facets and stats over the matches of its condition. */
  Aggregator(Schema schema, Plan plan) {
    this.schema = schema;
    this.condition = plan.condition;
    AggregationPlan a = plan.aggregation;
    this.facets = a.facets;
    this.statsRequests = a.stats;
    int nf = this.facets.size();
    facetFields = a.facetFields;
    facetKeys = a.facetKeys;
    facetValueCounts = new long[nf][];
    facetTables = new FacetTable[nf];
    facetDictionaries = new CompositeDictionary.Field[nf];
    idCounts = new long[nf][];
    for (int i = 0; i < nf; i++) {
      if (facetKeys[i] != null) {
        facetValueCounts[i] = new long[facetKeys[i].length];
      } else {
        facetTables[i] = new FacetTable();
      }
    }
    int ns = statsRequests.size();
    statsFields = a.statsFields;
    bounds = a.bounds;
    min = new Key[ns];
    max = new Key[ns];
    statsCounts = new long[ns];
    buckets = new long[ns][];
    for (int i = 0; i < ns; i++) {
      buckets[i] = new long[bounds[i].length == 0 ? 0 : bounds[i].length + 1];
    }
  }

  /** The compiled condition, whose leaf slots {@link #add(PartitionSearcher, int[])} resolves. */
  Plan.Node condition() {
    return condition;
  }

  /** Adds one partition. */
  void add(PartitionSearcher db) {
    add(db, null);
  }

  /**
   * Counts the TOP/ALL facets through the composite's value dictionaries (those it has); then every
   * partition must be added with {@link #add(PartitionSearcher, int[], int)}.
   */
  void useDictionaries(CompositeDictionary dictionary) {
    for (int i = 0; i < facetFields.length; i++) {
      if (facetTables[i] != null) {
        CompositeDictionary.Field d = dictionary.field(facetFields[i]);
        if (d != null) {
          facetDictionaries[i] = d;
          idCounts[i] = new long[d.valueCount()];
        }
      }
    }
  }

  /** {@link #add(PartitionSearcher, int[])} of the composite's partition {@code partition}. */
  void add(PartitionSearcher db, int[] resolved, int partition) {
    this.partition = partition;
    add(db, resolved);
  }

  /**
   * Adds one partition whose condition leaves are already resolved to ranks (by a composite
   * dictionary walk over {@link #condition()}); {@code null} resolves them in the partition.
   */
  void add(PartitionSearcher db, int[] resolved) {
    db.ensureOpen();
    addMatches(db, db.evaluate(condition, resolved));
  }

  /**
   * Adds the matches of {@link #condition()} in the composite's partition {@code partition},
   * evaluated by the caller (who may use them again: they are only read); returns their count.
   */
  long add(PartitionSearcher db, Matches m, int partition) {
    this.partition = partition;
    return addMatches(db, m);
  }

  /**
   * Adds the documents {@code m} of one partition (or of a window of a group of partitions);
   * returns their count.
   */
  long addMatches(PartitionSearcher db, Matches m) {
    if (m.kind == Matches.NONE) {
      return 0;
    }
    long matches = db.count(m);
    if (matches == 0) {
      return 0;
    }
    count += matches;
    long[] filter = null;
    if (m.kind != Matches.ALL && (facets.size() + statsRequests.size()) > 0) {
      filter = db.materialize(m);
    }
    for (int i = 0; i < facetFields.length; i++) {
      facet(i, db, db.field(facetFields[i]), m, filter, matches);
    }
    for (int i = 0; i < statsFields.length; i++) {
      stats(i, db, db.field(statsFields[i]), m, filter, matches);
    }
    return matches;
  }

  private void facet(
      int i, PartitionSearcher db, FieldReader f, Matches m, long[] filter, long matches) {
    if (facetKeys[i] != null) {
      ways[Way.GIVEN_VALUES.ordinal()]++;
      Key[] keys = facetKeys[i];
      for (int k = 0; k < keys.length; k++) {
        int v = f.find(keys[k]);
        if (v >= 0) {
          facetValueCounts[i][k] += filter == null ? f.count(v) : f.intersectionCount(v, filter);
        }
      }
      return;
    }
    int values = f.valueCount;
    if (scratch.length < values) {
      scratch = new int[values];
    }
    int[] counts = scratch;
    if (filter == null) {
      ways[Way.STORED_COUNTS.ordinal()]++;
      int start = f.prefix(0);
      for (int v = 0; v < values; v++) {
        int end = f.prefix(v + 1);
        counts[v] = end - start;
        start = end;
      }
    } else if (f.docValues < 0 && prefersDerivedWalk(f, filter, matches)) {
      ways[Way.DERIVED_WALK.ordinal()]++;
      short[] valueOf = f.derivedValueIndexes();
      for (int w = 0; w < filter.length; w++) {
        long word = filter[w];
        while (word != 0) {
          int v = valueOf[(w << 6) + Long.numberOfTrailingZeros(word)];
          word &= word - 1;
          if (v >= 0) {
            counts[v]++;
          }
        }
      }
    } else if (prefersDocumentWalk(f, filter, matches)) {
      ways[Way.DOCUMENT_WALK.ordinal()]++;
      for (int w = 0; w < filter.length; w++) {
        long word = filter[w];
        while (word != 0) {
          int doc = (w << 6) + Long.numberOfTrailingZeros(word);
          word &= word - 1;
          counts[f.valueIndex(doc)]++;
        }
      }
    } else {
      ways[Way.VALUE_WALK.ordinal()]++;
      valueWalk(f, filter, matches, counts);
    }
    CompositeDictionary.Field d = facetDictionaries[i];
    if (d == null) {
      facetTables[i].addPartition(f, counts);
      return;
    }
    int[] idOf = d.idsOf(partition);
    long[] byId = idCounts[i];
    for (int v = 0; v < values; v++) {
      int c = counts[v];
      if (c != 0) {
        counts[v] = 0;
        byId[idOf[v]] += c;
      }
    }
  }

  /**
   * True when walking the matching documents through document→value reads less than intersecting
   * every value's postings with the filter: a posting list costs one probe per id, a bit set one
   * word per filter word, so the value walk reads at most {@code min(postings, values × words)}.
   */
  static boolean prefersDocumentWalk(FieldReader f, long[] filter, long matches) {
    if (f.docValues < 0) {
      return false;
    }
    long valueWalk =
        Math.min((long) f.countRange(0, f.valueCount), (long) f.valueCount * filter.length);
    return matches < valueWalk;
  }

  /**
   * {@link #prefersDocumentWalk} for a field without document→value: true when it is single-valued
   * (so {@link FieldReader#derivedValueIndexes()} can stand in for it) and the matching documents
   * are fewer than the postings a value walk would read.
   */
  static boolean prefersDerivedWalk(FieldReader f, long[] filter, long matches) {
    if (f.postings < 0 || !f.singleValued || f.valueCount > Short.MAX_VALUE) {
      return false;
    }
    long valueWalk =
        Math.min((long) f.countRange(0, f.valueCount), (long) f.valueCount * filter.length);
    return matches < valueWalk;
  }

  /**
   * Intersects the postings of every value with {@code filter}, in value order, into {@code
   * counts}; for a single-valued field stops once {@code matches} documents are counted.
   */
  private static void valueWalk(FieldReader f, long[] filter, long matches, int[] counts) {
    long remaining = f.singleValued ? matches : Long.MAX_VALUE;
    int values = f.valueCount;
    int start = f.prefix(0);
    for (int v = 0; v < values && remaining > 0; v++) {
      int end = f.prefix(v + 1);
      int n = end - start;
      if (n > 0) {
        int c;
        if (f.allLists || FileFormat.isList(n, f.idBytes, f.documents)) {
          long at = f.allLists ? f.postings + (long) f.idBytes * start : f.postingsOf(v);
          c = listIntersection(f, at, n, filter);
        } else {
          long at = f.postingsOf(v);
          c = 0;
          for (int w = 0; w < filter.length; w++) {
            c += Long.bitCount(f.data.get(FileFormat.LONG, at + 8L * w) & filter[w]);
          }
        }
        counts[v] = c;
        remaining -= c;
      }
      start = end;
    }
  }

  private static int listIntersection(FieldReader f, long at, int n, long[] filter) {
    int c = 0;
    if (f.idBytes == 2) {
      // four ids per read: the file's trailer follows every posting list, so reading up to six
      // bytes past the last id stays inside the mapping
      int k = 0;
      for (; k + 4 <= n; k += 4) {
        long ids = f.data.get(FileFormat.LONG, at + 2L * k);
        int d0 = (int) (ids & 0xFFFF);
        int d1 = (int) ((ids >>> 16) & 0xFFFF);
        int d2 = (int) ((ids >>> 32) & 0xFFFF);
        int d3 = (int) (ids >>> 48);
        c +=
            (int)
                (((filter[d0 >>> 6] >>> d0) & 1)
                    + ((filter[d1 >>> 6] >>> d1) & 1)
                    + ((filter[d2 >>> 6] >>> d2) & 1)
                    + ((filter[d3 >>> 6] >>> d3) & 1));
      }
      if (k < n) {
        long ids = f.data.get(FileFormat.LONG, at + 2L * k);
        for (; k < n; k++, ids >>>= 16) {
          int doc = (int) (ids & 0xFFFF);
          c += (int) ((filter[doc >>> 6] >>> doc) & 1);
        }
      }
    } else {
      for (int k = 0; k < n; k++) {
        int doc = f.data.get(FileFormat.INT, at + 4L * k);
        c += (int) ((filter[doc >>> 6] >>> doc) & 1);
      }
    }
    return c;
  }

  private void stats(
      int i, PartitionSearcher db, FieldReader f, Matches m, long[] filter, long matches) {
    statsCounts[i] += matches;
    int values = f.valueCount;
    int lo;
    int hi;
    if (filter == null) {
      lo = 0;
      hi = values - 1;
    } else if (f.postings >= 0 && matches > values) {
      lo = 0;
      while (f.intersectionCount(lo, filter) == 0) {
        lo++;
      }
      hi = values - 1;
      while (f.intersectionCount(hi, filter) == 0) {
        hi--;
      }
    } else {
      lo = Integer.MAX_VALUE;
      hi = -1;
      for (int w = 0; w < filter.length; w++) {
        long word = filter[w];
        while (word != 0) {
          int rank = f.valueIndex((w << 6) + Long.numberOfTrailingZeros(word));
          word &= word - 1;
          lo = Math.min(lo, rank);
          hi = Math.max(hi, rank);
        }
      }
    }
    if (min[i] == null || compare(f, lo, min[i]) < 0) {
      min[i] = Key.of(f.valueBytes(lo));
    }
    if (max[i] == null || compare(f, hi, max[i]) > 0) {
      max[i] = Key.of(f.valueBytes(hi));
    }
    Key[] b = bounds[i];
    if (b.length == 0) {
      return;
    }
    // Rank boundaries: bucket j + 1 holds ranks in [edge[j], edge[j + 1]).
    int[] edge = new int[b.length];
    for (int j = 0; j < b.length; j++) {
      edge[j] = f.lowerBound(b[j], true);
    }
    long[] out = buckets[i];
    if (filter == null && f.postings >= 0) {
      int previous = 0;
      for (int j = 0; j < edge.length; j++) {
        out[j] += f.countRange(previous, edge[j]);
        previous = edge[j];
      }
      out[edge.length] += f.countRange(previous, values);
      return;
    }
    if (filter == null) {
      for (int doc = 0; doc < db.documents(); doc++) {
        out[bucket(edge, f.valueIndex(doc))]++;
      }
      return;
    }
    for (int w = 0; w < filter.length; w++) {
      long word = filter[w];
      while (word != 0) {
        int doc = (w << 6) + Long.numberOfTrailingZeros(word);
        word &= word - 1;
        out[bucket(edge, f.valueIndex(doc))]++;
      }
    }
  }

  /** {@link FieldReader#compare}, one read for 4- and 8-byte values. */
  private static int compare(FieldReader f, int index, Key key) {
    if (f.width == 8 && key.length() == 8) {
      return Long.compareUnsigned(
          f.data.get(FileFormat.BIG_LONG, f.valueData + ((long) index << 3)), key.words()[0]);
    }
    if (f.width == 4 && key.length() == 4) {
      return Integer.compareUnsigned(
          f.data.get(FileFormat.BIG_INT, f.valueData + ((long) index << 2)),
          (int) (key.words()[0] >>> 32));
    }
    return f.compare(index, key);
  }

  /** Number of edges at or below {@code rank}. */
  private static int bucket(int[] edge, int rank) {
    int lo = 0;
    int hi = edge.length;
    while (lo < hi) {
      int mid = (lo + hi) >>> 1;
      if (edge[mid] <= rank) {
        lo = mid + 1;
      } else {
        hi = mid;
      }
    }
    return lo;
  }

  Aggregation result() {
    List<Aggregation.FacetCounts> facetResults = new ArrayList<>();
    for (int i = 0; i < facets.size(); i++) {
      Facet request = facets.get(i);
      Field field = schema.fields().get(facetFields[i]);
      List<Aggregation.Entry> entries = new ArrayList<>();
      if (facetKeys[i] != null) {
        for (int k = 0; k < facetKeys[i].length; k++) {
          entries.add(new Aggregation.Entry(request.values().get(k), facetValueCounts[i][k]));
        }
      } else {
        FacetTable t = facetTables[i];
        if (idCounts[i] != null) {
          long[] byId = idCounts[i];
          for (int id = 0; id < byId.length; id++) {
            t.add(facetDictionaries[i].value(id), byId[id]);
          }
        }
        Integer[] order = new Integer[t.size];
        for (int k = 0; k < order.length; k++) {
          order[k] = k;
        }
        Comparator<Integer> byValue =
            (a, b) -> Arrays.compareUnsigned(t.keys[a].bytes(), t.keys[b].bytes());
        int n = order.length;
        if (request.kind() == Facet.Kind.TOP) {
          Arrays.sort(
              order, Comparator.<Integer>comparingLong(k -> -t.counts[k]).thenComparing(byValue));
          n = Math.min(n, request.top());
        } else {
          Arrays.sort(order, byValue);
        }
        for (int k = 0; k < n; k++) {
          entries.add(
              new Aggregation.Entry(
                  field.type().decode(t.keys[order[k]].bytes()), t.counts[order[k]]));
        }
      }
      facetResults.add(new Aggregation.FacetCounts(field.name(), entries));
    }
    List<Aggregation.FieldStats> statsResults = new ArrayList<>();
    for (int i = 0; i < statsRequests.size(); i++) {
      Field field = schema.fields().get(statsFields[i]);
      List<Long> b = new ArrayList<>();
      for (long v : buckets[i]) {
        b.add(v);
      }
      statsResults.add(
          new Aggregation.FieldStats(
              field.name(),
              statsCounts[i],
              min[i] == null ? null : field.type().decode(min[i].bytes()),
              max[i] == null ? null : field.type().decode(max[i].bytes()),
              b));
    }
    return new Aggregation(count, facetResults, statsResults);
  }

  /** Length of the per-partition counter scratch: the most distinct values of a partition. */
  int scratchLength() {
    return scratch.length;
  }

  /** Largest capacity of the per-partition slot lists of any facet. */
  int slotListLength() {
    int n = 0;
    for (FacetTable t : facetTables) {
      if (t != null) {
        n = Math.max(n, Math.max(t.previous.length, t.current.length));
      }
    }
    return n;
  }

  /** How many (partition, facet) pairs were counted {@code way}. */
  int countedWay(Way way) {
    return ways[way.ordinal()];
  }

  /**
   * The merged counts of one TOP or ALL facet: one slot per distinct value counted in any
   * partition, found by value bytes; plus the slot of every value of the previous partition, by
   * value index ({@code -1} where not known), which the next partition reuses as is when its value
   * set is byte for byte the same (one bulk comparison), or merges with in value order otherwise.
   */
  private static final class FacetTable {
    Key[] keys = new Key[16];
    long[] counts = new long[16];
    int size;
    private final Object2IntOpenCustomHashMap<byte[]> slots =
        new Object2IntOpenCustomHashMap<>(ByteArrays.HASH_STRATEGY);
    private FieldReader previousField;
    int[] previous = new int[0];
    int[] current = new int[0];

    FacetTable() {
      slots.defaultReturnValue(-1);
    }

    /** The slot of a value, added with count 0 when new. */
    int slot(byte[] bytes) {
      int slot = slots.getInt(bytes);
      if (slot < 0) {
        if (size == keys.length) {
          keys = Arrays.copyOf(keys, size * 2);
          counts = Arrays.copyOf(counts, size * 2);
        }
        slot = size++;
        keys[slot] = Key.of(bytes);
        slots.put(bytes, slot);
      }
      return slot;
    }

    void add(byte[] bytes, long count) {
      if (count > 0) {
        int slot = slot(bytes); // may grow the arrays: before reading the counts field
        counts[slot] += count;
      }
    }

    /**
     * Adds one partition's per-value counts ({@code counts[v]} for value index {@code v}; zeroed
     * here).
     */
    void addPartition(FieldReader f, int[] counts) {
      int values = f.valueCount;
      if (previousField != null && sameValues(previousField, f)) {
        int[] slotOf = previous;
        for (int v = 0; v < values; v++) {
          int c = counts[v];
          if (c != 0) {
            counts[v] = 0;
            int slot = slotOf[v];
            if (slot < 0) {
              slot = slot(f.valueBytes(v));
              slotOf[v] = slot;
            }
            this.counts[slot] += c;
          }
        }
        previousField = f;
        return;
      }
      if (current.length < values) {
        current = new int[values];
      }
      int[] prev = previous;
      int p = previousField == null ? 0 : previousField.valueCount;
      int[] cur = current;
      int j = 0;
      for (int v = 0; v < values; v++) {
        int c = counts[v];
        if (c == 0) {
          cur[v] = -1;
          continue;
        }
        counts[v] = 0;
        int slot = -1;
        while (j < p) {
          int known = prev[j];
          if (known < 0) {
            j++;
            continue;
          }
          int cmp = compare(f, v, keys[known]);
          if (cmp < 0) {
            break;
          }
          j++;
          if (cmp == 0) {
            slot = known;
            break;
          }
        }
        if (slot < 0) {
          slot = slot(f.valueBytes(v));
        }
        this.counts[slot] += c;
        cur[v] = slot;
      }
      current = prev;
      previous = cur;
      previousField = f;
    }

    /**
     * True when two partitions' value sets are byte for byte the same (same values, same order).
     */
    private static boolean sameValues(FieldReader a, FieldReader b) {
      if (a.valueCount != b.valueCount || a.width != b.width) {
        return false;
      }
      long aEnd;
      long bEnd;
      if (a.width > 0) {
        aEnd = a.valueData + (long) a.valueCount * a.width;
        bEnd = b.valueData + (long) b.valueCount * b.width;
        return MemorySegment.mismatch(a.data, a.valueData, aEnd, b.data, b.valueData, bEnd) < 0;
      }
      if (a.offsetWidth != b.offsetWidth) {
        return false;
      }
      aEnd = a.valueData + a.unsigned(a.valueData - a.offsetWidth, a.offsetWidth);
      bEnd = b.valueData + b.unsigned(b.valueData - b.offsetWidth, b.offsetWidth);
      return MemorySegment.mismatch(a.data, a.values, aEnd, b.data, b.values, bEnd) < 0;
    }
  }
}
