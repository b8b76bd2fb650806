package dev.mosaic.bench.indexer;

import dev.mosaic.api.SerializedOfferDocuments;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseUpdate;
import dev.mosaic.format.Document;
import dev.mosaic.format.Schema;
import dev.mosaic.partition.PartitionLayout;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;

/**
 * Partition build rates on one thread, through {@link DatabaseUpdate} as a rebuild uses it:
 *
 * <ul>
 *   <li><b>full build</b>: per partition, map every stored offer's bytes into a {@link
 *       DatabaseUpdate#fresh} update (as a full rebuild does, {@link
 *       SerializedOfferDocuments#addTo}), write the file; documents per second. As the node's full
 *       builds, the first partition of at least {@value #DONOR_MIN_DOCUMENTS} documents trains a
 *       payload dictionary and the later ones compress with it ({@link
 *       DatabaseUpdate#payloadDictionaryOf}) instead of training their own (zstd's training took
 *       about half of a full build);
 *   <li><b>merge</b>: per partition, open the full build's file as the base, keep every document
 *       whose offer did not change, add the changed offers (parsed and mapped), write the file;
 *       carried-over documents per second.
 * </ul>
 *
 * The full build runs {@value #FULL_WARMUP_PASSES} warm-up pass and {@value #FULL_MEASURED_PASSES}
 * measured ones, whose median counts. The merge, a few times cheaper, runs {@value
 * #MERGE_WARMUP_PASSES} warm-up passes and then {@value #MERGE_MEASURED_PASSES} measured ones,
 * whose median counts: single merge passes varied by a factor of up to 1.7 from one pass to the
 * next (the JIT early on, then garbage collection), so one pass is not a rate. The JIT was still
 * compiling the merge through the fifth pass (C2 at work in a system profile, passes 3 to 5 at 0.85
 * s of CPU time, 6 to 8 at 0.5 s), and once a measured pass took 2.5 s of CPU time between two of
 * 0.6 s: ten warm-up passes, the median of five. Files are written without fsync ({@link
 * DatabaseUpdate#fsync(boolean)}): these are CPU rates per core, and an fsync per partition file
 * measures the disk (the node's files, timed in snapshot to files, are fsync'd). A rate is
 * documents per second of the measuring thread's CPU time (its system calls included), a rate per
 * core; the log adds each pass's time in user mode and its wall time.
 *
 * <p>Thread safety: not thread safe; one instance per measurement.
 */
final class BuildThroughput {
  /** One partition's offers: the current ones, and which of them the next cycle replaces. */
  record PartitionOffers(List<byte[]> offers, List<byte[]> changed, boolean[] replaced) {}

  record Rates(double fullDocsPerSecond, double mergeCarriedPerSecond) {}

  /**
   * Documents a full build needs to lend its payload dictionary to the later ones, as the indexer
   * node's {@code DictionaryDonor} takes them.
   */
  static final int DONOR_MIN_DOCUMENTS = 256;

  /** Full build passes before the measured ones. */
  static final int FULL_WARMUP_PASSES = 1;

  /**
   * Full build passes measured; the median rate counts (two passes of one run differed by a fifth,
   * so one pass is not a rate).
   */
  static final int FULL_MEASURED_PASSES = 3;

  /** Merge passes before the measured ones. */
  static final int MERGE_WARMUP_PASSES = 10;

  /** Merge passes measured; the median rate counts. */
  static final int MERGE_MEASURED_PASSES = 5;

  private final Schema schema;
  private final PartitionLayout layout;
  private final Consumer<String> log;

  /** The builder offers are mapped through, reused (as {@code PartitionBuild} reuses one). */
  private final Document.Builder scratch;

  BuildThroughput(Schema schema, Path dir, Consumer<String> log) {
    this.schema = schema;
    this.layout = new PartitionLayout(dir);
    this.log = log;
    this.scratch = Document.builder(schema);
  }

  /** The calling thread's CPU time in user mode, in nanoseconds. */
  private static long userNanos() {
    return ManagementFactory.getThreadMXBean().getCurrentThreadUserTime();
  }

  /** The calling thread's CPU time in nanoseconds (user and system). */
  private static long cpuNanos() {
    return ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
  }

