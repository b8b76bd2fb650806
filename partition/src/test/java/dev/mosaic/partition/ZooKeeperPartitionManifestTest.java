package dev.mosaic.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.embedded.EmbeddedZooKeeper;
import java.time.Duration;
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
}
