package dev.mosaic.bench.format;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.query.Query;
import java.io.IOException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
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
 * The cars workload on one thread: {@value CarsData#DOCUMENTS} offers; ours in 1024 (by default)
 * mapped partitions under one {@link CompositeDatabase}, grouped as the searcher serves them or not
 * ({@code -p layout=}, see {@link OursLayout}), Lucene in one merged index with doc values for
 * sorting. Each call runs the next query of a fixed list of {@value #QUERIES} ({@link
 * CarsQueries}): the whole mix by default, or a single kind with {@code -p kind=top_published}
 * (count_region, top_published, by_price, marks_years).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
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
public class CarsMixBenchmark {
  static final int QUERIES = 1024;
  static final long QUERY_SEED = 20261122L;

  /** The query specs, shared by both sides. */
  @State(Scope.Benchmark)
  public static class Mix {
    @Param({"mix"})
    public String kind;

    List<CarsQueries.Spec> specs;

    @Setup
    public void generate() throws IOException {
      specs = specs(kind);
    }
  }

  static List<CarsQueries.Spec> specs(String kind) throws IOException {
    CarsQueries.Kind only =
        kind.equals("mix") ? null : CarsQueries.Kind.valueOf(kind.toUpperCase(Locale.ROOT));
    return CarsQueries.generate(CarsData.offersDirectory(), QUERIES, QUERY_SEED, only);
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
    CarsQueries.Spec[] specs;
    Query[] queries;
    int next;

    @Setup
    public void open(Mix mix) throws IOException {
      opened = OursLayout.open(layout);
      composite = opened.composite;
      specs = mix.specs.toArray(CarsQueries.Spec[]::new);
      queries = mix.specs.stream().map(CarsQueries::ours).toArray(Query[]::new);
    }

    @TearDown
    public void close() {
      opened.close();
    }
  }

  /** Lucene's side: one index, one searcher. */
  @State(Scope.Thread)
  public static class Lucene {
    MMapDirectory directory;
    DirectoryReader reader;
    IndexSearcher searcher;
    CarsQueries.LuceneQuery[] queries;
    int next;

    @Setup
    public void open(Mix mix) throws IOException {
      directory = new MMapDirectory(CarsData.luceneDirectory());
      reader = DirectoryReader.open(directory);
      searcher = new IndexSearcher(reader);
      queries = mix.specs.stream().map(CarsQueries::lucene).toArray(CarsQueries.LuceneQuery[]::new);
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
    if (++s.next == s.queries.length) {
      s.next = 0;
    }
    return CarsQueries.runOurs(s.composite, s.specs[i], s.queries[i]);
  }

  @Benchmark
  public long lucene(Lucene s) throws IOException {
    int i = s.next;
    if (++s.next == s.queries.length) {
      s.next = 0;
    }
    return CarsQueries.runLucene(s.searcher, s.queries[i]);
  }
}
