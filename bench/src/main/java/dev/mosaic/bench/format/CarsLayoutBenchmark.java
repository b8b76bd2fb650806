package dev.mosaic.bench.format;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.PartitionGroup;
import dev.mosaic.format.query.Query;
import java.io.IOException;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
 * Our side of the cars mix ({@link CarsMixBenchmark}) over the same documents in three layouts, in
 * one JMH run (back-to-back forks with the same settings), so that their ratios compare like with
 * like: a number of partitions (1024, 64) under {@link CompositeDatabase#of}; or {@code grouped},
 * the {@code mosaic.bench.partitions} (1024) partitions with consecutive runs merged into {@link
 * CarsData#groupCount()} {@link PartitionGroup}s under {@link CompositeDatabase#grouped} (the
 * searcher's path once its background merge is done; processors still receive the 1024 partitions).
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
public class CarsLayoutBenchmark {
  /** The grouped layout's name; the others are partition counts. */
  static final String GROUPED = OursLayout.GROUPED;

  /** The composite of one layout and the queries. */
  @State(Scope.Thread)
  public static class Ours {
    @Param({"mix"})
    public String kind;

    /** A partition count (dividing 1024), or {@value #GROUPED}. */
    @Param({"1024", "64", GROUPED})
    public String layout;

    OursLayout opened;
    CompositeDatabase composite;
    CarsQueries.Spec[] specs;
    Query[] queries;
    int next;

    @Setup
    public void open() throws IOException {
      opened = OursLayout.open(layout);
      composite = opened.composite;
      List<CarsQueries.Spec> mix = CarsMixBenchmark.specs(kind);
      specs = mix.toArray(CarsQueries.Spec[]::new);
      queries = mix.stream().map(CarsQueries::ours).toArray(Query[]::new);
    }

    @TearDown
    public void close() {
      opened.close();
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
}
