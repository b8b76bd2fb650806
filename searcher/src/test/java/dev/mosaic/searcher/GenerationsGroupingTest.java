package dev.mosaic.searcher;

import static dev.mosaic.searcher.TestFiles.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.PartitionGroup;
import dev.mosaic.format.PartitionGrouping;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * With {@link Generations.Builder#partitionGrouping} the searcher merges blocks of partitions into
 * groups in the background and its generations query them: results stay those of the ungrouped
 * partitions, a replaced partition is served at once (beside its old group) and its block is merged
 * again, and no group file is left once the generations are closed; with a minimum of partitions, a
 * smaller store is served ungrouped and merges nothing.
 */
class GenerationsGroupingTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path root;

  @Test
  void generationsQueryBackgroundGroupsAndServeAReplacedPartitionAtOnce() throws Exception {
    Path groups = Files.createDirectories(root.resolve("groups"));
    try (PartitionStore store = storeOfPartitions(8)) {
      try (Generations gens =
          Generations.builder(store)
              .scanInterval(Duration.ZERO)
              .partitionGrouping(new PartitionGrouping.Config(groups, 4))
              .build()) {
        gens.start();
        await().atMost(WAIT).until(() -> fullyGrouped(gens));
        assertAnswersAsUngrouped(gens);

        publish(store, 3, 2);
        gens.reopen().get(30, TimeUnit.SECONDS);
        try (Generation g = gens.acquire()) {
          assertThat(g.files().get(3).version()).isEqualTo(2);
        }
        assertAnswersAsUngrouped(gens); // before or after the block's new merge alike
        await().atMost(WAIT).until(() -> fullyGrouped(gens));
        assertAnswersAsUngrouped(gens);
      }
      await().atMost(WAIT).until(() -> groupFiles(groups).isEmpty());
    }
  }

  @Test
  void groupingWaitsUntilTheStoreServesItsMinimumOfPartitions() throws Exception {
    Path groups = Files.createDirectories(root.resolve("groups"));
    try (PartitionStore store = storeOfPartitions(7)) {
      try (Generations gens =
          Generations.builder(store)
              .scanInterval(Duration.ZERO)
              .partitionGrouping(new PartitionGrouping.Config(groups, 4), 8)
              .build()) {
        gens.start();
        await().atMost(WAIT).until(gens::isReady);
        publish(store, 2, 2); // a replaced partition starts no merge either
        gens.reopen().get(30, TimeUnit.SECONDS);
        try (Generation g = gens.acquire()) {
          assertThat(g.database().partitions()).hasSize(7);
          assertThat(g.database().groups()).as("7 partitions, grouped from 8").isEmpty();
        }
        assertThat(groupFiles(groups)).as("no merge below the minimum").isEmpty();
        assertAnswersAsUngrouped(gens);

        publish(store, 7, 1);
        gens.reopen().get(30, TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> fullyGrouped(gens));
        assertAnswersAsUngrouped(gens);
      }
    }
  }

  @Test
  void noGroupIsMergedWhilePartitionsKeepArrivingAndTheBlockIsMergedOnceTheySettle()
      throws Exception {
    Path groups = Files.createDirectories(root.resolve("groups"));
    try (PartitionStore store = storeOfPartitions(8)) {
      try (Generations gens =
          Generations.builder(store)
              .scanInterval(Duration.ZERO)
              .partitionGrouping(new PartitionGrouping.Config(groups, 4))
              .groupMergeSettle(Duration.ofSeconds(5))
              .build()) {
        gens.start();
        await().atMost(WAIT).until(() -> fullyGrouped(gens));
        List<PartitionGroup> before;
        try (Generation g = gens.acquire()) {
          before = g.database().groups();
        }
        long started = System.nanoTime();
        for (int v = 2; v <= 6; v++) {
          publish(store, 1, v);
          gens.reopen().get(30, TimeUnit.SECONDS);
        }
        try (Generation g = gens.acquire()) {
          assertThat(g.files().get(1).version()).isEqualTo(6);
          if (System.nanoTime() - started < Duration.ofSeconds(5).toNanos()) {
            assertThat(g.database().groups())
                .as("no merge within the settle time of the last replacement")
                .isEqualTo(before);
          }
        }
        assertAnswersAsUngrouped(gens);
        await().atMost(WAIT).until(() -> fullyGrouped(gens));
        assertAnswersAsUngrouped(gens);
      }
    }
  }

  /** A started store holding version 1 of partitions 0 to {@code n - 1}. */
  private PartitionStore storeOfPartitions(int n) throws Exception {
    PartitionStore store = PartitionStore.builder(root.resolve("store")).build();
    store.start();
    for (int p = 0; p < n; p++) {
      publish(store, p, 1);
    }
    return store;
  }

  /** True when the current generation's two blocks are each one group of its partitions. */
  private static boolean fullyGrouped(Generations gens) {
    if (!gens.isReady()) {
      return false;
    }
    try (Generation g = gens.acquire()) {
      List<Database> partitions = g.database().partitions();
      List<PartitionGroup> groups = g.database().groups();
      if (groups.size() != 2) {
        return false;
      }
      List<Database> members = new ArrayList<>();
      groups.forEach(group -> members.addAll(group.members()));
      for (int i = 0; i < partitions.size(); i++) {
        if (members.size() != partitions.size() || members.get(i) != partitions.get(i)) {
          return false;
        }
      }
      return true;
    }
  }

  private static void assertAnswersAsUngrouped(Generations gens) {
    try (Generation g = gens.acquire()) {
      CompositeDatabase served = g.database();
      CompositeDatabase plain = CompositeDatabase.of(served.schema(), served.partitions());
      for (Query q :
          List.of(
              Query.all(),
              Query.where(Condition.eq("color", "red")),
              Query.where(Condition.eq("color", "blue"))
                  .orderBy(Order.desc("version"), Order.asc("row"))
                  .skip(2)
                  .limit(7))) {
        assertThat(served.count(q)).as("count " + q).isEqualTo(plain.count(q));
        assertThat(payloads(served, q)).as("documents " + q).isEqualTo(payloads(plain, q));
      }
    }
  }

  private static List<String> payloads(CompositeDatabase db, Query q) {
    List<String> out = new ArrayList<>();
    db.execute(
        q,
        (doc, partition) -> {
          out.add(new String(partition.payloadBytes(doc)));
          return true;
        });
    return out;
  }

  private static List<Path> groupFiles(Path dir) throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }
}
