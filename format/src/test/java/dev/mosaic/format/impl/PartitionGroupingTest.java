package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.CompositeDictionaryTest.SCHEMA;
import static dev.mosaic.format.impl.CompositeDictionaryTest.partition;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.PartitionGroup;
import dev.mosaic.format.PartitionGrouping;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A {@link PartitionGrouping} driven as a searcher drives it (compose a generation, release the
 * previous one, partitions replaced between generations, merges run when the executor gets to
 * them): every composite answers as the ungrouped one, the blocks end up grouped once replacements
 * stop, and superseded group files are deleted once no composite holds them. The executor is a
 * queue run by the test, so the interleaving of merges and generations is seeded, not timed.
 * Reproduce a failure with {@code -Dtests.seed=<seed>}.
 */
class PartitionGroupingTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  @TempDir Path dir;

  @Test
  void generationsAnswerAsUngroupedWhileBlocksAreMergedAndSupersededGroupsAreDeleted()
      throws Exception {
    Random random = new Random(SEED);
    Queue<Runnable> tasks = new ArrayDeque<>();
    int[] merged = {0};
    List<Database> partitions = new ArrayList<>();
    for (int p = 0; p < 19; p++) {
      partitions.add(partition(random, p));
    }
    PartitionGrouping grouping =
        new PartitionGrouping(new PartitionGrouping.Config(dir, 4), tasks::add, () -> merged[0]++);
    CompositeDatabase current = null;
    try {
      for (int generation = 0; generation < 30; generation++) {
        CompositeDatabase next = grouping.compose(current, SCHEMA, partitions);
        if (current != null) {
          grouping.release(current);
        }
        current = next;
        GroupedCompositeTest.check(
            random,
            current,
            partitions,
            "seed " + SEED + ", generation " + generation,
            Runnable::run);
        for (int n = random.nextInt(3); n > 0 && !tasks.isEmpty(); n--) {
          tasks.poll().run();
        }
        if (generation < 20 && random.nextInt(3) == 0) {
          partitions = new ArrayList<>(partitions);
          partitions.set(random.nextInt(partitions.size()), partition(random, 100 + generation));
        }
      }
      // replacements stopped: every block gets its group
      for (int round = 0; round < 10; round++) {
        CompositeDatabase next = grouping.compose(current, SCHEMA, partitions);
        grouping.release(current);
        current = next;
        while (!tasks.isEmpty()) {
          tasks.poll().run();
        }
      }
      assertThat(grouping.failedMerges()).as("failed merges").isZero();
      assertThat(merged[0]).isEqualTo(grouping.merges());
      assertThat(((CompositeReader) current).units())
          .as("units once every block of 4 (and the last of 3) is grouped")
          .isEqualTo(5);
      GroupedCompositeTest.check(random, current, partitions, "seed " + SEED, Runnable::run);
      assertThat(groupFiles())
          .as("group files: the current groups only, superseded ones deleted")
          .containsExactlyInAnyOrderElementsOf(
              grouping.groups().stream().map(PartitionGroup::file).toList());
    } finally {
      if (current != null) {
        grouping.release(current);
      }
      grouping.close();
      partitions.forEach(Database::close);
    }
    assertThat(groupFiles()).as("group files after close").isEmpty();
  }

  private List<Path> groupFiles() throws Exception {
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }
}
