package dev.mosaic.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.deploy.SearcherRole;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * ZooKeeper goes away for a while: searchers keep answering; everything recovers when it is back.
 */
@ExtendWith(SharedCluster.class)
@Timeout(300)
class ZooKeeperOutageTest {
  private boolean zooKeeperStopped;

  @AfterEach
  void heal(LocalCluster cluster) throws Exception {
    if (zooKeeperStopped) {
      cluster.zooKeeper().restart();
    }
    SharedCluster.heal(cluster);
  }

  @Test
  void searchersKeepAnsweringWithTheLastDataWhileZooKeeperIsDownAndThePipelineRecovers(
      LocalCluster cluster) throws Exception {
    List<SearcherRole> searchers = cluster.runningSearchers();
    Set<String> all = new HashSet<>();
    searchers.forEach(s -> all.add(s.nodeId()));
    assertThat(cluster.probe().measure(Duration.ofSeconds(60)).keySet()).isEqualTo(all);

    cluster.zooKeeper().stop();
    zooKeeperStopped = true;
    AtomicLong answered = new AtomicLong();
    await("every searcher answers during 8 s without ZooKeeper")
        .during(Duration.ofSeconds(8))
        .atMost(Duration.ofSeconds(30))
        .pollInterval(Duration.ofMillis(100))
        .until(
            () -> {
              for (SearcherRole s : searchers) {
                if (SearcherClient.countAll(s.httpAddress()) <= 0) {
                  return false;
                }
                answered.incrementAndGet();
              }
              return true;
            });
    cluster.zooKeeper().restart();
    zooKeeperStopped = false;

    // The pipeline recovers: a new change reaches every searcher again, and discovery is whole.
    Map<String, Duration> seen = cluster.probe().measure(Duration.ofSeconds(120));
    assertThat(seen.keySet()).as("searchers seeing a change after the outage").isEqualTo(all);
    await("discovery lists every searcher again")
        .atMost(Duration.ofSeconds(60))
        .until(
            () ->
                searchers.getFirst().transport().discovery().byDc().values().stream()
                        .mapToInt(List::size)
                        .sum()
                    == all.size());
    System.out.printf(
        "RESULT it-zookeeper-outage answered_during_outage=%d recovery_probe_ms=%s%n",
        answered.get(), seen.values().stream().mapToLong(Duration::toMillis).max().orElse(-1));
  }
}
