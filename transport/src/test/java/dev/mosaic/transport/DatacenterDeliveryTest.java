package dev.mosaic.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionSender;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import org.apache.curator.test.KillSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Delivery across datacenters over real ZooKeeper, with many searcher nodes in this JVM. */
class DatacenterDeliveryTest {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @TempDir Path tmp;

  static TransportSettings.Builder quick() {
    return TransportSettings.builder()
        .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(300))
        .relayAttempts(3)
        .transferIdleTimeout(Duration.ofSeconds(10))
        .connectTimeout(Duration.ofSeconds(2))
        .catchUpGrace(Duration.ofMinutes(10))
        .catchUpInterval(Duration.ofMinutes(10));
  }

  private static void assertOnlyCompleteVerifiedFilesVisible(TestCluster cluster)
      throws IOException {
    for (TestCluster.Searcher s : cluster.searchers.values()) {
      try (Stream<Path> files = s.store.visibleFiles()) {
        for (Path f : files.toList()) {
          TestFiles.verifyPartition(f);
        }
      }
    }
  }

  private static Path source(Path dir, PartitionFileId id, long size) throws IOException {
    return TestFiles.partition(
        dir.resolve("out").resolve(id.partition() + "-" + id.version()), size, id.hashCode());
  }

  @Test
  void everySearcherOfThreeDcsGetsEveryVersionWithOneCopyCrossingIntoEachDc() throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), quick().build())) {
      for (String dc : List.of("a", "b", "c")) {
        for (int i = 1; i <= 3; i++) {
          cluster.searcher(dc + i, dc);
        }
      }
      TransportSender sender = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> sender.discovery().byDc().size() == 3);
      List<CompletableFuture<PartitionSender.DeliveryReport>> reports = new ArrayList<>();
      long totalBytes = 0;
      List<PartitionFileId> ids = new ArrayList<>();
      for (int p = 0; p < 100; p++) {
        PartitionFileId id = new PartitionFileId(1, p, 1 + random.nextInt(1000));
        Path file = source(tmp, id, 16_384 + random.nextInt(200_000));
        totalBytes += Files.size(file);
        ids.add(id);
        reports.add(sender.send(id, file).toCompletableFuture());
      }
      for (var r : reports) {
        PartitionSender.DeliveryReport report = r.get(60, TimeUnit.SECONDS);
        assertThat(report.failed()).as("seed %d: %s", seed, report).isEmpty();
        assertThat(report.acceptedBy().keySet()).containsExactlyInAnyOrder("a", "b", "c");
      }
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                for (TestCluster.Searcher s : cluster.searchers.values()) {
                  for (PartitionFileId id : ids) {
                    assertThat(s.store.file(id)).as("%s on %s", id, s.id).isPresent();
                  }
                }
              });
      for (String dc : List.of("a", "b", "c")) {
        assertThat(cluster.bytesIntoDcFromOutside(dc))
            .as("bytes entering %s from other DCs: one copy of each version", dc)
            .isEqualTo((double) totalBytes);
      }
      assertThat(cluster.counter("mosaic.transport.retries", "entry")).isZero();
      assertThat(sender.manifest().all()).hasSize(100);
      assertOnlyCompleteVerifiedFilesVisible(cluster);
      for (TestCluster.Searcher s : cluster.searchers.values()) {
        await().atMost(DEADLINE).until(() -> s.node.health().partitionsBehind() == 0);
        assertThat(s.node.health().getAsBoolean()).isTrue();
      }
    }
  }

  /**
   * Cut-through relay: the entry forwards the bytes to its peers while they arrive, so every copy
   * of the DC is complete before any of them is published. Each store's verification waits until
   * all three copies are complete; a store-and-forward relay (peers get the file only once the
   * entry published it) would leave the entry waiting alone, and its verification fails.
   */
  @Test
  void theEntryForwardsTheFileToItsPeersWhileItArrives() throws Exception {
    PartitionFileId id = new PartitionFileId(1, 0, 1);
    Path file = source(tmp, id, 3_000_000);
    CyclicBarrier allComplete = new CyclicBarrier(3);
    FileStore.Verifier meetThenVerify =
        staged -> {
          try {
            allComplete.await(20, TimeUnit.SECONDS);
          } catch (InterruptedException | BrokenBarrierException | TimeoutException e) {
            throw new IOException("the other copies of the DC were not complete: " + e, e);
          }
          TestFiles.verifyPartition(staged);
        };
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), quick().build())) {
      for (int i = 1; i <= 3; i++) {
        cluster.searcherVerifying("a" + i, "a", meetThenVerify);
      }
      TransportSender sender = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> sender.discovery().inDc("a").size() == 3);
      PartitionSender.DeliveryReport report =
          sender.send(id, file).toCompletableFuture().get(60, TimeUnit.SECONDS);
      assertThat(report.failed()).isEmpty();
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                for (TestCluster.Searcher s : cluster.searchers.values()) {
                  assertThat(s.store.file(id)).as("%s on %s", id, s.id).isPresent();
                }
              });
      assertThat(allComplete.isBroken()).isFalse();
      assertThat(cluster.counter("mosaic.transport.retries", "relay")).isZero();
      assertThat(cluster.bytesIntoDcFromOutside("a")).isEqualTo((double) Files.size(file));
      assertOnlyCompleteVerifiedFilesVisible(cluster);
    }
  }

  @Test
  void entrySearcherKilledMidTransferMakesTheSenderUseAnotherOfThatDc() throws Exception {
    PartitionFileId id = new PartitionFileId(1, 0, 1);
    Path file = source(tmp, id, 6_000_000);
    long size = Files.size(file);
    AtomicReference<String> killed = new AtomicReference<>();
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), quick().build())) {
      for (int i = 1; i <= 3; i++) {
        String name = "a" + i;
        cluster.searcher(
            name,
            "a",
            port ->
                link(
                    port,
                    (conn, offset, buf, len) -> {
                      // the first transfer to pass the middle of the file loses its receiver
                      if (offset + len > size / 2 && killed.compareAndSet(null, name)) {
                        cluster.searchers.get(name).node.close();
                        return false;
                      }
                      return true;
                    }));
      }
      cluster.searcher("b1", "b");
      TransportSender sender = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> sender.discovery().inDc("a").size() == 3);
      PartitionSender.DeliveryReport report =
          sender.send(id, file).toCompletableFuture().get(60, TimeUnit.SECONDS);
      assertThat(killed.get()).isNotNull();
      assertThat(report.failed()).isEmpty();
      assertThat(report.acceptedBy().get("a")).isNotEqualTo(killed.get()).startsWith("a");
      assertThat(cluster.counter("mosaic.transport.retries", "entry")).isGreaterThanOrEqualTo(1);
      TestCluster.Searcher dead = cluster.searchers.get(killed.get());
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                for (TestCluster.Searcher s : cluster.searchers.values()) {
                  if (s != dead) {
                    assertThat(s.store.file(id)).as(s.id).isPresent();
                  }
                }
                assertThat(dead.store.stagedCount()).isZero();
              });
      assertThat(dead.store.file(id)).isEmpty();
      assertOnlyCompleteVerifiedFilesVisible(cluster);
    }
  }

  @Test
  void searcherDownDuringDeliveriesCatchesUpFromItsOwnDcWhenBack() throws Exception {
    TransportSettings settings =
        quick().catchUpGrace(Duration.ZERO).catchUpInterval(Duration.ofSeconds(1)).build();
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings)) {
      cluster.searcher("a1", "a");
      TestCluster.Searcher a2 = cluster.searcher("a2", "a");
      cluster.searcher("b1", "b");
      cluster.searcher("b2", "b");
      TransportSender sender = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> sender.discovery().inDc("a").size() == 2);
      a2.node.close();
      await().atMost(DEADLINE).until(() -> sender.discovery().inDc("a").size() == 1);
      List<PartitionFileId> ids = new ArrayList<>();
      long total = 0;
      for (int p = 0; p < 10; p++) {
        PartitionFileId id = new PartitionFileId(1, p, 1);
        ids.add(id);
        Path file = source(tmp, id, 100_000 + 1000 * p);
        total += Files.size(file);
        PartitionSender.DeliveryReport r =
            sender.send(id, file).toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertThat(r.acceptedBy()).containsOnlyKeys("a", "b");
      }
      await().atMost(DEADLINE).until(() -> sender.manifest().all().size() == 10);
      for (PartitionFileId id : ids) {
        assertThat(a2.store.file(id)).isEmpty();
      }
      cluster.start(a2);
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                for (PartitionFileId id : ids) {
                  assertThat(a2.store.file(id)).as(id.toString()).isPresent();
                }
              });
      await().atMost(DEADLINE).until(() -> a2.node.health().partitionsBehind() == 0);
      assertThat(cluster.bytesIntoDcFromOutside("a"))
          .as("catch-up came from inside the DC")
          .isEqualTo((double) total);
      assertOnlyCompleteVerifiedFilesVisible(cluster);
    }
  }

  @Test
  void corruptedBytesInTransitAreRejectedRetriedAndNeverServed() throws Exception {
    AtomicInteger flipped = new AtomicInteger();
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), quick().build())) {
      for (int i = 1; i <= 2; i++) {
        cluster.searcher(
            "a" + i,
            "a",
            port ->
                link(
                    port,
                    (conn, offset, buf, len) -> {
                      long at = 500_000;
                      if (offset <= at && at < offset + len && flipped.compareAndSet(0, 1)) {
                        buf[(int) (at - offset)] ^= 0x10;
                      }
                      return true;
                    }));
      }
      TransportSender sender = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> sender.discovery().inDc("a").size() == 2);
      PartitionFileId id = new PartitionFileId(1, 9, 3);
      Path file = source(tmp, id, 1_000_000);
      PartitionSender.DeliveryReport report =
          sender.send(id, file).toCompletableFuture().get(60, TimeUnit.SECONDS);
      assertThat(flipped.get()).isEqualTo(1);
      assertThat(report.acceptedBy()).containsKey("a");
      assertThat(cluster.counter("mosaic.transport.retries", "entry")).isEqualTo(1);
      await()
          .atMost(DEADLINE)
          .untilAsserted(
              () -> {
                for (TestCluster.Searcher s : cluster.searchers.values()) {
                  assertThat(s.store.file(id)).isPresent();
                  assertThat(Files.mismatch(s.store.file(id).get(), file)).isEqualTo(-1);
                  assertThat(s.store.stagedCount()).isZero();
                }
              });
      assertOnlyCompleteVerifiedFilesVisible(cluster);
    }
  }

  @Test
  void sessionExpiryReRegistersTheSearcherWhichKeepsReceiving() throws Exception {
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), quick().build())) {
      TestCluster.Searcher a1 = cluster.searcher("a1", "a");
      TransportSender sender = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> sender.discovery().inDc("a").size() == 1);
      long before = a1.curator.getZookeeperClient().getZooKeeper().getSessionId();
      KillSession.kill(a1.curator.getZookeeperClient().getZooKeeper());
      String path = TransportSettings.defaults().zkRoot() + "/searchers/a/a1";
      await()
          .atMost(DEADLINE)
          .until(
              () -> {
                var stat = a1.curator.checkExists().forPath(path);
                return stat != null && stat.getEphemeralOwner() != before;
              });
      await().atMost(DEADLINE).until(() -> sender.discovery().inDc("a").size() == 1);
      PartitionFileId id = new PartitionFileId(1, 1, 1);
      PartitionSender.DeliveryReport r =
          sender.send(id, source(tmp, id, 50_000)).toCompletableFuture().get(60, TimeUnit.SECONDS);
      assertThat(r.acceptedBy()).isEqualTo(Map.of("a", "a1"));
      assertThat(a1.store.file(id)).isPresent();
    }
  }

  @Test
  void withZooKeeperDownADeliveryWaitsForTheManifestAndCompletesOnceItIsBack() throws Exception {
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), quick().build())) {
      TestCluster.Searcher a1 = cluster.searcher("a1", "a");
      TestCluster.Searcher a2 = cluster.searcher("a2", "a");
      TransportSender sender = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> sender.discovery().inDc("a").size() == 2);
      await().atMost(DEADLINE).until(() -> a1.node.discovery().inDc("a").size() == 2);
      cluster.zk.stop();
      PartitionFileId id = new PartitionFileId(1, 2, 1);
      CompletableFuture<PartitionSender.DeliveryReport> r =
          sender.send(id, source(tmp, id, 80_000)).toCompletableFuture();
      // a version is pushed only once the manifest records it: nothing moves without ZooKeeper
      await()
          .during(Duration.ofSeconds(2))
          .atMost(Duration.ofSeconds(5))
          .until(() -> !r.isDone() && a1.store.file(id).isEmpty() && a2.store.file(id).isEmpty());
      cluster.zk.restart();
      assertThat(r.get(60, TimeUnit.SECONDS).acceptedBy()).containsKey("a");
      await()
          .atMost(DEADLINE)
          .until(() -> a1.store.file(id).isPresent() && a2.store.file(id).isPresent());
      assertThat(sender.manifest().latest(1, 2).map(m -> m.id().version())).contains(1L);
    }
  }

  @Test
  void aHolderOfAnIndexerCertificateCannotFreezeAPartitionWithAnUnrecordedHugeVersion()
      throws Exception {
    TransportSettings settings = quick().manifestWait(Duration.ofMillis(500)).build();
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings)) {
      TestCluster.Searcher a1 = cluster.searcher("a1", "a");
      TestCluster.Searcher a2 = cluster.searcher("a2", "a");
      TestCluster.Searcher b1 = cluster.searcher("b1", "b");
      List<TestCluster.Searcher> all = List.of(a1, a2, b1);
      TransportSender indexer = cluster.sender("indexer-1", "idx");
      // a genuine cluster certificate, but it pushes without recording the version
      TransportSender hijacker =
          cluster.sender(
              "indexer-x",
              "idx",
              cluster.ca.forNode(NodeIdentity.indexer("indexer-x", "idx")),
              cluster.curator(),
              settings.toBuilder().writeManifest(false).maxAttemptsPerDc(2).build());
      await().atMost(DEADLINE).until(() -> hijacker.discovery().byDc().size() == 2);
      await().atMost(DEADLINE).until(() -> indexer.discovery().byDc().size() == 2);

      PartitionFileId v1 = new PartitionFileId(1, 3, 1);
      indexer.send(v1, source(tmp, v1, 40_000)).toCompletableFuture().get(60, TimeUnit.SECONDS);
      await()
          .atMost(DEADLINE)
          .until(() -> all.stream().allMatch(s -> s.store.file(v1).isPresent()));

      PartitionFileId hijack = new PartitionFileId(1, 3, Long.MAX_VALUE - 7);
      PartitionSender.DeliveryReport r =
          hijacker
              .send(hijack, source(tmp, hijack, 40_000))
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS);
      assertThat(r.acceptedBy()).isEmpty();
      assertThat(r.failed().values())
          .allSatisfy(why -> assertThat(why).contains("not in the manifest"));
      assertThat(all).allSatisfy(s -> assertThat(s.store.file(hijack)).isEmpty());

      // the partition keeps updating everywhere
      PartitionFileId v2 = new PartitionFileId(1, 3, 2);
      assertThat(
              indexer
                  .send(v2, source(tmp, v2, 40_000))
                  .toCompletableFuture()
                  .get(60, TimeUnit.SECONDS)
                  .acceptedBy())
          .containsOnlyKeys("a", "b");
      await()
          .atMost(DEADLINE)
          .until(() -> all.stream().allMatch(s -> s.store.file(v2).isPresent()));
      assertThat(cluster.counter("mosaic.transport.deliveries", "relay")).isPositive();
    }
  }

  @Test
  void aSearcherRefusingWithAReasonIsPassedOverForAnotherOfItsDc() throws Exception {
    try (TestCluster cluster =
        new TestCluster(tmp.resolve("c"), quick().relayAttempts(1).build())) {
      TestCluster.Searcher busy = cluster.searcher("a1", "a");
      busy.refusal = () -> Optional.of("draining for maintenance");
      cluster.searcher("a2", "a");
      TransportSender sender = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> sender.discovery().inDc("a").size() == 2);
      for (int p = 0; p < 4; p++) {
        PartitionFileId id = new PartitionFileId(1, p, 1);
        PartitionSender.DeliveryReport r =
            sender
                .send(id, source(tmp, id, 20_000))
                .toCompletableFuture()
                .get(60, TimeUnit.SECONDS);
        assertThat(r.acceptedBy()).isEqualTo(Map.of("a", "a2"));
        assertThat(busy.store.file(id)).isEmpty();
      }
    }
  }

  @Test
  void aVersionIsMarkedAcceptedOnceAFirstDcHoldsItWhileAnotherDcStillRefuses() throws Exception {
    TransportSettings settings =
        quick()
            .maxAttemptsPerDc(40)
            .retryBackoff(Duration.ofMillis(200), Duration.ofMillis(200))
            .build();
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings)) {
      TestCluster.Searcher a1 = cluster.searcher("a1", "a");
      TestCluster.Searcher b1 = cluster.searcher("b1", "b");
      b1.refusal = () -> Optional.of("cut off"); // dc b refuses every attempt, for seconds
      TransportSender sender = cluster.sender("indexer-1", "idx");
      await()
          .atMost(DEADLINE)
          .until(
              () -> sender.discovery().inDc("a").size() + sender.discovery().inDc("b").size() == 2);
      PartitionFileId id = new PartitionFileId(1, 3, 7);
      var report = sender.send(id, source(tmp, id, 20_000)).toCompletableFuture();
      await("marked accepted in the manifest")
          .atMost(DEADLINE)
          .until(
              () ->
                  a1.node
                      .manifest()
                      .latest(1, 3)
                      .filter(r -> r.id().equals(id) && r.accepted())
                      .isPresent());
      assertThat(report)
          .as("dc b is still being retried: the mark did not wait for every DC")
          .isNotDone();
      assertThat(report.get(60, TimeUnit.SECONDS).acceptedBy()).isEqualTo(Map.of("a", "a1"));
    }
  }

  @Test
  void aSearcherBehindTheManifestLongerThanTheBoundReportsItselfStale() throws Exception {
    TransportSettings settings =
        quick()
            .staleAfter(Duration.ofMillis(300))
            .catchUpGrace(Duration.ZERO)
            .catchUpInterval(Duration.ofMillis(200))
            .build();
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings)) {
      TestCluster.Searcher a1 = cluster.searcher("a1", "a");
      assertThat(a1.node.health().getAsBoolean()).isTrue();
      // a version nobody can provide (yet): the node stays behind
      PartitionFileId id = new PartitionFileId(1, 5, 9);
      Path file = source(tmp, id, 10_000);
      dev.mosaic.partition.FileDigest digest = dev.mosaic.partition.FileDigest.of(file);
      a1.node
          .manifest()
          .advance(
              new ManifestRecord(
                  id, digest.size(), digest.crc32c(), System.currentTimeMillis(), "x@y"));
      await().atMost(DEADLINE).until(() -> a1.node.health().partitionsBehind() == 1);
      await().atMost(DEADLINE).until(() -> !a1.node.health().getAsBoolean());
      assertThat(a1.node.health().describe()).startsWith("stale: 1 partitions behind");
      // the version arrives: fresh again
      TransportSender sender = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> sender.discovery().inDc("a").size() == 1);
      assertThat(sender.send(id, file).toCompletableFuture().get(60, TimeUnit.SECONDS).acceptedBy())
          .containsKey("a");
      await().atMost(DEADLINE).until(() -> a1.node.health().getAsBoolean());
      assertThat(a1.node.health().partitionsBehind()).isZero();
    }
  }

  @Test
  void aSearcherLackingAnAcceptedVersionStaysBehindWhenANewerUnacceptedOneIsRecorded()
      throws Exception {
    TransportSettings settings =
        quick()
            .staleAfter(Duration.ofMillis(1500))
            .catchUpGrace(Duration.ZERO)
            .catchUpInterval(Duration.ofMillis(200))
            .build();
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings)) {
      TestCluster.Searcher a1 = cluster.searcher("a1", "a");
      // another DC accepted v9, which a1 cannot get; then v10 is recorded, not accepted yet (churn)
      PartitionFileId accepted = new PartitionFileId(1, 5, 9);
      a1.node
          .manifest()
          .advance(new ManifestRecord(accepted, 10_000, 1234, System.currentTimeMillis(), "x@y"));
      await().atMost(DEADLINE).until(() -> a1.node.health().partitionsBehind() == 1);
      a1.node
          .manifest()
          .advance(
              ManifestRecord.built(
                  new PartitionFileId(1, 5, 10),
                  10_000,
                  5678,
                  0,
                  -1,
                  System.currentTimeMillis(),
                  0));
      await()
          .atMost(DEADLINE)
          .until(() -> a1.node.manifest().latest(1, 5).orElseThrow().id().version() == 10);
      await("stale: still lacking the accepted v9")
          .atMost(DEADLINE)
          .until(() -> a1.node.health().stale());
      assertThat(a1.node.health().partitionsBehind()).isEqualTo(1);
    }
  }

  private static FaultyLink link(int port, FaultyLink.Fault fault) {
    try {
      return new FaultyLink(port, fault);
    } catch (IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
  }
}
