package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.embedded.EmbeddedZooKeeper;
import dev.mosaic.partition.PartitionFileId;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class ZooKeeperIndexManifestTest {
  private static EmbeddedZooKeeper zk;
  private static CuratorFramework client;

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

  @Test
  void recordsOnlyNewerVersionsPerSchemaVersionAndPartition() throws Exception {
    ZooKeeperIndexManifest m = new ZooKeeperIndexManifest(client, "/t1");
    assertThat(m.latest(1, 5)).isEmpty();
    assertThat(m.record(entry(1, 5, 100))).isTrue();
    assertThat(m.record(entry(1, 5, 100))).isFalse();
    assertThat(m.record(entry(1, 5, 99))).isFalse();
    assertThat(m.record(entry(1, 5, 101))).isTrue();
    assertThat(m.record(entry(2, 5, 1))).isTrue();
    assertThat(m.latest(1, 5).orElseThrow().id().version()).isEqualTo(101);
    assertThat(m.latest(1, 5).orElseThrow().fingerprint()).isEqualTo(101 * 31);
    assertThat(m.latest(2, 5).orElseThrow().id().version()).isEqualTo(1);
    assertThat(m.latest(1, 6)).isEmpty();
  }

  @Test
  void concurrentWritersEndWithTheHighestVersion() throws Exception {
    ZooKeeperIndexManifest m = new ZooKeeperIndexManifest(client, "/t2");
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Boolean>> results = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        int base = t;
        Callable<Boolean> task =
            () -> {
              for (int v = 1; v <= 50; v++) {
                m.record(entry(1, 0, v * 4L + base));
              }
              return true;
            };
        results.add(pool.submit(task));
      }
      for (Future<Boolean> f : results) {
        f.get();
      }
    } finally {
      pool.shutdown();
    }
    assertThat(m.latest(1, 0).orElseThrow().id().version()).isEqualTo(50 * 4L + 3);
  }

  private static IndexManifest.Entry entry(int schema, int partition, long version) {
    return new IndexManifest.Entry(
        new PartitionFileId(schema, partition, version), version * 31, 10, 1234L);
  }
}
