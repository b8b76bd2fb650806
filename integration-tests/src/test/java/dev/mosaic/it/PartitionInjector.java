package dev.mosaic.it;

import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionSender;
import dev.mosaic.transport.TransportSender;
import dev.mosaic.transport.ZooKeeperSecurity;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.pekko.actor.typed.javadsl.Adapter;
import org.awaitility.Awaitility;

/**
 * Delivers a file of the test's choosing through the real transport, as an indexer would (one
 * searcher per datacenter, which relays it inside its datacenter), without retrying another
 * searcher, and recording the version in the manifest first only when asked (searchers accept only
 * versions the manifest records). Closeable; not thread safe.
 */
final class PartitionInjector implements AutoCloseable {
  private final CuratorFramework curator;
  private final TransportSender sender;

  PartitionInjector(LocalCluster cluster) throws Exception {
    this(cluster, false);
  }

  /** With {@code record}, the version is recorded in the manifest before it is pushed. */
  PartitionInjector(LocalCluster cluster, boolean record) throws Exception {
    curator =
        ZooKeeperSecurity.fromConfig(cluster.config().config())
            .applyTo(
                CuratorFrameworkFactory.builder()
                    .connectString(cluster.zkConnect())
                    .retryPolicy(new ExponentialBackoffRetry(200, 10, 2000)))
            .build();
    curator.start();
    if (!curator.blockUntilConnected(30, TimeUnit.SECONDS)) {
      throw new IllegalStateException("no ZooKeeper at " + cluster.zkConnect());
    }
    sender =
        TransportSender.builder()
            .nodeId("it-injector")
            .dc("dc-a")
            .curator(curator)
            .settings(
                cluster.config().transportSettings().toBuilder()
                    .writeManifest(record)
                    .maxAttemptsPerDc(1)
                    .build())
            .actorSystem(Adapter.toTyped(cluster.actorSystem()))
            .build();
    sender.start();
    int running = cluster.runningSearchers().size();
    Awaitility.await("injector sees every running searcher")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                sender.discovery().byDc().values().stream().mapToInt(List::size).sum() >= running);
  }

  CompletableFuture<PartitionSender.DeliveryReport> send(PartitionFileId id, Path file) {
    return sender.send(id, file).toCompletableFuture();
  }

  @Override
  public void close() {
    sender.close();
    curator.close();
  }
}
