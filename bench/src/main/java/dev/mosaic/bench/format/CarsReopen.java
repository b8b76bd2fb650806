package dev.mosaic.bench.format;

import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.PartitionGroup;
import dev.mosaic.format.query.Query;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The first query after a reopen against the steady state, on the production path: a searcher
 * replaces one partition (a fresh mapping of its file), builds the next composite from the current
 * one with {@link CompositeDatabase#withPartitions}, as {@code Generations} does, closes the
 * replaced partition and serves the next query of the cars mix on the new composite ({@code
 * inherit} false builds it with {@link CompositeDatabase#of} instead, deriving everything anew).
 * Each round replaces another partition and times that first query, then the same query {@value
 * #STEADY} times more on the same composite (the steady state). One thread, in process, after a
 * warmup of the whole mix on the first composite.
 */
final class CarsReopen {
  static final int STEADY = 5;

  /**
   * Means over the rounds, in microseconds: the first query and the steady query (both in CPU time
   * of the calling thread, which a loaded machine's preemptions do not inflate as they do wall
   * time), the building of the composite (wall time; not part of either); and the median of the
   * per-round ratios of the first query to the mean steady one.
   */
  record Figures(double firstMicros, double steadyMicros, double buildMicros, double medianRatio) {}

  private CarsReopen() {}

  static Figures measure(
      Path directory, List<CarsQueries.Spec> specs, int rounds, long warmupMillis, boolean inherit)
      throws IOException {
    return measure(directory, specs, rounds, warmupMillis, inherit, 0);
  }

  /**
   * As above; with {@code groups} above 0 the first composite is {@linkplain
   * CompositeDatabase#grouped grouped} over that many {@link PartitionGroup}s and keeps them over
   * the rounds (no merge again: each replaced partition is masked in its group and served beside
   * it, so the last rounds have up to {@code rounds} partitions beside the groups).
   */
  static Figures measure(
      Path directory,
      List<CarsQueries.Spec> specs,
      int rounds,
      long warmupMillis,
      boolean inherit,
      int groups)
      throws IOException {
    Query[] queries = specs.stream().map(CarsQueries::ours).toArray(Query[]::new);
    List<Database> partitions = new ArrayList<>(CarsData.openPartitions(directory));
    List<PartitionGroup> opened =
        groups > 0 ? CarsData.openGroups(List.copyOf(partitions), groups) : List.of();
    try {
      CompositeDatabase composite =
          CompositeDatabase.grouped(CarsSchema.SCHEMA, partitions, opened);
      long sink = 0;
      long end = System.nanoTime() + warmupMillis * 1_000_000;
      for (int i = 0; System.nanoTime() < end; i = (i + 1) % queries.length) {
        sink += CarsQueries.runOurs(composite, specs.get(i), queries[i]);
      }
      double[] first = new double[rounds];
      double[] steady = new double[rounds];
      double[] build = new double[rounds];
      double[] ratio = new double[rounds];
      java.lang.management.ThreadMXBean cpu =
          java.lang.management.ManagementFactory.getThreadMXBean();
      for (int round = 0; round < rounds; round++) {
        int replaced = (int) ((round * 397L) % partitions.size());
        Database fresh = Database.open(CarsData.partitionFile(directory, replaced));
        Database old = partitions.set(replaced, fresh);
        long t0 = System.nanoTime();
        composite =
            inherit
                ? composite.withPartitions(partitions)
                : CompositeDatabase.grouped(CarsSchema.SCHEMA, partitions, opened);
        long t1 = System.nanoTime();
        old.close();
        int q = round % queries.length;
        long c0 = cpu.getCurrentThreadCpuTime();
        sink += CarsQueries.runOurs(composite, specs.get(q), queries[q]);
        long c1 = cpu.getCurrentThreadCpuTime();
        long total = 0;
        for (int s = 0; s < STEADY; s++) {
          long a = cpu.getCurrentThreadCpuTime();
          sink += CarsQueries.runOurs(composite, specs.get(q), queries[q]);
          total += cpu.getCurrentThreadCpuTime() - a;
        }
        build[round] = (t1 - t0) / 1e3;
        first[round] = (c1 - c0) / 1e3;
        steady[round] = total / 1e3 / STEADY;
        ratio[round] = first[round] / Math.max(0.001, steady[round]);
      }
      if (sink == 42) {
        System.out.print(""); // keeps the results alive
      }
      Arrays.sort(ratio);
      return new Figures(mean(first), mean(steady), mean(build), ratio[rounds / 2]);
    } finally {
      opened.forEach(PartitionGroup::close);
      partitions.forEach(Database::close);
    }
  }

  private static double mean(double[] values) {
    double sum = 0;
    for (double v : values) {
      sum += v;
    }
    return sum / values.length;
  }
}
