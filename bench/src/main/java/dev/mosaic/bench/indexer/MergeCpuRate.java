package dev.mosaic.bench.indexer;

import dev.mosaic.api.SerializedOfferDocuments;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseUpdate;
import dev.mosaic.format.Document;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;

/**
 * The merge rate of {@link BuildThroughput} on the calling thread's CPU time, for profiling and for
 * comparing two builds of the format module on a shared machine: the first run generates the
 * partitions' offers as {@link IndexerBenchmark} does ({@code --offers}, default 500k, 1024
 * partitions, 1% changed) and keeps them in {@code <dir>/offers.bin.gz}; every run builds the base
 * files ({@code -DfullPasses=N} times, default once, each pass printed with its full-build
 * documents per second of thread CPU time: that includes native code, such as zstd training a
 * payload dictionary, which a Java flight recording's execution samples do not see; as the node's
 * full builds, the first partition trains the dictionary the later ones compress with), then runs
 * merge passes over all partitions and prints each pass's carried-over documents per second of
 * thread CPU time (all of it, and user time alone: the kernel's part, creating and renaming files,
 * depends on the file system; {@code FILES_DIR} on a tmpfs leaves it small), and the medians of the
 * last two thirds of the passes as {@code RESULT merge_cpu docs_per_cpu_s=<>
 * docs_per_user_cpu_s=<>}.
 *
 * <pre>
 * java -cp ... dev.mosaic.bench.indexer.MergeCpuRate DIR [PASSES] [PARTITIONS] [FILES_DIR]
 * </pre>
 *
 * <p>Thread safety: a command-line tool, one thread.
 */
