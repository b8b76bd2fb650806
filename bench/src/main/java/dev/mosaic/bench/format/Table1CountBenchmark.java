package dev.mosaic.bench.format;

import static dev.mosaic.format.query.Condition.eq;

import dev.mosaic.format.Database;
import dev.mosaic.format.query.Query;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.store.MMapDirectory;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The YoctoDB paper's Table 1: {@code count where f = ?} over 1M documents whose {@code f} is the
 * hex MD5 of {@code id % 10} (so each value matches 100,000 documents). Ours: {@code
 * Database.count(Query.where(eq("f", v)))} on one mapped file. Lucene: {@code
 * IndexSearcher.count(TermQuery)} on one merged segment in an {@link MMapDirectory}. Each call
 * takes the next of the 10 values in turn.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(
    value = 1,
    jvmArgsAppend = {
      "--enable-native-access=ALL-UNNAMED",
      "--sun-misc-unsafe-memory-access=allow",
      "-Xms1g",
      "-Xmx1g"
    })
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
public class Table1CountBenchmark {

  /** Our side: the database and the 10 queries. */
  @State(Scope.Thread)
  public static class Ours {
    Database database;
    Query[] queries;
    int next;

    @Setup
    public void open() throws IOException {
      database = Database.open(Table1Data.oursFile());
      List<String> values = Table1Data.values();
      queries =
          values.stream().map(v -> Query.where(eq(Table1Data.FIELD, v))).toArray(Query[]::new);
      for (Query q : queries) {
        long count = database.count(q);
        if (count != Table1Data.DOCUMENTS / 10) {
          throw new IllegalStateException("ours counts " + count + " for " + q);
        }
      }
    }

    @TearDown
    public void close() {
      database.close();
    }
  }

  /** Lucene's side: the searcher and the 10 term queries. */
  @State(Scope.Thread)
  public static class Lucene {
    MMapDirectory directory;
    DirectoryReader reader;
    IndexSearcher searcher;
    TermQuery[] queries;
    int next;

    @Setup
    public void open() throws IOException {
      directory = new MMapDirectory(Table1Data.luceneDirectory());
      reader = DirectoryReader.open(directory);
      searcher = new IndexSearcher(reader);
      queries =
          Table1Data.values().stream()
              .map(v -> new TermQuery(new Term(Table1Data.FIELD, v)))
              .toArray(TermQuery[]::new);
      for (TermQuery q : queries) {
        int count = searcher.count(q);
        if (count != Table1Data.DOCUMENTS / 10) {
          throw new IllegalStateException("Lucene counts " + count + " for " + q);
        }
      }
    }

    @TearDown
    public void close() throws IOException {
      reader.close();
      directory.close();
    }
  }

  @Benchmark
  public long ours(Ours s) {
    Query q = s.queries[s.next];
    if (++s.next == s.queries.length) {
      s.next = 0;
    }
    return s.database.count(q);
  }

  @Benchmark
  public int lucene(Lucene s) throws IOException {
    TermQuery q = s.queries[s.next];
    if (++s.next == s.queries.length) {
      s.next = 0;
    }
    return s.searcher.count(q);
  }
}
