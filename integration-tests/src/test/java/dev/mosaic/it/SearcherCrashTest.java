package dev.mosaic.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.deploy.SearcherRole;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import dev.mosaic.partition.PartitionSender;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** A searcher dies while a file streams into it. */
@ExtendWith(SharedCluster.class)
@Timeout(300)
class SearcherCrashTest {
  private static final int PARTITION = 0;

  @TempDir Path temp;

  @AfterEach
  void heal(LocalCluster cluster) throws Exception {
    SharedCluster.heal(cluster);
  }

  @Test
  void searcherKilledMidDeliveryServesNoPartialFileAndCatchesUpAfterRestart(LocalCluster cluster)
      throws Exception {
    // A big file, so that it is still streaming when the receiver dies.
    Path big = temp.resolve("big.yocto");
    writeRandom(big, 96L << 20);
    // recorded in the manifest (searchers take nothing else), newer than what is served now and
    // than what the indexer records in the next seconds (its versions are millisecond-based and
    // it rebuilds this partition every few seconds under the simulated feed: a version it
    // recorded first would supersede this one before it is pushed), and superseded soon after
    PartitionFileId id =
        new PartitionFileId(CarsSchema.VERSION, PARTITION, System.currentTimeMillis() + 10_000);
    AtomicReference<SearcherRole> receiving = new AtomicReference<>();
    try (PartitionInjector injector = new PartitionInjector(cluster, true)) {
      CompletableFuture<PartitionSender.DeliveryReport> delivery = injector.send(id, big);
      await("a searcher staging the file")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(2))
          .until(
              () -> {
                for (SearcherRole s : cluster.runningSearchers()) {
                  if (staging(s, id).isPresent()) {
                    receiving.set(s);
                    return true;
                  }
                }
                return false;
              });
      SearcherRole victim = receiving.get();
      Map<Integer, Long> servedBefore = victim.servedVersions();
      cluster.stopSearcher(victim.nodeId());

      // Nothing of the interrupted transfer is published, and its staged bytes are gone.
      assertThat(published(victim, id)).as("published file of the interrupted transfer").isEmpty();
      await("staged bytes of the interrupted transfer deleted")
          .atMost(Duration.ofSeconds(20))
          .until(() -> staging(victim, id).isEmpty());
      delivery.get(120, TimeUnit.SECONDS); // the other datacenter refuses the bytes: not a file

      // The pipeline moves on while the searcher is down...
      Map<Integer, Long> missed =
          await("new versions while the searcher is down")
              .atMost(Duration.ofSeconds(90))
              .until(() -> newerThan(cluster.latestVersions(), servedBefore), m -> !m.isEmpty());
      // ...and after a restart over the same store it catches up by itself.
      SearcherRole restarted = cluster.startSearcher(victim.nodeId());
      assertThat(published(restarted, id)).isEmpty();
      await("restarted searcher catches up with " + missed)
          .atMost(Duration.ofSeconds(120))
          .until(() -> newerThan(missed, restarted.servedVersions()).isEmpty());
      assertThat(restarted.servedFiles().get(PARTITION).version()).isNotEqualTo(id.version());
      assertThat(SearcherClient.countAll(restarted.httpAddress())).isPositive();
    }
  }

  /** The entries of {@code latest} whose version is above the one in {@code held}. */
  private static Map<Integer, Long> newerThan(Map<Integer, Long> latest, Map<Integer, Long> held) {
    Map<Integer, Long> out = new java.util.TreeMap<>();
    latest.forEach(
        (p, v) -> {
          Long h = held.get(p);
          if (h == null || h < v) {
            out.put(p, v);
          }
        });
    return out;
  }

  private static Path partitionDir(SearcherRole s, PartitionFileId id) {
    return new PartitionLayout(s.spec().storeDir())
        .partitionDir(id.schemaVersion(), id.partition());
  }

  private static Optional<Path> staging(SearcherRole s, PartitionFileId id) throws IOException {
    return find(s, id, name -> name.startsWith(id.version() + ".") && name.endsWith(".tmp"));
  }

  private static Optional<Path> published(SearcherRole s, PartitionFileId id) throws IOException {
    return find(s, id, name -> name.startsWith(id.version() + ".") && !name.endsWith(".tmp"));
  }

  private static Optional<Path> find(
      SearcherRole s, PartitionFileId id, java.util.function.Predicate<String> name)
      throws IOException {
    Path dir = partitionDir(s, id);
    if (!Files.isDirectory(dir)) {
      return Optional.empty();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(f -> name.test(f.getFileName().toString())).findFirst();
    } catch (java.nio.file.NoSuchFileException e) {
      return Optional.empty();
    }
  }

  /**
   * Random bytes ending as a partition file does (the CRC32C of the bytes before it and the marker
   * {@code MEND}), so that the sender announces it and receivers stream it; the store's format
   * verification would refuse it if it ever arrived whole.
   */
  private static void writeRandom(Path file, long size) throws IOException {
    SplittableRandom random = new SplittableRandom(8);
    byte[] block = new byte[1 << 20];
    java.util.zip.CRC32C crc = new java.util.zip.CRC32C();
    try (OutputStream out = Files.newOutputStream(file)) {
      for (long written = 0; written < size; written += block.length) {
        random.nextBytes(block);
        out.write(block);
        crc.update(block);
      }
      out.write(
          java.nio.ByteBuffer.allocate(8)
              .order(java.nio.ByteOrder.LITTLE_ENDIAN)
              .putInt(0, (int) crc.getValue())
              .put(4, new byte[] {'M', 'E', 'N', 'D'})
              .array());
    }
  }
}