  Rates measure(List<PartitionOffers> partitions) throws IOException {
    // laid out as the node lays out its files (see partitionDir)
    for (int p = 0; p < partitions.size(); p++) {
      layout.createPartitionDir(schema.version(), p);
    }
    double[] fullMeasured = new double[FULL_MEASURED_PASSES];
    int fullPasses = FULL_WARMUP_PASSES + FULL_MEASURED_PASSES;
    for (int pass = 1; pass <= fullPasses; pass++) {
      long t = System.nanoTime();
      long cpu = cpuNanos();
      long user = userNanos();
      long docs = 0;
      // as the node's full builds: the first large enough trains a payload dictionary, the later
      // ones compress with it (DictionaryDonor); each pass starts without one
      Database donor = null;
      for (int p = 0; p < partitions.size(); p++) {
        DatabaseUpdate update = DatabaseUpdate.fresh(schema);
        if (donor != null) {
          update.payloadDictionaryOf(donor);
        }
        for (byte[] offer : partitions.get(p).offers()) {
          SerializedOfferDocuments.addTo(update, scratch, offer);
        }
        // a new name per pass (see merged): a scratch file, the last pass the merges' base
        Path out = pass == fullPasses ? base(p) : scratch(p, pass);
        int documents = update.fsync(false).writeTo(out).documents();
        docs += documents;
        if (donor == null && documents >= DONOR_MIN_DOCUMENTS) {
          donor = Database.fromBytes(Files.readAllBytes(out));
        }
      }
      double seconds = (System.nanoTime() - t) / 1e9;
      double cpuSeconds = (cpuNanos() - cpu) / 1e9;
      double userSeconds = (userNanos() - user) / 1e9;
      if (pass < fullPasses) {
        // after the timing: a full build deletes nothing (the node prunes old files elsewhere),
        // and deleting the first pass's files inside the pass cost it a third more CPU time
        for (int p = 0; p < partitions.size(); p++) {
          Files.delete(scratch(p, pass));
        }
      }
      double rate = docs / cpuSeconds;
      boolean warmup = pass <= FULL_WARMUP_PASSES;
      if (!warmup) {
        fullMeasured[pass - FULL_WARMUP_PASSES - 1] = rate;
      }
      log.accept(
          String.format(
              "full build pass %d%s: %,d documents in %,d partitions on one thread in %.1f s of"
                  + " CPU time (%.1f s in user mode; %.1f s wall): %,.0f docs/s",
              pass,
              warmup ? " (warm-up)" : "",
              docs,
              partitions.size(),
              cpuSeconds,
              userSeconds,
              seconds,
              rate));
    }
    Arrays.sort(fullMeasured);
    double full = fullMeasured[fullMeasured.length / 2];
    double[] measured = new double[MERGE_MEASURED_PASSES];
    for (int pass = 1; pass <= MERGE_WARMUP_PASSES + MERGE_MEASURED_PASSES; pass++) {
      long t = System.nanoTime();
      long cpu = cpuNanos();
      long user = userNanos();
      long carried = 0;
      long added = 0;
      for (int p = 0; p < partitions.size(); p++) {
        PartitionOffers po = partitions.get(p);
        // confined, as the indexer node and the searchers open a change set's base
        try (Database base = Database.openConfined(base(p))) {
          DatabaseUpdate update = DatabaseUpdate.on(base);
          for (int i = 0; i < po.offers().size(); i++) {
            if (!po.replaced()[i]) {
              update.keep(i);
            }
          }
          for (byte[] offer : po.changed()) {
            SerializedOfferDocuments.addTo(update, scratch, offer);
          }
          DatabaseUpdate.Summary s = update.fsync(false).writeTo(merged(p, pass));
          carried += s.carriedOver();
          added += s.added();
          if (pass > 1) {
            Files.delete(merged(p, pass - 1));
          }
        }
      }
      double seconds = (System.nanoTime() - t) / 1e9;
      double cpuSeconds = (cpuNanos() - cpu) / 1e9;
      double userSeconds = (userNanos() - user) / 1e9;
      double merge = carried / cpuSeconds;
      boolean warmup = pass <= MERGE_WARMUP_PASSES;
      if (!warmup) {
        measured[pass - MERGE_WARMUP_PASSES - 1] = merge;
      }
      log.accept(
          String.format(
              "merge pass %d%s: %,d documents carried over and %,d added in %,d partitions on one"
                  + " thread in %.2f s of CPU time (%.2f s in user mode; %.2f s wall): %,.0f"
                  + " carried-over docs/s",
              pass,
              warmup ? " (warm-up)" : "",
              carried,
              added,
              partitions.size(),
              cpuSeconds,
              userSeconds,
              seconds,
              merge));
    }
    Arrays.sort(measured);
    return new Rates(full, measured[measured.length / 2]);
  }

  /**
   * A partition's directory, in the node's file tree ({@link PartitionLayout}: a directory per
   * partition, spread over the file system). With every file in one directory, ext4 put all their
   * inodes into one block group, where each creation walked past the inodes the previous passes had
   * just deleted, and the merge rate fell run after run with the file system's churn (0.89 M to
   * 0.45 M carried-over documents/s in four runs of a few minutes) instead of measuring the merge.
   */
  private Path partitionDir(int partition) {
    return layout.partitionDir(schema.version(), partition);
  }

  /** A full build pass's output before the last pass (which writes the merges' {@link #base}). */
  private Path scratch(int partition, int pass) {
    return partitionDir(partition).resolve("full" + pass + ".mosaic");
  }

  private Path base(int partition) {
    return partitionDir(partition).resolve("base.mosaic");
  }

  /**
   * A merge pass's output: a new name per pass, the previous pass's deleted, as the indexer writes
   * a new version's file and prunes old ones (overwriting one name per partition instead makes ext4
   * flush the new file's data at the rename, auto_da_alloc, which no rebuild pays).
   */
  private Path merged(int partition, int pass) {
    return partitionDir(partition).resolve("v" + pass + ".mosaic");
  }
}
