package dev.mosaic.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.partition.PartitionManifest.Outcome;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link PartitionManifest} passes. A subclass provides fresh, started
 * manifests; two manifests from one test share their storage (as two processes would).
 */
public abstract class BasePartitionManifestTestCase {
  private final List<PartitionManifest> opened = new ArrayList<>();
  private PartitionManifest manifest;

  /** A started manifest over storage shared by every call within one test, fresh per test. */
  protected abstract PartitionManifest open() throws Exception;

  /** Called before each test, before any {@link #open()}: start from empty storage. */
  protected abstract void freshStorage() throws Exception;

  @BeforeEach
  void openManifest() throws Exception {
    freshStorage();
    manifest = track(open());
  }

  @AfterEach
  void closeManifests() {
    opened.forEach(PartitionManifest::close);
  }

  /** Closes {@code m} after the test. */
  protected PartitionManifest track(PartitionManifest m) {
    opened.add(m);
    return m;
  }

  static ManifestRecord built(int schema, int partition, long version, long epoch) {
    return ManifestRecord.built(
        new PartitionFileId(schema, partition, version),
        100 + version,
        version * 31,
        version * 7,
        (int) version % 1000,
        1_000 + version,
        epoch);
  }

  @Test
  void recordsOnlyNewerVersionsPerSchemaVersionAndPartition() throws Exception {
    assertThat(manifest.latest(1, 5)).isEmpty();
    assertThat(manifest.record(built(1, 5, 10, 0)).outcome()).isEqualTo(Outcome.RECORDED);
    assertThat(manifest.record(built(1, 5, 10, 0)).outcome()).isEqualTo(Outcome.NOT_NEWER);
    PartitionManifest.Recorded older = manifest.record(built(1, 5, 9, 0));
    assertThat(older.outcome()).isEqualTo(Outcome.NOT_NEWER);
    assertThat(older.held().orElseThrow().id().version()).isEqualTo(10);
    assertThat(manifest.record(built(2, 5, 3, 0)).outcome()).isEqualTo(Outcome.RECORDED);
    assertThat(manifest.record(built(1, 6, 1, 0)).outcome()).isEqualTo(Outcome.RECORDED);
    assertThat(manifest.record(built(1, 5, 11, 0)).outcome()).isEqualTo(Outcome.RECORDED);
    assertThat(manifest.latest(1, 5)).contains(built(1, 5, 11, 0));
    assertThat(manifest.latest(2, 5).orElseThrow().id().version()).isEqualTo(3);
    assertThat(manifest.all()).hasSize(3);
  }

  @Test
  void aRecordKeepsEveryField() throws Exception {
    ManifestRecord r =
        new ManifestRecord(
            new PartitionFileId(3, 4, 5),
            6,
            7,
            -8,
            9,
            10,
            11,
            "n@dc",
            0,
            Map.of("dc-a", 5L, "dc-b", 4L));
    manifest.record(r);
    assertThat(manifest.latest(3, 4)).contains(r);
  }

  @Test
  void aClaimFencesRecordsOfEarlierEpochs() throws Exception {
    long first = manifest.claim(7, "old-owner");
    assertThat(first).isPositive();
    assertThat(manifest.record(built(1, 7, 1, first)).outcome()).isEqualTo(Outcome.RECORDED);
    PartitionManifest other = track(open());
    long second = other.claim(7, "new-owner");
    assertThat(second).isGreaterThan(first);
    PartitionManifest.Recorded stale = manifest.record(built(1, 7, 2, first));
    assertThat(stale.outcome()).isEqualTo(Outcome.FENCED);
    assertThat(manifest.record(built(2, 7, 2, first)).outcome())
        .as("the epoch covers every schema version of the partition")
        .isEqualTo(Outcome.FENCED);
    assertThat(other.record(built(1, 7, 2, second)).outcome()).isEqualTo(Outcome.RECORDED);
    assertThat(manifest.claim(8, "x")).as("epochs are per partition").isPositive();
    assertThat(other.record(built(1, 7, 3, second)).outcome())
        .as("a claim of another partition does not fence this one")
        .isEqualTo(Outcome.RECORDED);
  }

