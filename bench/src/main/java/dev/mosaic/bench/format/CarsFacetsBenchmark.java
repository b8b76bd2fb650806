package dev.mosaic.bench.format;

import static dev.mosaic.format.query.Condition.eq;

import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.format.Aggregation;
import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Stats;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.facet.FacetResult;
import org.apache.lucene.facet.FacetsCollector;
import org.apache.lucene.facet.FacetsCollectorManager;
import org.apache.lucene.facet.LabelAndValue;
import org.apache.lucene.facet.sortedset.DefaultSortedSetDocValuesReaderState;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetCounts;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesReaderState;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.DocValues;
import org.apache.lucene.index.NumericDocValues;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.MMapDirectory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The filter sidebar of a classifieds search page, on the cars data set of {@link
 * CarsMixBenchmark}: for {@code region = ?} (regions drawn from {@value CarsMixBenchmark#QUERIES}
 * randomly chosen offers, so popular regions are queried more often), the number of matching offers
 * per mark, per body type and per year (every value having a match), and the min and max price and
 * mileage of the matching offers.
 *
 * <p>Ours: {@link CompositeDatabase#aggregate} over the 1024 partitions. Lucene: the region {@link
 * TermQuery} collected by a {@link FacetsCollectorManager}, the three dimensions counted by {@link
 * SortedSetDocValuesFacetCounts} (one pass over the hits and the facet ordinals; the reader state
 * is built once, as an application caches it per reader), then one pass over the same hits through
 * the price and mileage {@link NumericDocValues} for min and max. Mode: average time per query.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "--enable-native-access=ALL-UNNAMED",
      "--sun-misc-unsafe-memory-access=allow",
      "-Xms2g",
      "-Xmx2g"
    })
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
public class CarsFacetsBenchmark {
  static final List<String> FACET_FIELDS =
      List.of(CarsSchema.MARK, CarsSchema.BODY_TYPE, CarsSchema.YEAR);
  static final List<String> STATS_FIELDS = List.of(CarsSchema.PRICE, CarsSchema.MILEAGE);

  private static final List<Facet> FACETS = FACET_FIELDS.stream().map(Facet::all).toList();
  private static final List<Stats> STATS = STATS_FIELDS.stream().map(Stats::of).toList();

  /**
   * One sidebar, engine-neutral: the match count, per facet field its values (as strings) with
   * their counts, per stats field {min, max} (null when nothing matched).
   */
  record Sidebar(
      long count, Map<String, Map<String, Long>> facets, Map<String, List<Long>> stats) {}

  /** The regions queried, in order: the regions of randomly chosen offers (seeded). */
  static List<String> regions() throws IOException {
    return CarsQueries.generate(
            CarsData.offersDirectory(),
            CarsMixBenchmark.QUERIES,
            CarsMixBenchmark.QUERY_SEED,
            CarsQueries.Kind.COUNT_REGION)
        .stream()
        .map(CarsQueries.Spec::region)
        .toList();
  }

  // ---- ours

  static Condition oursCondition(String region) {
    return eq(CarsSchema.REGION, region);
  }

  static Aggregation runOurs(CompositeDatabase db, Condition condition) {
    return db.aggregate(condition, FACETS, STATS);
  }

  static Sidebar oursSidebar(Aggregation a) {
    Map<String, Map<String, Long>> facets = new TreeMap<>();
    for (Aggregation.FacetCounts f : a.facets()) {
      Map<String, Long> counts = new TreeMap<>();
      for (Aggregation.Entry e : f.entries()) {
        counts.put(String.valueOf(e.value()), e.count());
      }
      facets.put(f.field(), counts);
    }
    Map<String, List<Long>> stats = new TreeMap<>();
    for (Aggregation.FieldStats s : a.stats()) {
      stats.put(
          s.field(),
          s.min() == null
              ? null
              : List.of(((Number) s.min()).longValue(), ((Number) s.max()).longValue()));
    }
    return new Sidebar(a.count(), facets, stats);
  }

  // ---- Lucene

  /** Lucene's answer: the facet counts and, per stats field, {min, max}. */
  record LuceneSidebar(long count, List<FacetResult> facets, long[] stats) {}

  static LuceneSidebar runLucene(
      IndexSearcher searcher, SortedSetDocValuesReaderState state, TermQuery query)
      throws IOException {
    FacetsCollector collector = searcher.search(query, new FacetsCollectorManager());
    SortedSetDocValuesFacetCounts counts = new SortedSetDocValuesFacetCounts(state, collector);
    List<FacetResult> facets =
        List.of(
            counts.getAllChildren(CarsSchema.MARK),
            counts.getAllChildren(CarsSchema.BODY_TYPE),
            counts.getAllChildren(CarsSchema.YEAR));
    long[] stats = {Long.MAX_VALUE, Long.MIN_VALUE, Long.MAX_VALUE, Long.MIN_VALUE};
    long count = 0;
    for (FacetsCollector.MatchingDocs hits : collector.getMatchingDocs()) {
      count += hits.totalHits();
      if (hits.totalHits() == 0) {
        continue;
      }
      NumericDocValues price = DocValues.getNumeric(hits.context().reader(), CarsSchema.PRICE);
      NumericDocValues mileage = DocValues.getNumeric(hits.context().reader(), CarsSchema.MILEAGE);
      DocIdSetIterator docs = hits.bits().iterator();
      for (int doc = docs.nextDoc(); doc != DocIdSetIterator.NO_MORE_DOCS; doc = docs.nextDoc()) {
        if (price.advanceExact(doc)) {
          long v = price.longValue();
          stats[0] = Math.min(stats[0], v);
          stats[1] = Math.max(stats[1], v);
        }
        if (mileage.advanceExact(doc)) {
          long v = mileage.longValue();
          stats[2] = Math.min(stats[2], v);
          stats[3] = Math.max(stats[3], v);
        }
      }
    }
    return new LuceneSidebar(count, facets, stats);
  }