public final class MergeCpuRate {
  private MergeCpuRate() {}

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    int passes = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    Files.createDirectories(dir);
    Path data = dir.resolve("offers.bin.gz");
    if (!Files.exists(data)) {
      IndexerBenchmark.writeRatePartitions(data);
    }
    List<BuildThroughput.PartitionOffers> all = read(data);
    List<BuildThroughput.PartitionOffers> partitions =
        all.subList(
            0, args.length > 2 ? Math.min(all.size(), Integer.parseInt(args[2])) : all.size());
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Path files =
        (args.length > 3 ? Path.of(args[3]) : dir)
            .resolve("files-" + ProcessHandle.current().pid());
    Files.createDirectories(files);
    int fullPasses = Integer.getInteger("fullPasses", 1);
    for (int pass = 0; pass < fullPasses; pass++) {
      long cpu = threads.getCurrentThreadCpuTime();
      long docs = 0;
      // as the node's full builds (and BuildThroughput's): the first lends its dictionary
      Database donor = null;
      for (int p = 0; p < partitions.size(); p++) {
        DatabaseUpdate update = DatabaseUpdate.fresh(CarsSchema.SCHEMA);
        if (donor != null) {
          update.payloadDictionaryOf(donor);
        }
        for (byte[] offer : partitions.get(p).offers()) {
          update.add(document(offer));
        }
        Path out = files.resolve(p + ".f" + pass + ".mosaic");
        int documents = update.fsync(false).writeTo(out).documents();
        docs += documents;
        if (donor == null && documents >= BuildThroughput.DONOR_MIN_DOCUMENTS) {
          donor = Database.fromBytes(Files.readAllBytes(out));
        }
        if (pass > 0) {
          Files.delete(files.resolve(p + ".f" + (pass - 1) + ".mosaic"));
        }
      }
      double seconds = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
      System.out.printf(
          "full build %d: %,d documents in %.3f cpu s: %,.0f docs/cpu s%n",
          pass, docs, seconds, docs / seconds);
    }
    for (int p = 0; p < partitions.size(); p++) {
      Files.move(
          files.resolve(p + ".f" + (fullPasses - 1) + ".mosaic"), files.resolve(p + ".mosaic"));
    }
    double[] rates = new double[passes];
    double[] userRates = new double[passes];
    for (int pass = 0; pass < passes; pass++) {
      long cpu = threads.getCurrentThreadCpuTime();
      long user = threads.getCurrentThreadUserTime();
      long carried = mergePass(partitions, files, pass);
      double seconds = (threads.getCurrentThreadCpuTime() - cpu) / 1e9;
      double userSeconds = (threads.getCurrentThreadUserTime() - user) / 1e9;
      rates[pass] = carried / seconds;
      userRates[pass] = carried / userSeconds;
      System.out.printf(
          "pass %d: %,d carried over in %.3f cpu s (%.3f user): %,.0f docs/cpu s%n",
          pass, carried, seconds, userSeconds, rates[pass]);
    }
    for (Path f : Files.list(files).toList()) {
      Files.delete(f);
    }
    Files.delete(files);
    System.out.printf(
        "RESULT merge_cpu docs_per_cpu_s=%.0f docs_per_user_cpu_s=%.0f%n",
        median(Arrays.copyOfRange(rates, passes / 3, passes)),
        median(Arrays.copyOfRange(userRates, passes / 3, passes)));
  }

  private static double median(double[] values) {
    Arrays.sort(values);
    return values[values.length / 2];
  }

  /** One merge of every partition; returns the documents carried over. */
  private static long mergePass(
      List<BuildThroughput.PartitionOffers> partitions, Path files, int pass) throws IOException {
    boolean overwrite = Boolean.getBoolean("overwriteOutputs");
    long carried = 0;
    for (int p = 0; p < partitions.size(); p++) {
      BuildThroughput.PartitionOffers po = partitions.get(p);
      // confined, as the indexer node and the searchers open a change set's base
      try (Database base = Database.openConfined(files.resolve(p + ".mosaic"))) {
        DatabaseUpdate update = DatabaseUpdate.on(base);
        for (int i = 0; i < po.offers().size(); i++) {
          if (!po.replaced()[i]) {
            update.keep(i);
          }
        }
        for (byte[] offer : po.changed()) {
          update.add(document(offer));
        }
        // as the indexer: a new version's name, the previous one deleted (overwriting one name
        // instead makes ext4 flush the new file's data on the rename: auto_da_alloc)
        String name = overwrite ? p + ".next.mosaic" : p + ".v" + pass + ".mosaic";
        carried += update.fsync(false).writeTo(files.resolve(name)).carriedOver();
        if (!overwrite && pass > 0) {
          Files.delete(files.resolve(p + ".v" + (pass - 1) + ".mosaic"));
        }
      }
    }
    return carried;
  }

  private static Document document(byte[] offer) throws IOException {
    return SerializedOfferDocuments.toDocument(CarsSchema.SCHEMA, offer);
  }

  static void write(Path file, List<BuildThroughput.PartitionOffers> partitions)
      throws IOException {
    try (OutputStream os = new GZIPOutputStream(Files.newOutputStream(file));
        DataOutputStream out = new DataOutputStream(os)) {
      out.writeInt(partitions.size());
      for (BuildThroughput.PartitionOffers po : partitions) {
        writeList(out, po.offers());
        writeList(out, po.changed());
        for (boolean r : po.replaced()) {
          out.writeBoolean(r);
        }
      }
    }
  }

  private static void writeList(DataOutputStream out, List<byte[]> list) throws IOException {
    out.writeInt(list.size());
    for (byte[] b : list) {
      out.writeInt(b.length);
      out.write(b);
    }
  }

  private static List<BuildThroughput.PartitionOffers> read(Path file) throws IOException {
    try (InputStream is = new GZIPInputStream(Files.newInputStream(file));
        DataInputStream in = new DataInputStream(is)) {
      int count = in.readInt();
      List<BuildThroughput.PartitionOffers> result = new ArrayList<>(count);
      for (int p = 0; p < count; p++) {
        List<byte[]> offers = readList(in);
        List<byte[]> changed = readList(in);
        boolean[] replaced = new boolean[offers.size()];
        for (int i = 0; i < replaced.length; i++) {
          replaced[i] = in.readBoolean();
        }
        result.add(new BuildThroughput.PartitionOffers(offers, changed, replaced));
      }
      return result;
    }
  }

  private static List<byte[]> readList(DataInputStream in) throws IOException {
    int size = in.readInt();
    List<byte[]> list = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      byte[] b = new byte[in.readInt()];
      in.readFully(b);
      list.add(b);
    }
    return list;
  }
}
