package dev.mosaic.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A searcher's transport node whose ZooKeeper has gone away closes in a few seconds, not after
 * Curator's retry loop deleting its registration (over 50 s with the launcher's retry policy), and
 * its Curator client closes promptly after it. Real ZooKeeper, stopped for real.
 */
class ShutdownWithoutZooKeeperTest {
  @TempDir Path tmp;

  @Test
  void closingANodeWhoseZooKeeperIsDownIsBounded() throws Exception {
    ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "shutdown-test");
    try (TestingServer zk = new TestingServer(true)) {
      // the launcher's client: 250 ms up to 5 s between 20 retries
      CuratorFramework curator =
          ZooKeeperSecurity.digest("mosaic", "test-secret")
              .applyTo(
                  CuratorFrameworkFactory.builder()
                      .connectString(zk.getConnectString())
                      .sessionTimeoutMs(15_000)
                      .connectionTimeoutMs(5_000)
                      .retryPolicy(new ExponentialBackoffRetry(250, 20, 5000)))
              .build();
      curator.start();
      TransportNode node =
          TransportNode.builder()
              .nodeId("searcher-z")
              .dc("dc-a")
              .bind("127.0.0.1", 0)
              .advertise("127.0.0.1", -1)
              .curator(curator)
              .store(new FileStore(tmp.resolve("store"), Set.of(1), TestFiles::verifyPartition))
              .settings(TransportSettings.defaults())
              .actorSystem(system)
              .security(TransportSecurity.plaintext())
              .build();
      node.start();
      zk.stop();
      await()
          .atMost(Duration.ofSeconds(30))
          .until(() -> !curator.getZookeeperClient().isConnected());

      long t0 = System.nanoTime();
      node.close();
      Duration nodeClose = Duration.ofNanos(System.nanoTime() - t0);
      curator.close();
      Duration total = Duration.ofNanos(System.nanoTime() - t0);

      assertThat(nodeClose).isLessThan(Duration.ofSeconds(5));
      assertThat(total).isLessThan(Duration.ofSeconds(8));
    } finally {
      system.terminate();
    }
  }
}
