package dev.mosaic.format.impl;

import dev.mosaic.format.Aggregation;
import dev.mosaic.format.Database;
import dev.mosaic.format.Field;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Stats;
import it.unimi.dsi.fastutil.bytes.ByteArrays;
import it.unimi.dsi.fastutil.objects.Object2LongOpenCustomHashMap;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Accumulates facet counts and field statistics over the partitions of one query. Per partition and
 * field it picks the cheaper way: the stored per-value counts when every document matches, walking
 * value→documents and intersecting with the filter when the field has few values, or walking the
 * matching documents through document→value (FULL fields) when they are fewer.
 *
 * <p>Not thread safe: one per query. Scratch: one {@code int} per distinct value of the largest
 * faceted field seen in a partition, reused across partitions.
 */
final class Aggregator {
  private final Schema schema;
  private final Plan.Node condition;
  private final List<Facet> facets;
  private final List<Stats> statsRequests;
  private final int[] facetFields;
  private final Key[][] facetKeys;
  private final long[][] facetValueCounts;
  private final Object2LongOpenCustomHashMap<byte[]>[] facetMaps;
  private final int[] statsFields;
  private final Key[][] bounds;
  private final byte[][] min;
  private final byte[][] max;
  private final long[] statsCounts;
  private final long[][] buckets;
  private long count;
  private int[] scratch = new int[0];

  @SuppressWarnings("unchecked")
  Aggregator(Schema schema, Condition condition, List<Facet> facets, List<Stats> stats) {
    this.schema = schema;
    this.condition = Plan.compileCondition(schema, condition);
    this.facets = List.copyOf(facets);
    this.statsRequests = List.copyOf(stats);
    int nf = this.facets.size();
    facetFields = new int[nf];
    facetKeys = new Key[nf][];
    facetValueCounts = new long[nf][];
    facetMaps = newFacetMaps(nf);
    for (int i = 0; i < nf; i++) {
      Facet f = this.facets.get(i);
      int index = Plan.indexOf(schema, f.field());
      Field field = schema.fields().get(index);
      if (!field.role().isFilterable()) {
        throw new IllegalArgumentException(
            "field '"
                + f.field()
                + "' is "
                + field.role()
                + ", not filterable: cannot facet on it");
      }
      facetFields[i] = index;
      if (f.kind() == Facet.Kind.VALUES) {
        facetKeys[i] = keys(field, f.values());
        facetValueCounts[i] = new long[f.values().size()];
      } else {
        facetMaps[i] = new Object2LongOpenCustomHashMap<>(ByteArrays.HASH_STRATEGY);
      }
    }
    int ns = statsRequests.size();
    statsFields = new int[ns];
    bounds = new Key[ns][];
    min = new byte[ns][];
    max = new byte[ns][];
    statsCounts = new long[ns];
    buckets = new long[ns][];
    for (int i = 0; i < ns; i++) {
      Stats s = statsRequests.get(i);
      int index = Plan.indexOf(schema, s.field());
      Field field = schema.fields().get(index);
      if (!field.role().isSortable()) {
        throw new IllegalArgumentException(
            "field '" + s.field() + "' is " + field.role() + ", not sortable: no stats on it");
      }
      statsFields[i] = index;
      bounds[i] = keys(field, s.bounds());
      for (int b = 1; b < bounds[i].length; b++) {
        if (Arrays.compareUnsigned(bounds[i][b - 1].bytes(), bounds[i][b].bytes()) >= 0) {
          throw new IllegalArgumentException(
              "field '" + s.field() + "': histogram bounds must be strictly ascending");
        }
      }
      buckets[i] = new long[bounds[i].length == 0 ? 0 : bounds[i].length + 1];
    }
  }

