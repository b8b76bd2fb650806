package dev.mosaic.bench.freshness;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class CpuByRoleTest {

  @Test
  void threadsAreGivenTheRoleTheirNamesShow() {
    Map<String, String> roles = new LinkedHashMap<>();
    roles.put("mosaic-dc-b-2-pekko.actor.default-blocking-io-dispatcher-17", "searcher_rebuilds");
    roles.put("mosaic-dc-a-1-pekko.actor.default-dispatcher-4", "searcher_streams");
    roles.put("mosaic-dc-a-1-pekko.actor.internal-dispatcher-2", "searcher_streams");
    // the transport's own dispatcher for transfer streams (until 2026-11-29: other_threads)
    roles.put("mosaic-dc-b-2-mosaic.transport.stream-dispatcher-7", "searcher_streams");
    roles.put("mosaic-group-merge", "searcher_group_merges");
    roles.put("mosaic-generations", "searcher_reopens");
    roles.put("mosaic-query-3", "searcher_queries");
    roles.put("indexer-2-rebuild-1", "indexer_rebuilds");
    roles.put("indexer-1-fsync-0", "indexer_rebuilds");
    roles.put("indexer-1-consumer", "indexer_consumers");
    // the indexers' actor system is the one without a searcher's id in its name
    roles.put("mosaic-pekko.actor.default-dispatcher-9", "indexer_senders");
    roles.put("mosaic-mosaic.transport.stream-dispatcher-3", "indexer_senders");
    roles.put("freshness-poll-2", "watch");
    roles.put("HttpClient-5-Worker-0", "watch");
    roles.put("feed-loader-feeds", "feed_loader");
    roles.put("data-plane-kafka-request-handler-3", "kafka_zookeeper");
    roles.put("main-SendThread(127.0.0.1:2181)", "kafka_zookeeper");
    roles.put("pool-33-thread-1", CpuByRole.OTHER);

    roles.forEach(
        (thread, role) -> assertThat(CpuByRole.roleOf(thread)).as(thread).isEqualTo(role));
  }

  @Test
  void aCycleCountsWhatEachThreadSpentSinceTheFirstSnapshotAndTheRestOfTheProcessAsJvm() {
    CpuByRole.Snapshot before =
        new CpuByRole.Snapshot(
            Map.of(1L, 1_000_000L, 2L, 5_000_000L),
            Map.of(1L, "mosaic-group-merge", 2L, "indexer-1-rebuild-0"),
            10_000_000L);
    CpuByRole.Snapshot after =
        new CpuByRole.Snapshot(
            // thread 2 ended; thread 3 was born during the cycle
            Map.of(1L, 4_000_000L, 3L, 2_000_000L),
            Map.of(1L, "mosaic-group-merge", 3L, "mosaic-query-1"),
            20_000_000L);

    Map<String, Long> spent = after.since(before);

    assertThat(spent)
        .containsEntry("searcher_group_merges", 3_000_000L)
        .containsEntry("searcher_queries", 2_000_000L)
        .containsEntry("indexer_rebuilds", 0L)
        .containsEntry(CpuByRole.JVM, 5_000_000L); // 10 ms of process CPU, 5 ms by threads
    assertThat(spent.values().stream().mapToLong(Long::longValue).sum()).isEqualTo(10_000_000L);
    assertThat(CpuByRole.describe(spent))
        .startsWith("searcher_rebuilds=0 ")
        .contains(" searcher_group_merges=3 ")
        .endsWith(" jvm=5");
  }

  @Test
  void theBusiestGroupsJoinNumberedThreadsAndComeMostFirst() {
    CpuByRole.Snapshot before =
        new CpuByRole.Snapshot(
            Map.of(1L, 1_000_000L, 2L, 0L, 3L, 0L),
            Map.of(1L, "NIOWorkerThread-1", 2L, "NIOWorkerThread-2", 3L, "mosaic-query-7"),
            0L);
    CpuByRole.Snapshot after =
        new CpuByRole.Snapshot(
            Map.of(1L, 4_000_000L, 2L, 2_000_000L, 3L, 4_000_000L, 4L, 1_000_000L),
            Map.of(
                1L, "NIOWorkerThread-1",
                2L, "NIOWorkerThread-2",
                3L, "mosaic-query-7",
                4L, "SyncThread:0"),
            0L);

    assertThat(after.busiest(before, 2))
        .containsExactly(
            Map.entry("NIOWorkerThread-N", 5_000_000L), Map.entry("mosaic-query-N", 4_000_000L));
  }

  @Test
  void aLiveSnapshotHasThisThreadAndTheProcessCpu() {
    CpuByRole.Snapshot now = CpuByRole.take();

    assertThat(now.names()).containsValue(Thread.currentThread().getName());
    assertThat(now.processCpuNanos()).isPositive();
  }
}
