package dev.mosaic.it.process;

import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionLayout;
import dev.mosaic.partition.PartitionManifest;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * Watches a running cluster for the whole of a test and remembers every version it saw of every
 * partition: in the manifest (size and CRC32C) and served by each live searcher ({@code
 * /partitions} content checksum). A version seen twice with different content, a served version
 * whose checksum is not the one the manifest records, or a partition whose manifest version went
 * down, is a violation. Samples every 300 ms on its own daemon thread; searchers that do not answer
 * (killed, restarting) are skipped.
 *
 * <p>Thread safety: safe for concurrent use; {@link #violations()} may be read at any time.
 */
final class ContentWitness implements AutoCloseable {
  private final PartitionManifest manifest;
  private final Supplier<Collection<ProcessCluster.Searcher>> searchers;
  private final Map<String, String> manifestContent = new ConcurrentHashMap<>();
  private final Map<String, String> servedContent = new ConcurrentHashMap<>();
  // the manifest's content checksum of each version seen there, by key()
  private final Map<String, Long> manifestCrc32c = new ConcurrentHashMap<>();
  private final Map<String, Integer> documents = new ConcurrentHashMap<>();
  private final Map<Integer, Long> highestManifestVersion = new ConcurrentHashMap<>();
  private final Map<String, java.util.Set<PartitionOffers.Offer>> offers =
      new ConcurrentHashMap<>();
  private final List<String> violations = new CopyOnWriteArrayList<>();
  private final ScheduledExecutorService sampler =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().daemon().name("content-witness").factory());
  private volatile long servedObservations;

  ContentWitness(
      PartitionManifest manifest, Supplier<Collection<ProcessCluster.Searcher>> searchers) {
    this.manifest = manifest;
    this.searchers = searchers;
    manifest.addListener(this::observeManifest);
    sampler.scheduleWithFixedDelay(this::sample, 0, 300, TimeUnit.MILLISECONDS);
  }

  /** Every violation seen so far (empty: none). */
  List<String> violations() {
    return new ArrayList<>(violations);
  }

  /** (partition, version, searcher) checksums observed, to show the witness really looked. */
  long servedObservations() {
    return servedObservations;
  }

  /**
   * Documents the manifest recorded for version {@code version} of partition {@code partition}, if
   * the witness saw that version in the manifest (it may miss versions superseded quickly).
   */
  java.util.OptionalInt documents(int partition, long version) {
    Integer d = documents.get(partition + "/" + version);
    return d == null || d < 0 ? java.util.OptionalInt.empty() : java.util.OptionalInt.of(d);
  }

  /**
   * The offers of version {@code version} of partition {@code partition}: read once from a
   * searcher's copy of that file ({@code s}'s first, unless read before), checksum verified; empty
   * when every copy is gone (superseded and deleted by retention).
   */
  java.util.Optional<java.util.Set<PartitionOffers.Offer>> offers(
      ProcessCluster.Searcher s, int schemaVersion, int partition, long version) {
    String key = key(schemaVersion, partition, version);
    readOffers(s, schemaVersion, partition, version, key);
    return java.util.Optional.ofNullable(offers.get(key));
  }

  /** The partners of every offer read so far, sorted. */
  List<String> partners() {
    return offers.values().stream()
        .flatMap(java.util.Set::stream)
        .map(PartitionOffers.Offer::partner)
        .distinct()
        .sorted()
        .toList();
  }

  private static String key(int schemaVersion, int partition, long version) {
    return "v" + schemaVersion + "/" + partition + "/" + version;
  }

  private synchronized void observeManifest() {
    for (ManifestRecord r : manifest.all()) {
      int p = r.id().partition();
      long v = r.id().version();
      String content = "size=" + r.size() + " crc32c=" + Long.toHexString(r.crc32c());
      manifestCrc32c.putIfAbsent(key(r.id().schemaVersion(), p, v), r.crc32c());
      String before = manifestContent.putIfAbsent(r.id().toString(), content);
      if (before != null && !before.equals(content)) {
        violations.add("manifest " + r.id() + " was " + before + ", now " + content);
      }
      documents.putIfAbsent(p + "/" + v, r.documents());
      Long highest = highestManifestVersion.merge(p, v, Math::max);
      if (v < highest) {
        violations.add("manifest p" + p + " went down from v" + highest + " to v" + v);
      }
    }
  }

  /** One sampling round: the manifest, then every live searcher's served checksums. */
  private void sample() {
    observeManifest();
    for (ProcessCluster.Searcher s : searchers.get()) {
      if (!s.process().isAlive()) {
        continue;
      }
      try {
        SearcherView.Serving serving = SearcherView.serving(s.http());
        for (SearcherView.Served served : serving.partitions().values()) {
          if (served.crc32c() == null) {
            continue;
          }
          String key = key(serving.schemaVersion(), served.partition(), served.version());
          readOffers(s, serving.schemaVersion(), served.partition(), served.version(), key);
          String before = servedContent.putIfAbsent(key, served.crc32c());
          servedObservations++;
          Long recorded = manifestCrc32c.get(key);
          if (recorded != null && Long.parseLong(served.crc32c(), 16) != recorded) {
            violations.add(
                s.nodeId()
                    + " serves "
                    + key
                    + " with crc32c "
                    + served.crc32c()
                    + ", the manifest records "
                    + String.format("%08x", recorded));
          }
          if (before != null && !before.equals(served.crc32c())) {
            violations.add(
                s.nodeId()
                    + " serves "
                    + key
                    + " with crc "
                    + served.crc32c()
                    + ", seen before with "
                    + before);
          }
        }
      } catch (java.io.IOException e) {
        // not answering (killed, restarting): nothing to witness this round
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt(); // closing
        return;
      }
    }
  }

  /**
   * Reads the offers of a served version once per version: from {@code s}'s store, else from any
   * other live searcher's copy (retention may have deleted {@code s}'s copy of a version a grouped
   * generation still serves, while a peer that received it later still holds it).
   */
  private void readOffers(
      ProcessCluster.Searcher s, int schemaVersion, int partition, long version, String key) {
    if (offers.containsKey(key)) {
      return;
    }
    List<ProcessCluster.Searcher> holders = new ArrayList<>();
    holders.add(s);
    for (ProcessCluster.Searcher other : searchers.get()) {
      if (other != s) {
        holders.add(other);
      }
    }
    for (ProcessCluster.Searcher holder : holders) {
      Path file =
          holder
              .storeSeen()
              .resolve(PartitionLayout.schemaDirName(schemaVersion))
              .resolve(String.valueOf(partition))
              .resolve(PartitionLayout.fileName(version));
      try {
        offers.put(key, PartitionOffers.read(file));
        return;
      } catch (java.io.IOException | RuntimeException e) {
        // retention deleted it meanwhile, or that searcher went away: try the next one
      }
    }
  }

  @Override
  public void close() throws InterruptedException {
    sampler.shutdownNow();
    sampler.awaitTermination(5, TimeUnit.SECONDS);
  }
}