  @Test
  void claimAllBumpsEveryPartitionsEpochLikeSingleClaims() throws Exception {
    long single = manifest.claim(2, "a");
    long[] epochs = manifest.claimAll(new int[] {1, 2, 3}, "b");
    assertThat(epochs).hasSize(3);
    assertThat(epochs[1]).isGreaterThan(single);
    assertThat(epochs[0]).isPositive();
    assertThat(manifest.record(built(1, 2, 1, single)).outcome()).isEqualTo(Outcome.FENCED);
    for (int i = 0; i < 3; i++) {
      assertThat(manifest.record(built(1, i + 1, 1, epochs[i])).outcome())
          .isEqualTo(Outcome.RECORDED);
    }
    long[] again = manifest.claimAll(new int[] {3, 1}, "c");
    assertThat(again[0]).isGreaterThan(epochs[2]);
    assertThat(again[1]).isGreaterThan(epochs[0]);
  }

  @Test
  void advanceMarksTheHeldVersionAcceptedOnceAndNeverGoesBack() throws Exception {
    manifest.record(built(1, 2, 10, 0));
    PartitionFileId id = new PartitionFileId(1, 2, 10);
    assertThat(manifest.advance(new ManifestRecord(id, 110, 310, 5_000, "n1@a"))).isTrue();
    assertThat(manifest.advance(new ManifestRecord(id, 110, 310, 6_000, "n2@b"))).isFalse();
    ManifestRecord held = manifest.latest(1, 2).orElseThrow();
    assertThat(held.accepted()).isTrue();
    assertThat(held.acceptedBy()).isEqualTo("n1@a");
    assertThat(held.acceptedAtMillis()).isEqualTo(5_000);
    assertThat(held.fingerprint()).as("the builder's fields stay").isEqualTo(70);
    assertThat(manifest.advance(new ManifestRecord(new PartitionFileId(1, 2, 9), 1, 1, 7_000, "x")))
        .isFalse();
    assertThat(manifest.advance(new ManifestRecord(new PartitionFileId(1, 3, 4), 1, 1, 7_000, "y")))
        .as("a sender without an indexer creates the record")
        .isTrue();
    assertThat(manifest.latest(1, 3).orElseThrow().acceptedBy()).isEqualTo("y");
  }

  @Test
  void advanceNotesAcceptanceAndDeliveredDatacentersInOneWrite() throws Exception {
    manifest.record(built(1, 4, 10, 0));
    PartitionFileId id = new PartitionFileId(1, 4, 10);
    assertThat(
            manifest.advance(
                new ManifestRecord(id, 110, 310, 5_000, "n1@a")
                    .withDelivered(Map.of("a", 10L, "b", 10L))))
        .isTrue();
    ManifestRecord held = manifest.latest(1, 4).orElseThrow();
    assertThat(held.acceptedBy()).isEqualTo("n1@a");
    assertThat(held.delivered()).isEqualTo(Map.of("a", 10L, "b", 10L));
    assertThat(held.deliveredEverywhere()).isTrue();
    assertThat(
            manifest.advance(
                new ManifestRecord(id, 110, 310, 6_000, "n2@b").withDelivered(Map.of("a", 10L))))
        .as("nothing new: already accepted, a already noted")
        .isFalse();
    manifest.record(built(1, 4, 11, 0));
    assertThat(
            manifest.advance(
                new ManifestRecord(id, 110, 310, 7_000, "n1@a").withDelivered(Map.of("c", 10L))))
        .as("a superseded version's delivery is still noted")
        .isTrue();
    ManifestRecord next = manifest.latest(1, 4).orElseThrow();
    assertThat(next.id().version()).isEqualTo(11);
    assertThat(next.accepted()).as("the newer version is not accepted by it").isFalse();
    assertThat(next.delivered()).isEqualTo(Map.of("a", 10L, "b", 10L, "c", 10L));
  }

