package dev.mosaic.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.embedded.EmbeddedZooKeeper;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The manifest contract on a real (embedded) ZooKeeper, plus what only ZooKeeper has. */
class ZooKeeperPartitionManifestTest extends BasePartitionManifestTestCase {
  private static EmbeddedZooKeeper zk;
  private static CuratorFramework client;
  private static int roots;
  private String root;

  @BeforeAll
  static void startZooKeeper() throws Exception {
    zk = EmbeddedZooKeeper.builder().build().start();
    client =
        CuratorFrameworkFactory.newClient(zk.connectString(), new ExponentialBackoffRetry(100, 5));
    client.start();
  }

  @AfterAll
  static void stopZooKeeper() throws Exception {
    client.close();
    zk.close();
  }

  @Override
  protected void freshStorage() {
    root = "/mosaic-" + ++roots;
  }

  @Override
  protected PartitionManifest open() throws Exception {
    PartitionManifest m = PartitionManifest.inZooKeeper(client, root);
    m.start();
    return m;
  }

  @Test
  void anotherProcessSeesRecordsThroughItsWatchedCopy() throws Exception {
    try (PartitionManifest writer = open();
        PartitionManifest reader = open()) {
      writer.record(built(1, 3, 42, writer.claim(3, "w")));
      await()
          .atMost(Duration.ofSeconds(10))
          .until(() -> reader.latest(1, 3).map(r -> r.id().version()).orElse(0L) == 42);
      assertThat(reader.latest(1, 3)).isEqualTo(writer.latest(1, 3));
    }
  }

  /**
   * A manifest that is never started hears no cache events: what it saw is only its own writes and
   * reads, so another writer leaves it behind, as a late cache would.
   */
  private PartitionManifest blind() {
    return PartitionManifest.inZooKeeper(client, root);
  }

  @Test
  void aWriteDecidedOnAStateLeftBehindByAnotherWriterIsDecidedAgainOnAFreshRead() throws Exception {
    try (PartitionManifest behind = blind();
        PartitionManifest other = open()) {
      behind.record(built(1, 5, 10, 0));
      other.delivered(new PartitionFileId(1, 5, 10), List.of("a"));
      behind.delivered(new PartitionFileId(1, 5, 10), List.of("b"));
      ManifestRecord held = fresh().latest(1, 5).orElseThrow();
      assertThat(held.delivered())
          .as("neither writer's datacenter lost")
          .isEqualTo(Map.of("a", 10L, "b", 10L));
      other.record(built(1, 5, 12, 0));
      behind.delivered(new PartitionFileId(1, 5, 10), List.of("c"));
      assertThat(fresh().latest(1, 5).orElseThrow().delivered())
          .as("the held record is version 12; c holds 10")
          .isEqualTo(Map.of("a", 10L, "b", 10L, "c", 10L));
      assertThat(fresh().latest(1, 5).orElseThrow().id().version()).isEqualTo(12);
    }
  }

  @Test
  void aVersionNotNewerThanOneAnotherWriterRecordedIsRefusedDespiteAnOlderSeenState()
      throws Exception {
    try (PartitionManifest behind = blind();
        PartitionManifest other = open()) {
      assertThat(behind.record(built(1, 6, 3, 0)).outcome())
          .isEqualTo(PartitionManifest.Outcome.RECORDED);
      other.record(built(1, 6, 9, 0));
      PartitionManifest.Recorded r = behind.record(built(1, 6, 5, 0));
      assertThat(r.outcome()).isEqualTo(PartitionManifest.Outcome.NOT_NEWER);
      assertThat(r.held().orElseThrow().id().version()).isEqualTo(9);
      assertThat(
              behind.advance(
                  ManifestRecord.built(new PartitionFileId(1, 6, 5), 1, 1, 1, 1, 1, 0)
                      .withAccepted(5, "x")))
          .as("an older version is not accepted over the held one")
          .isFalse();
      assertThat(fresh().latest(1, 6).orElseThrow().id().version()).isEqualTo(9);
    }
  }

  @Test
  void aWriterWhoseEpochMovedIsFencedEvenWhenItsSeenStateIsCurrent() throws Exception {
    try (PartitionManifest paused = blind();
        PartitionManifest successor = blind()) {
      long epoch = paused.claim(7, "paused");
      assertThat(paused.record(built(1, 7, 1, epoch)).outcome())
          .isEqualTo(PartitionManifest.Outcome.RECORDED);
      long next = successor.claim(7, "successor");
      assertThat(next).isGreaterThan(epoch);
      PartitionManifest.Recorded r = paused.record(built(1, 7, 2, epoch));
      assertThat(r.outcome()).isEqualTo(PartitionManifest.Outcome.FENCED);
      assertThat(r.held().orElseThrow().id().version()).isEqualTo(1);
      assertThat(paused.record(built(1, 7, 1, epoch)).outcome())
          .as("not newer and fenced: fenced, as before the write path read nothing first")
          .isEqualTo(PartitionManifest.Outcome.FENCED);
      assertThat(successor.record(built(1, 7, 2, next)).outcome())
          .isEqualTo(PartitionManifest.Outcome.RECORDED);
      assertThat(fresh().latest(1, 7).orElseThrow().id().version()).isEqualTo(2);
    }
  }

  /** A newly started manifest: what ZooKeeper holds now. */
  private PartitionManifest fresh() throws Exception {
    return track(open());
  }
}
