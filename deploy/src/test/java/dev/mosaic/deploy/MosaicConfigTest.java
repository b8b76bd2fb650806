package dev.mosaic.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MosaicConfigTest {
  @TempDir Path dir;

  @Test
  void defaultsNeedNoConfiguration() {
    MosaicConfig c = MosaicConfig.withOverrides(Map.of());
    assertThat(c.partitions).isEqualTo(64);
    assertThat(c.zkConnect).isEmpty();
    assertThat(c.kafkaBootstrap).isEmpty();
    assertThat(c.searcher.dcs).containsExactly("dc-a", "dc-b");
    assertThat(c.searcher.nodesPerDc).isEqualTo(2);
    assertThat(c.indexer.nodes).isEqualTo(2);
    assertThat(c.dataDir).isNull();
    assertThat(c.transportSettings().zkRoot()).isEqualTo("/mosaic");
  }

  @Test
  void fileOverridesDefaultsAndSetOverridesTheFile() throws Exception {
    Path file = dir.resolve("cluster.conf");
    Files.writeString(
        file,
        """
        mosaic {
          partitions = 128
          searcher { dcs = [east, west, north], nodes-per-dc = 3, http-port = 9100 }
          zookeeper.connect = "zk1:2181,zk2:2181"
          transport.catch-up-interval = 7s
        }
        """);
    MosaicConfig c = MosaicConfig.load(file, Map.of("mosaic.partitions", "256"));
    assertThat(c.partitions).isEqualTo(256);
    assertThat(c.searcher.dcs).containsExactly("east", "west", "north");
    assertThat(c.searcher.nodesPerDc).isEqualTo(3);
    assertThat(c.searcher.httpPort).isEqualTo(9100);
    assertThat(c.zkConnect).isEqualTo("zk1:2181,zk2:2181");
    assertThat(c.transportSettings().catchUpInterval()).isEqualTo(Duration.ofSeconds(7));
  }

  @Test
  void badValueIsRefusedNamingTheKeyAndItsOrigin() throws Exception {
    Path file = dir.resolve("bad.conf");
    Files.writeString(file, "mosaic.kafka.topic-partitions = 500\n");
    assertThatThrownBy(() -> MosaicConfig.load(file, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mosaic.kafka.topic-partitions")
        .hasMessageContaining("must be <= partitions (64)")
        .hasMessageContaining("bad.conf");
    assertThatThrownBy(() -> MosaicConfig.withOverrides(Map.of("mosaic.feed.change-share", "1.5")))
        .hasMessageContaining("mosaic.feed.change-share must be in [0, 1], got 1.5");
    assertThatThrownBy(() -> MosaicConfig.withOverrides(Map.of("mosaic.partitions", "many")))
        .hasMessageContaining("partitions");
  }

  @Test
  void searchersGroupAutomaticallyByDefaultAndANumberOverridesIt() {
    String key = "mosaic.searcher.partition-group-size";
    assertThat(MosaicConfig.withOverrides(Map.of()).searcher.partitionGroupSize).isEmpty();
    assertThat(MosaicConfig.withOverrides(Map.of(key, "auto")).searcher.partitionGroupSize)
        .isEmpty();
    assertThat(MosaicConfig.withOverrides(Map.of(key, "0")).searcher.partitionGroupSize)
        .hasValue(0);
    assertThat(MosaicConfig.withOverrides(Map.of(key, "16")).searcher.partitionGroupSize)
        .hasValue(16);
    assertThatThrownBy(() -> MosaicConfig.withOverrides(Map.of(key, "1")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(key)
        .hasMessageContaining("must be auto, 0 (grouping off) or at least 2, got 1");
    assertThatThrownBy(() -> MosaicConfig.withOverrides(Map.of(key, "sometimes")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(key)
        .hasMessageContaining("must be auto, 0 (grouping off) or at least 2, got \"sometimes\"");
  }

  @Test
  void missingConfigFileIsNamed() {
    Path missing = dir.resolve("nope.conf");
    assertThatThrownBy(() -> MosaicConfig.load(missing, Map.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nope.conf does not exist");
  }
}
