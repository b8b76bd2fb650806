package dev.mosaic.bench.format;

import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.PartitionGroup;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.store.MMapDirectory;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.RunnerException;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Runs the format benchmarks and prints one {@code RESULT} line per benchmark: prepares (or finds
 * cached) data sets, checks that ours and Lucene agree on every cars query and sidebar, measures
 * the build and open figures, runs the Table 1, cars mix and cars facets JMH benchmarks, and
 * summarizes.
 */
@Command(
    name = "format-benchmarks",
    mixinStandardHelpOptions = true,
    description =
        "Mosaic format engine vs Apache Lucene: Table 1 count, cars mix, cars facets, footprint.")
public final class FormatBenchmarks implements Callable<Integer> {
  private static final Logger LOG = LoggerFactory.getLogger(FormatBenchmarks.class);

  @Option(names = "--warmup-iterations", defaultValue = "3")
  int warmupIterations;

  @Option(names = "--warmup-seconds", defaultValue = "3")
  int warmupSeconds;

  @Option(names = "--iterations", defaultValue = "3")
  int iterations;

  @Option(names = "--seconds", defaultValue = "3")
  int seconds;

  @Option(names = "--profiler", description = "JMH profilers to add, e.g. gc or stack (repeatable)")
  List<String> profilers = new ArrayList<>();

  @Option(
      names = "--only",
      split = ",",
      defaultValue = "table1,cars,facets,footprint",
      description = "which of table1, cars, facets, footprint to run")
  List<String> only;

  @Option(
      names = "--partitions",
      defaultValue = "1024",
      description = "cars partitions (default 1024; other counts show the per-partition cost)")
  int partitions;

  @Option(
      names = "--interleaved-rounds",
      defaultValue = "10",
      description = "rounds of the in-process interleaved cross-check (0 to skip)")
  int interleavedRounds;

  @Option(names = "--kind", defaultValue = "mix", description = "cars query kind (default mix)")
  String kind;

  @Option(
      names = "--compare-partitions",
      defaultValue = "64",
      description =
          "the same documents in this many partitions, for cars_mix_64 (0 to skip; divides 1024)")
  int comparePartitions;

  @Option(
      names = "--groups",
      defaultValue = "32",
      description =
          "groups the partitions are merged into for cars_mix_grouped (0 to skip; divides them)")
  int groups;

  @Option(
      names = "--reopen-rounds",
      defaultValue = "256",
      description = "partitions replaced one at a time for cars_reopen (0 to skip)")
  int reopenRounds;