  private static Key[] keys(Field field, List<Object> values) {
    Key[] keys = new Key[values.size()];
    for (int i = 0; i < keys.length; i++) {
      try {
        keys[i] = Key.of(field.type().encode(values.get(i)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("field '" + field.name() + "': " + e.getMessage(), e);
      }
    }
    return keys;
  }

  /** Adds one partition. */
  void add(DatabaseReader db) {
    db.ensureOpen();
    Matches m = db.evaluate(condition);
    if (m.kind == Matches.NONE) {
      return;
    }
    long matches = db.count(m);
    if (matches == 0) {
      return;
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
  }

  private void facet(
      int i, DatabaseReader db, FieldReader f, Matches m, long[] filter, long matches) {
    if (facetKeys[i] != null) {
      Key[] keys = facetKeys[i];
      for (int k = 0; k < keys.length; k++) {
        int v = f.find(keys[k]);
        if (v >= 0) {
          facetValueCounts[i][k] += filter == null ? f.count(v) : f.intersectionCount(v, filter);
        }
      }
      return;
    }
    Object2LongOpenCustomHashMap<byte[]> map = facetMaps[i];
    int values = f.valueCount;
    if (filter == null) {
      for (int v = 0; v < values; v++) {
        int c = f.count(v);
        if (c > 0) {
          map.addTo(f.valueBytes(v), c);
        }
      }
      return;
    }
    long walkValues = Math.min((long) f.countRange(0, values), (long) values * filter.length);
    if (f.docValues >= 0 && matches < walkValues) {
      if (scratch.length < values) {
        scratch = new int[Math.max(values, scratch.length * 2)];
      }
      for (int w = 0; w < filter.length; w++) {
        long word = filter[w];
        while (word != 0) {
          int doc = (w << 6) + Long.numberOfTrailingZeros(word);
          word &= word - 1;
          scratch[f.valueIndex(doc)]++;
        }
      }
      for (int v = 0; v < values; v++) {
        if (scratch[v] > 0) {
          map.addTo(f.valueBytes(v), scratch[v]);
          scratch[v] = 0;
        }
      }
      return;
    }
    for (int v = 0; v < values; v++) {
      int c = f.intersectionCount(v, filter);
      if (c > 0) {
        map.addTo(f.valueBytes(v), c);
      }
    }
  }

  private void stats(
      int i, DatabaseReader db, FieldReader f, Matches m, long[] filter, long matches) {
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
    byte[] low = f.valueBytes(lo);
    byte[] high = f.valueBytes(hi);
    if (min[i] == null || Arrays.compareUnsigned(low, min[i]) < 0) {
      min[i] = low;
    }
    if (max[i] == null || Arrays.compareUnsigned(high, max[i]) > 0) {
      max[i] = high;
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

  /** Adds a partition that is not read directly, through its public {@code aggregate}. */
  void addForeign(Database d, Condition condition) {
    List<Facet> all = new ArrayList<>();
    for (Facet f : facets) {
      all.add(f.kind() == Facet.Kind.VALUES ? f : Facet.all(f.field()));
    }
    Aggregation a = d.aggregate(condition, all, statsRequests);
    count += a.count();
    for (int i = 0; i < facets.size(); i++) {
      Field field = schema.fields().get(facetFields[i]);
      List<Aggregation.Entry> entries = a.facets().get(i).entries();
      for (int k = 0; k < entries.size(); k++) {
        Aggregation.Entry e = entries.get(k);
        if (facetKeys[i] != null) {
          facetValueCounts[i][k] += e.count();
        } else {
          facetMaps[i].addTo(field.type().encode(e.value()), e.count());
        }
      }
    }
    for (int i = 0; i < statsRequests.size(); i++) {
      Field field = schema.fields().get(statsFields[i]);
      Aggregation.FieldStats s = a.stats().get(i);
      statsCounts[i] += s.count();
      if (s.count() > 0) {
        byte[] low = field.type().encode(s.min());
        byte[] high = field.type().encode(s.max());
        if (min[i] == null || Arrays.compareUnsigned(low, min[i]) < 0) {
          min[i] = low;
        }
        if (max[i] == null || Arrays.compareUnsigned(high, max[i]) > 0) {
          max[i] = high;
        }
      }
      for (int j = 0; j < s.buckets().size(); j++) {
        buckets[i][j] += s.buckets().get(j);
      }
    }
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
        List<Map.Entry<byte[], Long>> all = new ArrayList<>(facetMaps[i].object2LongEntrySet());
        Comparator<Map.Entry<byte[], Long>> byValue =
            (a, b) -> Arrays.compareUnsigned(a.getKey(), b.getKey());
        if (request.kind() == Facet.Kind.TOP) {
          all.sort(
              Comparator.<Map.Entry<byte[], Long>>comparingLong(e -> -e.getValue())
                  .thenComparing(byValue));
          if (all.size() > request.top()) {
            all = all.subList(0, request.top());
          }
        } else {
          all.sort(byValue);
        }
        for (Map.Entry<byte[], Long> e : all) {
          entries.add(new Aggregation.Entry(field.type().decode(e.getKey()), e.getValue()));
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
              min[i] == null ? null : field.type().decode(min[i]),
              max[i] == null ? null : field.type().decode(max[i]),
              b));
    }
    return new Aggregation(count, facetResults, statsResults);
  }

  @SuppressWarnings({"unchecked", "rawtypes"}) // generic array creation
  private static Object2LongOpenCustomHashMap<byte[]>[] newFacetMaps(int n) {
    return new Object2LongOpenCustomHashMap[n];
  }
}
