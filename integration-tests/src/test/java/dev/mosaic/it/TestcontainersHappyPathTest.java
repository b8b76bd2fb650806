package dev.mosaic.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.deploy.MosaicConfig;
import dev.mosaic.deploy.SearcherRole;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The happy path against ZooKeeper and Kafka in containers (the official images), the way the
 * per-role commands run against external services. Runs where a Docker engine exists; skipped
 * otherwise.
 */
@Testcontainers(disabledWithoutDocker = true)
@Timeout(600)
class TestcontainersHappyPathTest {
  @Container
  static final KafkaContainer KAFKA =
      new KafkaContainer(DockerImageName.parse("apache/kafka:4.0.0"));

  @Container
  static final GenericContainer<?> ZOOKEEPER =
      new GenericContainer<>(DockerImageName.parse("zookeeper:3.9")).withExposedPorts(2181);

  @Test
  void feedChangeBecomesSearchableOnEverySearcherWithContainerizedZooKeeperAndKafka()
      throws Exception {
    Map<String, String> o = SharedCluster.testOverrides();
    o.put("mosaic.zookeeper.connect", ZOOKEEPER.getHost() + ":" + ZOOKEEPER.getMappedPort(2181));
    o.put("mosaic.kafka.bootstrap-servers", KAFKA.getBootstrapServers());
    try (LocalCluster cluster = new LocalCluster(MosaicConfig.withOverrides(o)).start()) {
      assertThat(cluster.zooKeeper()).isNull();
      assertThat(cluster.kafka()).isNull();
      Set<String> all =
          cluster.runningSearchers().stream().map(SearcherRole::nodeId).collect(Collectors.toSet());
      for (int i = 0; i < 8; i++) {
        assertThat(cluster.probe().measure(Duration.ofSeconds(60)).keySet()).isEqualTo(all);
      }
    }
  }
}
