package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.partition.ChangeSetFile;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Pruning after a delivery keeps the newest {@code retainVersions} files of a partition and the
 * newest {@link VersionDelivery#CHANGE_SETS_KEPT} change sets, those of pruned files included: a
 * receiver that missed versions gets the change sets since the one it holds, composed.
 */
class VersionDeliveryPruneTest {
  @TempDir Path dir;

  @Test
  void pruningKeepsTheNewestFilesAndOutlivingChangeSetsUpToTheirLimit() throws Exception {
    IndexerConfig config =
        new IndexerConfig(
            "prune-test",
            null,
            null,
            null,
            null,
            8,
            null,
            null,
            null,
            0,
            dir,
            null,
            null,
            Duration.ofMillis(100),
            Duration.ofMillis(500),
            1,
            2,
            Map.of(),
            null,
            null,
            Duration.ofMillis(10),
            Duration.ofMillis(100),
            IndexerConfig.Hooks.NONE);
    PartitionLayout layout = new PartitionLayout(dir);
    int versions = VersionDelivery.CHANGE_SETS_KEPT + 5;
    Files.createDirectories(layout.partitionDir(1, 3));
    for (long v = 1; v <= versions; v++) {
      Path file = layout.file(new PartitionFileId(1, 3, v));
      Files.write(file, new byte[] {(byte) v});
      if (v > 1) {
        ChangeSetFile.write(file, v - 1, new byte[] {(byte) v});
      }
    }
    VersionDelivery delivery =
        new VersionDelivery(
            config, new IndexerMetrics(new SimpleMeterRegistry(), "prune-test"), id -> true);
    try {
      delivery.prune(new PartitionFileId(1, 3, versions));
    } finally {
      delivery.close();
    }
    assertThat(layout.versions(1, 3)).containsExactly((long) versions - 1, (long) versions);
    assertThat(ChangeSetFile.versions(layout.partitionDir(1, 3)))
        .hasSize(VersionDelivery.CHANGE_SETS_KEPT)
        .first()
        .isEqualTo((long) versions - VersionDelivery.CHANGE_SETS_KEPT + 1);
    assertThat(ChangeSetFile.versions(layout.partitionDir(1, 3)).last()).isEqualTo(versions);
  }
}
