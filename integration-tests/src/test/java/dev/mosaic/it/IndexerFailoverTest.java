package dev.mosaic.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.deploy.IndexerRole;
import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.deploy.SearcherRole;
import dev.mosaic.indexer.IndexerCrash;
import java.time.Duration;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An indexer crashes (no goodbye to its consumer group): the other takes over its partitions once
 * the group notices, and changes keep flowing.
 */
@ExtendWith(SharedCluster.class)
@Timeout(300)
class IndexerFailoverTest {

  @AfterEach
  void heal(LocalCluster cluster) throws Exception {
    SharedCluster.heal(cluster);
    await("both indexers own partitions again")
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                cluster.runningIndexers().size() == 2
                    && cluster.runningIndexers().stream()
                        .noneMatch(i -> i.node().ownedPartitions().isEmpty()));
  }

  @Test
  void otherIndexerTakesOverTheKilledIndexersPartitionsAndFreshnessRecovers(LocalCluster cluster)
      throws Exception {
    int p = cluster.config().partitions;
    IndexerRole survivor = cluster.indexer("indexer-1");
    IndexerRole victim = cluster.indexer("indexer-2");
    await("both indexers own partitions")
        .atMost(Duration.ofSeconds(90))
        .until(
            () ->
                !survivor.node().ownedPartitions().isEmpty()
                    && !victim.node().ownedPartitions().isEmpty());
    SortedSet<Integer> orphaned = new TreeSet<>(victim.node().ownedPartitions());
    Map<Integer, Long> before = cluster.latestVersions();

    IndexerCrash.kill(victim.node());
    cluster.stopIndexer("indexer-2"); // releases its sender and ZooKeeper client

    await("indexer-1 owns all " + p + " partitions")
        .atMost(Duration.ofSeconds(90))
        .until(
            () -> survivor.node().ownedPartitions().size() == p && !survivor.node().isRestoring());
    // The feed keeps flowing: every orphaned partition gets new versions, built by the survivor.
    await("new versions of the orphaned partitions " + orphaned)
        .atMost(Duration.ofSeconds(120))
        .until(
            () -> {
              Map<Integer, Long> now = cluster.latestVersions();
              return orphaned.stream()
                  .allMatch(x -> now.getOrDefault(x, 0L) > before.getOrDefault(x, 0L));
            });
    Set<String> all = new HashSet<>();
    cluster.runningSearchers().stream().map(SearcherRole::nodeId).forEach(all::add);
    Freshness freshness = new Freshness();
    for (int i = 0; i < cluster.config().probe.offers; i++) {
      Map<String, Duration> seen = cluster.probe().measure(Duration.ofSeconds(60));
      assertThat(seen.keySet()).as("probe %d after failover", i).isEqualTo(all);
      seen.values().forEach(d -> freshness.add(d.toMillis()));
    }
    System.out.printf(
        "RESULT it-indexer-failover orphaned=%d freshness_p50_ms=%d freshness_p99_ms=%d%n",
        orphaned.size(), freshness.percentile(50), freshness.percentile(99));
    assertThat(survivor.node().failure()).isEmpty();
  }
}
