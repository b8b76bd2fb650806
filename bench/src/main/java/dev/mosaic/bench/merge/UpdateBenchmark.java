package dev.mosaic.bench.merge;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.DatabaseUpdate;
import dev.mosaic.format.Document;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Partition rebuilds by merge ({@link DatabaseUpdate#on}) against full builds ({@link
 * DatabaseUpdate#fresh}) on car offers from {@link CarOfferGenerator} (seed 1), in files the size
 * of one partition of a 1024-partition index (default 500 documents). One thread. A round builds
 * every file from its documents (already mapped to {@link Document}s: the format's part of a build,
 * without parsing offers), then updates every file with {@code --changed} of its documents replaced
 * in place by changed offers, the rest kept. Neither forces files to disk ({@code fsync(false)}: a
 * caller writing many files syncs once). Rates are per CPU second of the calling thread (user and
 * system time: less sensitive to other processes than wall time, though a busy machine still slows
 * a thread down; the wall-time rates are printed too). Checks that the last update of the first
 * file is byte for byte a fresh {@link DatabaseBuilder} build of its documents (exit status 1
 * otherwise), then prints the median round of each and ends with
 *
 * <pre>
 * RESULT format_update merge_docs_per_s=&lt;kept documents per s&gt; build_docs_per_s=&lt;documents per s&gt; ...
 * </pre>
 *
 * <p>Not thread safe; a command-line tool.
 */
@Command(
    name = "update-bench",
    mixinStandardHelpOptions = true,
    description = "Partition rebuild by merge against a full build, one thread.")
public final class UpdateBenchmark implements Callable<Integer> {
  @Option(names = "--files", description = "Partition files (default 200).")
  int files = 200;

  @Option(names = "--docs-per-file", description = "Documents per file (default 500).")
  int docsPerFile = 500;

  @Option(names = "--changed", description = "Share of documents changed (default 0.01).")
  double changed = 0.01;

  @Option(names = "--warmup", description = "Warmup rounds (default 3).")
  int warmup = 3;

  @Option(names = "--iterations", description = "Measured rounds (default 5).")
  int iterations = 5;

  @Option(
      names = "--updates-only",
      description = "Build the files once, then measure only updates (for profiling).")
  boolean updatesOnly;

  @Option(names = "--work", description = "Working directory (default bench/target/update-bench).")
  Path work = Path.of("bench/target/update-bench");

  private static final com.sun.management.ThreadMXBean THREADS =
      (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();

  public static void main(String[] args) {
    System.exit(new CommandLine(new UpdateBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    Files.createDirectories(work);
    try (var old = Files.list(work)) {
      for (Path p : old.toList()) {
        Files.delete(p);
      }
    }
    CarOfferGenerator generator = CarOfferGenerator.builder().seed(1).build();
    List<List<Document>> docs = new ArrayList<>();
    List<List<Document>> replacements = new ArrayList<>();
    long payloadBytes = 0;
    for (int f = 0; f < files; f++) {
      List<CarOffer> cars = generator.next(docsPerFile);
      List<Document> list = new ArrayList<>();
      for (CarOffer car : cars) {
        Document d = CarOffers.toDocument(car);
        payloadBytes += d.payload().length;
        list.add(d);
      }
      docs.add(list);
      List<Document> changedDocs = new ArrayList<>();
      for (CarOffer car : generator.mutate(cars, 1.0, 0.0, 0.0)) {
        changedDocs.add(CarOffers.toDocument(car));
      }
      replacements.add(changedDocs);
    }
    int changes = (int) Math.round(changed * docsPerFile);
    System.out.printf(
        "%d files of %d car offers (payload %d bytes per offer), %d changed per file%n",
        files, docsPerFile, payloadBytes / ((long) files * docsPerFile), changes);
    Path[] base = new Path[files];
    Path[] next = new Path[files];
    for (int f = 0; f < files; f++) {
      base[f] = work.resolve("p" + f + ".mosaic");
      next[f] = work.resolve("p" + f + ".next.mosaic");
    }
    long[] buildNanos = new long[iterations];
    long[] updateNanos = new long[iterations];
    long[] buildWall = new long[iterations];
    long[] updateWall = new long[iterations];
    long carried = 0;
    boolean[] firstReplaced = null;
    long bytes = 0;
    Random random = new Random(1);
    for (int round = 0; round < warmup + iterations; round++) {
      long c0 = THREADS.getCurrentThreadCpuTime();
      long t0 = System.nanoTime();
      for (int f = 0; f < files && (round == 0 || !updatesOnly); f++) {
        DatabaseUpdate build = DatabaseUpdate.fresh(CarsSchema.SCHEMA).fsync(false);
        docs.get(f).forEach(build::add);
        build.writeTo(base[f]);
      }
      long t1 = System.nanoTime();
      long c1 = THREADS.getCurrentThreadCpuTime();
      carried = 0;
      bytes = 0;
      for (int f = 0; f < files; f++) {
        boolean[] replace = new boolean[docsPerFile];
        for (int c = 0; c < changes; c++) {
          replace[random.nextInt(docsPerFile)] = true;
        }
        if (f == 0) {
          firstReplaced = replace;
        }
        try (Database db = Database.open(base[f], false)) {
          DatabaseUpdate up = DatabaseUpdate.on(db).fsync(false);
          for (int d = 0; d < docsPerFile; d++) {
            if (replace[d]) {
              up.add(replacements.get(f).get(d));
            } else {
              up.keep(d);
            }
          }
          DatabaseUpdate.Summary s = up.writeTo(next[f]);
          carried += s.carriedOver();
          bytes += s.sizeInBytes();
        }
      }
      long t2 = System.nanoTime();
      long c2 = THREADS.getCurrentThreadCpuTime();
      if (round >= warmup) {
        buildNanos[round - warmup] = c1 - c0;
        updateNanos[round - warmup] = c2 - c1;
        buildWall[round - warmup] = t1 - t0;
        updateWall[round - warmup] = t2 - t1;
      }
      System.out.printf(
          "round %d: build %.1f ms CPU (%.1f ms wall), update %.1f ms CPU (%.1f ms wall), %d kept%n",
          round, (c1 - c0) / 1e6, (t1 - t0) / 1e6, (c2 - c1) / 1e6, (t2 - t1) / 1e6, carried);
    }
    // the last update of the first file is the file a fresh build of its documents gives
    // (with the base's payload dictionary, which the update keeps)
    DatabaseBuilder fresh = DatabaseBuilder.create(CarsSchema.SCHEMA);
    for (int d = 0; d < docsPerFile; d++) {
      fresh.add(firstReplaced[d] ? replacements.get(0).get(d) : docs.get(0).get(d));
    }
    boolean identical;
    try (Database db = Database.open(base[0], false)) {
      identical =
          Arrays.equals(fresh.payloadDictionaryOf(db).toByteArray(), Files.readAllBytes(next[0]));
    }
    System.out.println("INFO format_update update_identical_to_fresh_build=" + identical);
    if (!identical) {
      return 1;
    }
    String fetch = fetchLine(base);
    Arrays.sort(buildNanos);
    Arrays.sort(updateNanos);
    Arrays.sort(buildWall);
    Arrays.sort(updateWall);
    long build = buildNanos[iterations / 2];
    long update = updateNanos[iterations / 2];
    long documents = (long) files * docsPerFile;
    System.out.printf(
        "RESULT format_update merge_docs_per_s=%d build_docs_per_s=%d merge_wall_docs_per_s=%d"
            + " build_wall_docs_per_s=%d update_ms_per_file=%.3f build_ms_per_file=%.3f"
            + " bytes_per_doc=%d files=%d docs_per_file=%d changed=%d %s%n",
        Math.round(carried / (update / 1e9)),
        Math.round(documents / (build / 1e9)),
        Math.round(carried / (updateWall[iterations / 2] / 1e9)),
        Math.round(documents / (buildWall[iterations / 2] / 1e9)),
        update / 1e6 / files,
        build / 1e6 / files,
        bytes / documents,
        files,
        docsPerFile,
        changes,
        fetch);
    return 0;
  }

  /**
   * Random payload fetches over the built files (each from another file than the last, so no
   * decompressed block is reused), and the files' payload blocks: {@code fetch_us=<mean>
   * blocks_per_file=<> block_kib=<mean uncompressed>}.
   */
  private String fetchLine(Path[] files) throws Exception {
    List<Database> open = new ArrayList<>();
    long blocks = 0;
    long raw = 0;
    try {
      for (Path f : files) {
        Database db = Database.open(f, false);
        open.add(db);
        var layout = db.layout().orElseThrow();
        blocks += layout.payloadBlockCount();
        raw += layout.payloadBytesUncompressed();
      }
      Random random = new Random(7);
      int fetches = 200_000;
      long sink = 0;
      long t0 = 0;
      for (int i = -fetches; i < fetches; i++) {
        if (i == 0) {
          t0 = System.nanoTime();
        }
        Database db = open.get((i & 0x7fffffff) % open.size());
        sink += db.payload(random.nextInt(docsPerFile)).byteSize();
      }
      double us = (System.nanoTime() - t0) / 1e3 / fetches;
      return String.format(
          "fetch_us=%.2f blocks_per_file=%.1f block_kib=%.2f fetched=%d",
          us, (double) blocks / files.length, raw / 1024.0 / Math.max(1, blocks), sink);
    } finally {
      for (Database db : open) {
        db.close();
      }
    }
  }
}
