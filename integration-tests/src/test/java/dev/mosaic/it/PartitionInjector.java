package dev.mosaic.it;

import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionSender;
import dev.mosaic.transport.TransportSender;
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
 * searcher per datacenter, which relays it inside its datacenter), but without advancing the
 * manifest and without retrying another searcher. Closeable; not thread safe.
 */
final class PartitionInjector implements AutoCloseable {
  private final CuratorFramework curator;
  private final TransportSender sender;

  PartitionInjector(LocalCluster cluster) throws Exception {
    curator =
        CuratorFrameworkFactory.newClient(
            cluster.zkConnect(), new ExponentialBackoffRetry(200, 10, 2000));
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
                    .writeManifest(false)
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
