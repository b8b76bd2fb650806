package dev.mosaic.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.deploy.IndexerRole;
import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.deploy.SearcherRole;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionSender;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A partition file damaged on the way is refused everywhere; the previous version keeps serving.
 */
@ExtendWith(SharedCluster.class)
@Timeout(300)
class CorruptFileTest {
  @TempDir Path temp;

  @AfterEach
  void heal(LocalCluster cluster) throws Exception {
    SharedCluster.heal(cluster);
  }

  @Test
  void corruptPartitionFileIsRejectedAndTheOldVersionKeepsServing(LocalCluster cluster)
      throws Exception {
    cluster.simulator().pause();
    await("pipeline quiet and converged")
        .atMost(Duration.ofSeconds(120))
        .until(
            () ->
                cluster.runningIndexers().stream().allMatch(i -> i.node().isIdle())
                    && cluster.notConverged().isEmpty());
    Map<Integer, Long> latest = cluster.latestVersions();
    int partition = latest.keySet().iterator().next();
    long version = latest.get(partition);
    SearcherRole source = cluster.runningSearchers().getFirst();
    Path good =
        source
            .node()
            .store()
            .file(new PartitionFileId(CarsSchema.VERSION, partition, version))
            .orElseThrow();
    byte[] bytes = Files.readAllBytes(good);
    bytes[bytes.length / 2] ^= (byte) 0x5A; // one flipped byte in the middle of the body
    Path corrupt = temp.resolve("corrupt.yocto");
    Files.write(corrupt, bytes);
    PartitionFileId id = new PartitionFileId(CarsSchema.VERSION, partition, version + 1);

    PartitionSender.DeliveryReport report;
    try (PartitionInjector injector = new PartitionInjector(cluster)) {
      report = injector.send(id, corrupt).get(120, TimeUnit.SECONDS);
    }
    System.out.println("corrupt delivery of " + id + ": " + report);
    assertThat(report.acceptedBy()).as("datacenters that accepted a corrupt file").isEmpty();
    assertThat(report.failed()).containsOnlyKeys("dc-a", "dc-b");
    for (SearcherRole s : cluster.runningSearchers()) {
      assertThat(s.node().store().file(id)).as("%s holds the corrupt file", s.nodeId()).isEmpty();
      assertThat(s.servedVersions().get(partition))
          .as("%s serves partition %d at", s.nodeId(), partition)
          .isEqualTo(version);
      assertThat(SearcherClient.countAll(s.httpAddress()))
          .as("%s answers", s.nodeId())
          .isPositive();
    }
    for (IndexerRole i : cluster.runningIndexers()) {
      assertThat(i.node().failure()).isEmpty();
    }
  }
}
