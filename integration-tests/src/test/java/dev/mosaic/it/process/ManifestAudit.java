package dev.mosaic.it.process;

import dev.mosaic.partition.FileDigest;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionLayout;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * Compares what a searcher process serves with the partition manifest: the version in its current
 * generation, and the bytes of that version's file in its store (size and CRC32C of the whole file
 * against the manifest's record). Stateless; thread safe.
 */
final class ManifestAudit {
  private ManifestAudit() {}

  /** The manifest's latest version of every partition. */
  static Map<Integer, Long> versions(Collection<ManifestRecord> records) {
    Map<Integer, Long> out = new TreeMap<>();
    for (ManifestRecord r : records) {
      out.merge(r.id().partition(), r.id().version(), Math::max);
    }
    return out;
  }

  /**
   * Every way the searcher differs from the manifest (empty: it serves exactly the manifest's
   * versions and each file's bytes have the recorded size and CRC32C).
   */
  static List<String> differences(ProcessCluster.Searcher s, Collection<ManifestRecord> records)
      throws IOException, InterruptedException {
    SearcherView.Serving serving = SearcherView.serving(s.http());
    List<String> out = new ArrayList<>();
    for (ManifestRecord r : records) {
      int p = r.id().partition();
      SearcherView.Served served = serving.partitions().get(p);
      if (served == null || served.version() != r.id().version()) {
        out.add(
            s.nodeId()
                + " p"
                + p
                + " serves "
                + (served == null ? "nothing" : "v" + served.version())
                + ", manifest v"
                + r.id().version());
        continue;
      }
      Path file =
          s.storeSeen()
              .resolve(PartitionLayout.schemaDirName(r.id().schemaVersion()))
              .resolve(String.valueOf(p))
              .resolve(PartitionLayout.fileName(r.id().version()));
      FileDigest digest = FileDigest.of(file);
      if (digest.size() != r.size() || digest.crc32c() != r.crc32c()) {
        out.add(
            s.nodeId()
                + " p"
                + p
                + " v"
                + r.id().version()
                + ": file "
                + digest
                + ", manifest size="
                + r.size()
                + " crc32c="
                + Long.toHexString(r.crc32c()));
      }
    }
    return out;
  }

  /** Partitions the searcher serves at an older version than {@code floor} (or not at all). */
  static List<Integer> behind(ProcessCluster.Searcher s, Map<Integer, Long> floor)
      throws IOException, InterruptedException {
    SearcherView.Serving serving = SearcherView.serving(s.http());
    List<Integer> out = new ArrayList<>();
    floor.forEach(
        (p, v) -> {
          SearcherView.Served served = serving.partitions().get(p);
          if (served == null || served.version() < v) {
            out.add(p);
          }
        });
    return out;
  }

  /** Files still being written in a directory tree (temporary names), e.g. a delivery under way. */
  static List<Path> temporaryFiles(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      return files
          .filter(f -> f.getFileName().toString().endsWith(PartitionLayout.TEMP_SUFFIX))
          .toList();
    } catch (java.io.UncheckedIOException e) {
      return List.of(); // a file renamed or deleted while walking: nothing to report this time
    }
  }
}