  @Test
  void deliveredVersionsOnlyGoUpAndCarryOverToNewerRecords() throws Exception {
    manifest.record(built(1, 0, 10, 0));
    manifest.delivered(new PartitionFileId(1, 0, 10), List.of("a", "b"));
    assertThat(manifest.latest(1, 0).orElseThrow().deliveredEverywhere()).isTrue();
    manifest.delivered(new PartitionFileId(1, 0, 9), List.of("a"));
    assertThat(manifest.latest(1, 0).orElseThrow().delivered())
        .isEqualTo(Map.of("a", 10L, "b", 10L));
    manifest.record(built(1, 0, 11, 0));
    ManifestRecord next = manifest.latest(1, 0).orElseThrow();
    assertThat(next.delivered()).isEqualTo(Map.of("a", 10L, "b", 10L));
    assertThat(next.deliveredEverywhere()).as("both datacenters are behind").isFalse();
    manifest.delivered(next.id(), List.of("b"));
    assertThat(manifest.latest(1, 0).orElseThrow().delivered())
        .isEqualTo(Map.of("a", 10L, "b", 11L));
    assertThat(manifest.latest(1, 0).orElseThrow().deliveredEverywhere()).isFalse();
  }

  @Test
  void listenersHearEveryChange() throws Exception {
    AtomicInteger heard = new AtomicInteger();
    manifest.addListener(heard::incrementAndGet);
    manifest.record(built(1, 1, 1, 0));
    await().atMost(Duration.ofSeconds(10)).until(() -> heard.get() >= 1);
  }

  @Test
  void concurrentWritersEndWithTheHighestVersionAndEachRecordedOnce() throws Exception {
    PartitionManifest other = track(open());
    int versions = 60;
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Callable<Boolean>> tasks = new ArrayList<>();
      for (int v = 1; v <= versions; v++) {
        long version = v;
        PartitionManifest m = v % 2 == 0 ? manifest : other;
        tasks.add(() -> m.record(built(1, 0, version, 0)).outcome() == Outcome.RECORDED);
        tasks.add(() -> m.record(built(1, 0, version, 0)).outcome() == Outcome.RECORDED);
      }
      int recorded = 0;
      for (Future<Boolean> f : pool.invokeAll(tasks)) {
        recorded += f.get() ? 1 : 0;
      }
      assertThat(recorded).isBetween(1, versions);
      assertThat(manifest.record(built(1, 0, versions, 0)).held().orElseThrow().id().version())
          .isEqualTo(versions);
    } finally {
      pool.shutdownNow();
    }
  }

  /** Random records, claims and deliveries against a simple model of the contract. */
  @Test
  void randomOperationsMatchASimpleModel() throws Exception {
    long seed = 20261124L;
    SplittableRandom random = new SplittableRandom(seed);
    PartitionManifest other = track(open());
    Map<Integer, Long> epochs = new HashMap<>();
    Map<Integer, Long> latest = new HashMap<>();
    Map<Integer, Map<String, Long>> delivered = new HashMap<>();
    for (int step = 0; step < 300; step++) {
      PartitionManifest m = random.nextBoolean() ? manifest : other;
      int p = random.nextInt(3);
      switch (random.nextInt(3)) {
        case 0 -> epochs.put(p, m.claim(p, "w" + step));
        case 1 -> {
          long current = epochs.getOrDefault(p, 0L);
          long epoch =
              current == 0 ? 0 : random.nextBoolean() ? current : random.nextLong(1, current + 1);
          long version = random.nextLong(1, 40);
          Outcome expected =
              epoch != 0 && epoch != current
                  ? Outcome.FENCED
                  : latest.getOrDefault(p, 0L) >= version ? Outcome.NOT_NEWER : Outcome.RECORDED;
          assertThat(m.record(built(1, p, version, epoch)).outcome())
              .as("seed %d step %d", seed, step)
              .isEqualTo(expected);
          if (expected == Outcome.RECORDED) {
            latest.put(p, version);
          }
        }
        default -> {
          Long v = latest.get(p);
          if (v != null) {
            String dc = random.nextBoolean() ? "a" : "b";
            m.delivered(new PartitionFileId(1, p, v), Set.of(dc));
            delivered.computeIfAbsent(p, k -> new HashMap<>()).merge(dc, v, Math::max);
          }
        }
      }
    }
    for (int p = 0; p < 3; p++) {
      Long v = latest.get(p);
      if (v == null) {
        continue;
      }
      int partition = p;
      await()
          .atMost(Duration.ofSeconds(10))
          .untilAsserted(
              () -> {
                ManifestRecord r = manifest.latest(1, partition).orElseThrow();
                assertThat(r.id().version()).isEqualTo(v);
                assertThat(r.delivered()).isEqualTo(delivered.getOrDefault(partition, Map.of()));
              });
    }
  }
}