  public static void main(String[] args) {
    System.exit(new CommandLine(new FormatBenchmarks()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    System.setProperty(CarsData.PARTITIONS_PROPERTY, Integer.toString(partitions));
    List<String> results = new ArrayList<>();
    int disagreements = 0;
    double loadAtStart = loadAverage();
    if (only.contains("table1")) {
      LOG.info("table 1 data: {} and {}", Table1Data.oursFile(), Table1Data.luceneDirectory());
      Collection<RunResult> run = jmh(Table1CountBenchmark.class, null, partitions);
      double ours = score(run, "ours") / 1000;
      double lucene = score(run, "lucene") / 1000;
      results.add(
          String.format(
              Locale.ROOT,
              "RESULT table1_count ours_us=%.4f lucene_us=%.4f ratio=%.2f",
              ours,
              lucene,
              lucene / ours));
    }
    if (only.contains("cars")) {
      LOG.info("cars data: {} and {}", CarsData.oursDirectory(), CarsData.luceneDirectory());
      int mismatches = checkAgreement(partitions);
      disagreements += mismatches;
      int mismatchesGrouped = groups > 0 ? checkGroupedAgreement() : 0;
      disagreements += mismatchesGrouped;
      // the gc profiler's bytes per query of both engines come from this very run
      ChainedOptionsBuilder mix =
          options(CarsMixBenchmark.class.getName() + "\\.", kind, partitions)
              .param("layout", oursLayouts());
      if (!profilers.contains("gc")) {
        mix.addProfiler("gc");
      }
      Collection<RunResult> run = new Runner(mix.build()).run();
      double ours = score(run, "ours", production());
      double lucene = score(run, "lucene", null);
      results.add(
          String.format(
              Locale.ROOT,
              "RESULT cars_mix ours_ops=%.1f lucene_ops=%.1f ratio=%.2f%s",
              ours,
              lucene,
              ours / lucene,
              (kind.equals("mix") ? "" : " kind=" + kind)
                  + layoutTail(mismatches + mismatchesGrouped)));
      if (groups > 0) {
        double plain = score(run, "ours", OursLayout.UNGROUPED);
        results.add(
            String.format(
                Locale.ROOT,
                "INFO cars_mix_ungrouped ours_ops=%.1f lucene_ops=%.1f ratio=%.2f partitions=%d"
                    + " (same JMH run; RESULT cars_mix is the production path, grouped)",
                plain,
                lucene,
                plain / lucene,
                partitions));
      }
      results.add(
          String.format(
              Locale.ROOT,
              "INFO cars_mix_alloc ours_bytes_per_query=%.0f lucene_bytes_per_query=%.0f"
                  + " ratio=%.2f%s (gc profiler, same JMH run)",
              allocation(run, "ours", production()),
              allocation(run, "lucene", null),
              allocation(run, "ours", production()) / allocation(run, "lucene", null),
              groups > 0
                  ? String.format(
                      Locale.ROOT,
                      " ours_ungrouped_bytes_per_query=%.0f",
                      allocation(run, "ours", OursLayout.UNGROUPED))
                  : ""));
      if (comparePartitions > 0 || groups > 0) {
        results.addAll(layouts(ours, lucene));
        disagreements += disagreementsOfLayouts;
      }
      if (reopenRounds > 0) {
        // the production path: grouped, a new composite inheriting from the last on every reopen
        CarsReopen.Figures r = reopen(true, groups);
        CarsReopen.Figures plain = groups > 0 ? reopen(true, 0) : r;
        CarsReopen.Figures anew = reopen(false, 0);
        results.add(
            String.format(
                Locale.ROOT,
                "RESULT cars_reopen first_us=%.1f steady_us=%.1f ratio=%.2f%s",
                r.firstMicros(),
                r.steadyMicros(),
                r.firstMicros() / r.steadyMicros(),
                groups > 0 ? " groups=" + groups : " ungrouped"));
        results.add(
            String.format(
                Locale.ROOT,
                "INFO cars_reopen build_us=%.1f median_round_ratio=%.2f rounds=%d"
                    + " (groups kept over the rounds: each replaced partition is served beside"
                    + " its masked group)",
                r.buildMicros(),
                r.medianRatio(),
                reopenRounds));
        results.add(
            String.format(
                Locale.ROOT,
                "INFO cars_reopen_ungrouped first_us=%.1f steady_us=%.1f ratio=%.2f"
                    + " without_inheritance: first_us=%.1f steady_us=%.1f ratio=%.2f",
                plain.firstMicros(),
                plain.steadyMicros(),
                plain.firstMicros() / plain.steadyMicros(),
                anew.firstMicros(),
                anew.steadyMicros(),
                anew.firstMicros() / anew.steadyMicros()));
      }
      if (interleavedRounds > 0) {
        results.add(interleavedCars());
        if (groups > 0) {
          results.add(interleavedCars(groups));
        }
        if (groups > 0 && comparePartitions > 0) {
          results.add(interleavedLayouts());
        }
      }
    }
    if (only.contains("facets")) {
      LOG.info("cars data: {} and {}", CarsData.oursDirectory(), CarsData.luceneDirectory());
      int mismatches = checkFacetsAgreement();
      int mismatchesGrouped = groups > 0 ? checkFacetsAgreement(groups) : 0;
      disagreements += mismatches + mismatchesGrouped;
      Collection<RunResult> run =
          new Runner(
                  options(CarsFacetsBenchmark.class.getName() + "\\.", null, partitions)
                      .param("layout", oursLayouts())
                      .build())
              .run();
      double ours = score(run, "ours", production());
      double lucene = score(run, "lucene", null);
      results.add(
          String.format(
              Locale.ROOT,
              "RESULT cars_facets ours_us=%.1f lucene_us=%.1f ratio=%.2f%s",
              ours,
              lucene,
              lucene / ours,
              layoutTail(mismatches + mismatchesGrouped)));
      if (groups > 0) {
        double plain = score(run, "ours", OursLayout.UNGROUPED);
        results.add(
            String.format(
                Locale.ROOT,
                "INFO cars_facets_ungrouped ours_us=%.1f lucene_us=%.1f ratio=%.2f partitions=%d"
                    + " (same JMH run; RESULT cars_facets is the production path, grouped)",
                plain,
                lucene,
                lucene / plain,
                partitions));
      }
      if (interleavedRounds > 0) {
        results.add(interleavedFacets());
        if (groups > 0) {
          results.add(interleavedFacets(groups));
        }
      }
    }
    if (only.contains("footprint")) {
      FormatFootprint.Figures f = FormatFootprint.measure(7);
      results.add(
          String.format(
              Locale.ROOT,
              "RESULT format_build docs_per_s=%.0f bytes_per_raw_payload=%.3f"
                  + " heap_bytes_per_partition=%d open_%d_ms=%.2f",
              f.docsPerSecond(),
              f.bytesPerRawPayload(),
              f.heapBytesPerPartition(),
              partitions,
              f.openMillis()));
      results.add(
          String.format(
              Locale.ROOT,
              "INFO format_build documents=%d file_bytes=%d raw_payload_bytes=%d"
                  + " lucene_bytes=%d rebuild_same_bytes=%s",
              f.documents(),
              f.fileBytes(),
              f.payloadBytes(),
              BenchDataRoot.sizeOf(CarsData.luceneDirectory()),
              f.sameBytesAsCached()));
    }
    results.add(
        String.format(
            Locale.ROOT,
            "INFO machine cpus=%d jdk=%s load_average_start=%.1f load_average_end=%.1f",
            Runtime.getRuntime().availableProcessors(),
            Runtime.version(),
            loadAtStart,
            loadAverage()));
    System.out.println();
    results.forEach(System.out::println);
    if (disagreements > 0) {
      System.out.println(
          "FAILED: ours and Lucene disagree on "
              + disagreements
              + " queries or sidebars (the first ones are logged above)");
      return 1;
    }
    return 0;
  }

  /**
   * cars_mix_64 and cars_mix_grouped: our side of the mix in the layouts compared (this run's
   * partitions, the compared count, the grouped one) measured in one JMH run, each checked against
   * Lucene first; {@code lucene} is Lucene's rate from the cars_mix run, {@code oursMix} ours
   * there.
   */
  private List<String> layouts(double oursMix, double lucene) throws Exception {
    List<String> layouts = new ArrayList<>();
    layouts.add(Integer.toString(partitions));
    int mismatchesFew = 0;
    if (comparePartitions > 0) {
      LOG.info(
          "cars data in {} partitions: {}",
          comparePartitions,
          CarsData.oursDirectory(comparePartitions));
      mismatchesFew = checkAgreement(comparePartitions);
      layouts.add(Integer.toString(comparePartitions));
    }
    int mismatchesGrouped = 0;
    if (groups > 0) {
      LOG.info(
          "cars data in {} partitions merged into {} groups: {}",
          partitions,
          groups,
          CarsData.groupsDirectory(partitions, groups));
      mismatchesGrouped = checkGroupedAgreement();
      layouts.add(CarsLayoutBenchmark.GROUPED);
    }
    disagreementsOfLayouts = mismatchesFew + mismatchesGrouped;
    ChainedOptionsBuilder options =
        options(CarsLayoutBenchmark.class.getName() + "\\.", kind, partitions)
            .param("layout", layouts.toArray(String[]::new));
    Collection<RunResult> run = new Runner(options.build()).run();
    double many = layoutScore(run, Integer.toString(partitions));
    List<String> lines = new ArrayList<>();
    if (comparePartitions > 0) {
      // the RESULT line measures the production path, as cars_mix does: the partitions grouped as
      // a searcher serves them (when --groups is set); the ungrouped layout stays an INFO line
      double few = layoutScore(run, Integer.toString(comparePartitions));
      double served = groups > 0 ? layoutScore(run, CarsLayoutBenchmark.GROUPED) : many;
      lines.add(
          String.format(
              Locale.ROOT,
              "RESULT cars_mix_%d ours_ops_%d=%.1f ours_ops_%d=%.1f ratio=%.2f %s%s",
              comparePartitions,
              partitions,
              served,
              comparePartitions,
              few,
              served / few,
              groups > 0 ? "groups=" + groups : "ungrouped",
              mismatchesFew + mismatchesGrouped == 0
                  ? ""
                  : " MISMATCHES=" + (mismatchesFew + mismatchesGrouped)));
      if (groups > 0) {
        lines.add(
            String.format(
                Locale.ROOT,
                "INFO cars_mix_%d_ungrouped ours_ops_%d=%.1f ours_ops_%d=%.1f ratio=%.2f"
                    + " (same JMH run; RESULT cars_mix_%d is the production path, grouped)",
                comparePartitions,
                partitions,
                many,
                comparePartitions,
                few,
                many / few,
                comparePartitions));
      }
    }
    if (groups > 0) {
      double grouped = layoutScore(run, CarsLayoutBenchmark.GROUPED);
      lines.add(
          String.format(
              Locale.ROOT,
              "INFO cars_mix_grouped ours_ops=%.1f lucene_ops=%.1f ratio=%.2f groups=%d%s",
              grouped,
              lucene,
              grouped / lucene,
              groups,
              mismatchesGrouped == 0 ? "" : " MISMATCHES=" + mismatchesGrouped));
      lines.add(
          String.format(
              Locale.ROOT,
              "INFO cars_mix_grouped ours_ops_%d=%.1f grouped_over_%d=%.2f%s"
                  + " (same JMH run; cars_mix measured ours_ops=%.1f in its own run)",
              partitions,
              many,
              partitions,
              grouped / many,
              comparePartitions > 0
                  ? String.format(
                      Locale.ROOT,
                      " grouped_over_%d=%.2f",
                      comparePartitions,
                      grouped / layoutScore(run, Integer.toString(comparePartitions)))
                  : "",
              oursMix));
    }
    return lines;
  }

  /** Disagreements found by {@link #layouts}. */
  private int disagreementsOfLayouts;

  private static double layoutScore(Collection<RunResult> run, String layout) {
    return run.stream()
        .filter(r -> layout.equals(r.getParams().getParam("layout")))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no result for layout " + layout))
        .getPrimaryResult()
        .getScore();
  }

  private CarsReopen.Figures reopen(boolean inherit, int groupCount) throws IOException {
    return CarsReopen.measure(
        CarsData.oursDirectory(),
        CarsMixBenchmark.specs(kind),
        reopenRounds,
        1000L * warmupSeconds * warmupIterations,
        inherit,
        groupCount);
  }

  /** The end of a RESULT line measured on our production layout: layout and disagreements. */
  private String layoutTail(int mismatches) {
    return (partitions == 1024 ? "" : " partitions=" + partitions)
        + (groups > 0 ? " groups=" + groups : " ungrouped")
        + (mismatches == 0 ? "" : " MISMATCHES=" + mismatches);
  }

  /** Our layout on the RESULT lines: grouped as the searcher serves, unless --groups 0. */
  private String production() {
    return groups > 0 ? OursLayout.GROUPED : OursLayout.UNGROUPED;
  }

  /** Our layouts measured by the cars mix and facets runs. */
  private String[] oursLayouts() {
    return groups > 0
        ? new String[] {OursLayout.GROUPED, OursLayout.UNGROUPED}
        : new String[] {OursLayout.UNGROUPED};
  }

  private static double loadAverage() {
    return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
  }

  private Collection<RunResult> jmh(Class<?> benchmark, String kindParam, int partitionCount)
      throws RunnerException {
    return jmh(benchmark.getName() + "\\.", kindParam, partitionCount);
  }

  private Collection<RunResult> jmh(String include, String kindParam, int partitionCount)
      throws RunnerException {
    return new Runner(options(include, kindParam, partitionCount).build()).run();
  }

  private ChainedOptionsBuilder options(String include, String kindParam, int partitionCount) {
    ChainedOptionsBuilder options =
        new OptionsBuilder()
            .include(include)
            .forks(1)
            .warmupIterations(warmupIterations)
            .warmupTime(TimeValue.seconds(warmupSeconds))
            .measurementIterations(iterations)
            .measurementTime(TimeValue.seconds(seconds))
            .threads(1)
            .jvmArgsAppend(
                "-D" + BenchDataRoot.PROPERTY + "=" + BenchDataRoot.get(),
                "-D" + CarsData.PARTITIONS_PROPERTY + "=" + partitionCount,
                "-D" + CarsData.GROUPS_PROPERTY + "=" + Math.max(1, groups));
    if (kindParam != null) {
      options.param("kind", kindParam);
    }
    for (String p : profilers) {
      options.addProfiler(p);
    }
    return options;
  }

  private static double score(Collection<RunResult> run, String method) {
    return score(run, method, null);
  }

  /** The score of {@code method} in our layout {@code layout} (null: any, for Lucene's side). */
  private static double score(Collection<RunResult> run, String method, String layout) {
    return result(run, method, layout).getPrimaryResult().getScore();
  }

  /** Bytes allocated per operation (the gc profiler's normalized allocation rate). */
  private static double allocation(Collection<RunResult> run, String method, String layout) {
    return result(run, method, layout).getSecondaryResults().entrySet().stream()
        .filter(e -> e.getKey().endsWith("gc.alloc.rate.norm"))
        .findFirst()
        .orElseThrow(() -> new IllegalStateException("no gc profile for " + method))
        .getValue()
        .getScore();
  }

  private static RunResult result(Collection<RunResult> run, String method, String layout) {
    return run.stream()
        .filter(r -> r.getParams().getBenchmark().endsWith("." + method))
        .filter(r -> layout == null || layout.equals(r.getParams().getParam("layout")))
        .findFirst()
        .orElseThrow(
            () ->
                new IllegalStateException(
                    "no result for " + method + (layout == null ? "" : " in layout " + layout)));
  }

  private String interleavedCars() throws Exception {
    return interleavedCars(0);
  }

  /** The interleaved cross-check of the mix, ours grouped into {@code groupCount} (none when 0). */
  private String interleavedCars(int groupCount) throws Exception {
    List<CarsQueries.Spec> specs = CarsMixBenchmark.specs(kind);
    dev.mosaic.format.query.Query[] oursQueries =
        specs.stream().map(CarsQueries::ours).toArray(dev.mosaic.format.query.Query[]::new);
    CarsQueries.LuceneQuery[] luceneQueries =
        specs.stream().map(CarsQueries::lucene).toArray(CarsQueries.LuceneQuery[]::new);
    List<Database> partitions = CarsData.openPartitions(CarsData.oursDirectory());
    List<PartitionGroup> opened =
        groupCount > 0 ? CarsData.openGroups(partitions, groupCount) : List.of();
    try (MMapDirectory directory = new MMapDirectory(CarsData.luceneDirectory());
        DirectoryReader reader = DirectoryReader.open(directory)) {
      CompositeDatabase composite =
          CompositeDatabase.grouped(CarsSchema.SCHEMA, partitions, opened);
      IndexSearcher searcher = new IndexSearcher(reader);
      int[] next = {0, 0};
      InterleavedComparison.Outcome o =
          InterleavedComparison.run(
              () -> {
                int i = (next[0]++ & 0x7fffffff) % specs.size();
                return CarsQueries.runOurs(composite, specs.get(i), oursQueries[i]);
              },
              () ->
                  CarsQueries.runLucene(
                      searcher, luceneQueries[(next[1]++ & 0x7fffffff) % specs.size()]),
              warmupSeconds * warmupIterations,
              interleavedRounds,
              2.0);
      return String.format(
              Locale.ROOT,
              "INFO cars_mix%s_interleaved ours_ops=%.1f lucene_ops=%.1f ratio=%.2f rounds=%d",
              groupCount > 0 ? "_grouped" : "",
              o.aOpsPerSecond(),
              o.bOpsPerSecond(),
              o.medianRatio(),
              interleavedRounds)
          + (groupCount > 0 ? " groups=" + groupCount : "");
    } finally {
      opened.forEach(PartitionGroup::close);
      partitions.forEach(Database::close);
    }
  }

  /**
   * The layouts of cars_mix_64 and cars_mix_grouped in one JVM, in alternating rounds against the
   * compared count ({@link InterleavedComparison}): on a loaded machine the ratio to trust.
   */
  private String interleavedLayouts() throws Exception {
    List<CarsQueries.Spec> specs = CarsMixBenchmark.specs(kind);
    dev.mosaic.format.query.Query[] queries =
        specs.stream().map(CarsQueries::ours).toArray(dev.mosaic.format.query.Query[]::new);
    List<Database> many = CarsData.openPartitions(CarsData.oursDirectory());
    List<Database> few =
        CarsData.openPartitions(CarsData.oursDirectory(comparePartitions), comparePartitions);
    List<PartitionGroup> opened = CarsData.openGroups(many, groups);
    try {
      CompositeDatabase manyComposite = CarsData.composite(many);
      CompositeDatabase fewComposite = CarsData.composite(few);
      CompositeDatabase grouped = CompositeDatabase.grouped(CarsSchema.SCHEMA, many, opened);
      InterleavedComparison.Outcome ungrouped =
          InterleavedComparison.run(
              mixOn(manyComposite, specs, queries),
              mixOn(fewComposite, specs, queries),
              warmupSeconds * warmupIterations,
              interleavedRounds,
              2.0);
      InterleavedComparison.Outcome merged =
          InterleavedComparison.run(
              mixOn(grouped, specs, queries),
              mixOn(fewComposite, specs, queries),
              warmupSeconds * warmupIterations,
              interleavedRounds,
              2.0);
      return String.format(
          Locale.ROOT,
          "INFO cars_mix_layouts_interleaved ratio_%d_over_%d=%.2f ratio_grouped_over_%d=%.2f"
              + " ours_ops_%d=%.1f ours_ops_grouped=%.1f ours_ops_%d=%.1f/%.1f groups=%d rounds=%d",
          partitions,
          comparePartitions,
          ungrouped.medianRatio(),
          comparePartitions,
          merged.medianRatio(),
          partitions,
          ungrouped.aOpsPerSecond(),
          merged.aOpsPerSecond(),
          comparePartitions,
          ungrouped.bOpsPerSecond(),
          merged.bOpsPerSecond(),
          groups,
          interleavedRounds);
    } finally {
      opened.forEach(PartitionGroup::close);
      many.forEach(Database::close);
      few.forEach(Database::close);
    }
  }

  /** The mix on one composite, query after query. */
  private static InterleavedComparison.Operation mixOn(
      CompositeDatabase composite,
      List<CarsQueries.Spec> specs,
      dev.mosaic.format.query.Query[] queries) {
    int[] next = {0};
    return () -> {
      int i = next[0]++ % specs.size();
      if (next[0] == specs.size()) {
        next[0] = 0;
      }
      return CarsQueries.runOurs(composite, specs.get(i), queries[i]);
    };
  }

  private String interleavedFacets() throws Exception {
    return interleavedFacets(0);
  }

  /** The interleaved cross-check of the sidebars, ours grouped into {@code groupCount} (or not). */
  private String interleavedFacets(int groupCount) throws Exception {
    List<String> regions = CarsFacetsBenchmark.regions();
    List<Database> partitions = CarsData.openPartitions(CarsData.oursDirectory());
    List<PartitionGroup> opened =
        groupCount > 0 ? CarsData.openGroups(partitions, groupCount) : List.of();
    try (MMapDirectory directory = new MMapDirectory(CarsData.luceneDirectory());
        DirectoryReader reader = DirectoryReader.open(directory)) {
      CompositeDatabase composite =
          CompositeDatabase.grouped(CarsSchema.SCHEMA, partitions, opened);
      IndexSearcher searcher = new IndexSearcher(reader);
      var state = CarsFacetsBenchmark.facetState(reader);
      dev.mosaic.format.query.Condition[] conditions =
          regions.stream()
              .map(CarsFacetsBenchmark::oursCondition)
              .toArray(dev.mosaic.format.query.Condition[]::new);
      org.apache.lucene.search.TermQuery[] queries =
          regions.stream()
              .map(CarsFacetsBenchmark::luceneQuery)
              .toArray(org.apache.lucene.search.TermQuery[]::new);
      int[] next = {0, 0};
      InterleavedComparison.Outcome o =
          InterleavedComparison.run(
              () ->
                  CarsFacetsBenchmark.fold(
                      CarsFacetsBenchmark.runOurs(
                          composite, conditions[(next[0]++ & 0x7fffffff) % conditions.length])),
              () ->
                  CarsFacetsBenchmark.fold(
                      CarsFacetsBenchmark.runLucene(
                          searcher, state, queries[(next[1]++ & 0x7fffffff) % queries.length])),
              warmupSeconds * warmupIterations,
              interleavedRounds,
              2.0);
      return String.format(
              Locale.ROOT,
              "INFO cars_facets%s_interleaved ours_us=%.1f lucene_us=%.1f ratio=%.2f rounds=%d",
              groupCount > 0 ? "_grouped" : "",
              1e6 / o.aOpsPerSecond(),
              1e6 / o.bOpsPerSecond(),
              o.medianRatio(),
              interleavedRounds)
          + (groupCount > 0 ? " groups=" + groupCount : "");
    } finally {
      opened.forEach(PartitionGroup::close);
      partitions.forEach(Database::close);
    }
  }

  /** Runs every sidebar on both engines and compares counts per value and min/max. */
  private int checkFacetsAgreement() throws IOException {
    return checkFacetsAgreement(0);
  }

  /** {@link #checkFacetsAgreement()} on the partitions merged into {@code groupCount} groups. */
  private int checkFacetsAgreement(int groupCount) throws IOException {
    return countDisagreements(
        "cars sidebars",
        CarsFacetsBenchmark.regions(),
        partitions,
        groupCount,
        reader -> {
          var state = CarsFacetsBenchmark.facetState(reader);
          return (ours, lucene, region) ->
              CarsFacetsBenchmark.disagreement(ours, lucene, state, region);
        });
  }

  /**
   * Runs every cars query on both engines (ours in a layout of {@code partitionCount}) and compares
   * counts, page sort keys and the documents where the keys determine them.
   */
  private int checkAgreement(int partitionCount) throws IOException {
    return countDisagreements(
        "cars queries",
        CarsMixBenchmark.specs(kind),
        partitionCount,
        reader -> CarsQueries::disagreement);
  }

  /** {@link #checkAgreement} on the grouped layout ({@link CarsLayoutBenchmark#GROUPED}). */
  private int checkGroupedAgreement() throws IOException {
    return countDisagreements(
        "cars queries",
        CarsMixBenchmark.specs(kind),
        partitions,
        groups,
        reader -> CarsQueries::disagreement);
  }

  /** How one item (a query, a sidebar) is compared: a description of the difference, or null. */
  private interface Comparison<T> {
    String disagreement(CompositeDatabase ours, IndexSearcher lucene, T item) throws IOException;
  }

  /** Makes the comparison once the Lucene index is open (it may cache per-reader state). */
  private interface ComparisonFactory<T> {
    Comparison<T> open(DirectoryReader reader) throws IOException;
  }

  /** Compares every item on our cars partitions and the Lucene index; returns how many differ. */
  private static <T> int countDisagreements(
      String what, List<T> items, int partitionCount, ComparisonFactory<T> factory)
      throws IOException {
    return countDisagreements(what, items, partitionCount, 0, factory);
  }

  /** As above, on the partitions merged into {@code groupCount} groups (none when 0). */
  private static <T> int countDisagreements(
      String what, List<T> items, int partitionCount, int groupCount, ComparisonFactory<T> factory)
      throws IOException {
    List<Database> partitions =
        CarsData.openPartitions(CarsData.oursDirectory(partitionCount), partitionCount);
    List<PartitionGroup> groups = List.of();
    int mismatches = 0;
    try (MMapDirectory directory = new MMapDirectory(CarsData.luceneDirectory());
        DirectoryReader reader = DirectoryReader.open(directory)) {
      CompositeDatabase composite;
      if (groupCount > 0) {
        groups = CarsData.openGroups(partitions, groupCount);
        composite = CompositeDatabase.grouped(CarsSchema.SCHEMA, partitions, groups);
      } else {
        composite = CarsData.composite(partitions);
      }
      IndexSearcher searcher = new IndexSearcher(reader);
      Comparison<T> comparison = factory.open(reader);
      for (T item : items) {
        String d = comparison.disagreement(composite, searcher, item);
        if (d != null && mismatches++ < 5) {
          LOG.warn("ours and Lucene disagree: {}", d);
        }
      }
    } finally {
      groups.forEach(PartitionGroup::close);
      partitions.forEach(Database::close);
    }
    LOG.info(
        "{} {} checked against Lucene ({} partitions{}), {} disagree",
        items.size(),
        what,
        partitionCount,
        groupCount > 0 ? " in " + groupCount + " groups" : "",
        mismatches);
    return mismatches;
  }
}