  static Sidebar luceneSidebar(LuceneSidebar l) {
    Map<String, Map<String, Long>> facets = new TreeMap<>();
    for (int i = 0; i < FACET_FIELDS.size(); i++) {
      Map<String, Long> counts = new TreeMap<>();
      FacetResult r = l.facets().get(i);
      if (r != null) {
        for (LabelAndValue lv : r.labelValues) {
          counts.put(lv.label, lv.value.longValue());
        }
      }
      facets.put(FACET_FIELDS.get(i), counts);
    }
    Map<String, List<Long>> stats = new TreeMap<>();
    for (int i = 0; i < STATS_FIELDS.size(); i++) {
      long min = l.stats()[2 * i];
      long max = l.stats()[2 * i + 1];
      stats.put(STATS_FIELDS.get(i), min > max ? null : List.of(min, max));
    }
    return new Sidebar(l.count(), facets, stats);
  }

  /** A number that depends on the whole answer, so the JIT cannot drop any of it. */
  static long fold(Aggregation a) {
    long h = a.count();
    for (Aggregation.FacetCounts f : a.facets()) {
      h = 31 * h + f.entries().size();
    }
    for (Aggregation.FieldStats s : a.stats()) {
      h = 31 * h + (s.min() == null ? 0 : s.min().hashCode() ^ s.max().hashCode());
    }
    return h;
  }

  static long fold(LuceneSidebar l) {
    long h = l.count();
    for (FacetResult r : l.facets()) {
      h = 31 * h + (r == null ? 0 : r.childCount);
    }
    for (long v : l.stats()) {
      h = 31 * h + v;
    }
    return h;
  }

  /** Null when both engines give the same sidebar for the region, else the difference. */
  static String disagreement(
      CompositeDatabase ours,
      IndexSearcher lucene,
      SortedSetDocValuesReaderState state,
      String region)
      throws IOException {
    Sidebar o = oursSidebar(runOurs(ours, oursCondition(region)));
    Sidebar l = luceneSidebar(runLucene(lucene, state, luceneQuery(region)));
    return o.equals(l) ? null : "region " + region + ": ours=" + o + " lucene=" + l;
  }

  static TermQuery luceneQuery(String region) {
    return new TermQuery(new Term(CarsSchema.REGION, region));
  }

  static DefaultSortedSetDocValuesReaderState facetState(DirectoryReader reader)
      throws IOException {
    return new DefaultSortedSetDocValuesReaderState(reader, CarsData.FACETS);
  }

  // ---- JMH

  /** The regions, shared by both sides. */
  @State(Scope.Benchmark)
  public static class Regions {
    List<String> regions;

    @Setup
    public void generate() throws IOException {
      regions = regions();
    }
  }

  /**
   * Our side: 1024 mapped partitions, by default grouped as the searcher serves them, or ungrouped
   * ({@link OursLayout}), and a composite over them.
   */
  @State(Scope.Thread)
  public static class Ours {
    @Param({OursLayout.GROUPED, OursLayout.UNGROUPED})
    public String layout;

    OursLayout opened;
    CompositeDatabase composite;
    Condition[] conditions;
    int next;

    @Setup
    public void open(Regions regions) throws IOException {
      opened = OursLayout.open(layout);
      composite = opened.composite;
      conditions =
          regions.regions.stream()
              .map(CarsFacetsBenchmark::oursCondition)
              .toArray(Condition[]::new);
    }

    @TearDown
    public void close() {
      opened.close();
    }
  }

  /** Lucene's side: one index, one searcher, the facet reader state built once. */
  @State(Scope.Thread)
  public static class Lucene {
    MMapDirectory directory;
    DirectoryReader reader;
    IndexSearcher searcher;
    SortedSetDocValuesReaderState state;
    TermQuery[] queries;
    int next;

    @Setup
    public void open(Regions regions) throws IOException {
      directory = new MMapDirectory(CarsData.luceneDirectory());
      reader = DirectoryReader.open(directory);
      searcher = new IndexSearcher(reader);
      state = facetState(reader);
      queries =
          regions.regions.stream().map(CarsFacetsBenchmark::luceneQuery).toArray(TermQuery[]::new);
    }

    @TearDown
    public void close() throws IOException {
      reader.close();
      directory.close();
    }
  }

  @Benchmark
  public long ours(Ours s) {
    int i = s.next;
    if (++s.next == s.conditions.length) {
      s.next = 0;
    }
    return fold(runOurs(s.composite, s.conditions[i]));
  }

  @Benchmark
  public long lucene(Lucene s) throws IOException {
    int i = s.next;
    if (++s.next == s.queries.length) {
      s.next = 0;
    }
    return fold(runLucene(s.searcher, s.state, s.queries[i]));
  }
}
