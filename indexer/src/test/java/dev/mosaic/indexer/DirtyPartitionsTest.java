package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DirtyPartitionsTest {
  private static final long MS = 1_000_000L;

  @Test
  void partitionIsDueAfterTheDebounceSinceItsLastChange() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.mark(3, 0);
    d.mark(3, 500 * MS);
    assertThat(d.takeDue(1000 * MS, true, 1000 * MS, 10_000 * MS)).isEmpty();
    assertThat(d.takeDue(1500 * MS, true, 1000 * MS, 10_000 * MS)).containsExactly(3);
    assertThat(d.pending()).isEqualTo(1);
    d.rebuilt(3);
    assertThat(d.pending()).isZero();
  }

  @Test
  void constantlyChangingPartitionIsDueAfterTheMaxDelay() {
    DirtyPartitions d = new DirtyPartitions(8);
    for (long t = 0; t < 10_000; t += 100) {
      d.mark(5, t * MS);
      assertThat(d.takeDue(t * MS, true, 1000 * MS, 10_000 * MS)).isEmpty();
    }
    d.mark(5, 10_000 * MS);
    assertThat(d.takeDue(10_000 * MS, true, 1000 * MS, 10_000 * MS)).containsExactly(5);
  }

  @Test
  void changesBeforeARebuildReadsTheStateAreFoldedIntoIt() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.mark(2, 0);
    assertThat(d.takeDue(2000 * MS, true, 1000 * MS, 10_000 * MS)).containsExactly(2);
    d.mark(2, 2500 * MS); // arrives while the rebuild waits for a thread
    d.readingState(2);
    d.rebuilt(2);
    assertThat(d.pending()).isZero();
    assertThat(d.takeDue(9000 * MS, true, 1000 * MS, 10_000 * MS)).isEmpty();
  }

  @Test
  void partitionIsNeverHandedOutTwiceAtOnceAndAChangeDuringARebuildMakesItDirtyAgain() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.mark(1, 0);
    assertThat(d.takeDue(2000 * MS, true, 1000 * MS, 10_000 * MS)).containsExactly(1);
    d.mark(1, 2100 * MS);
    assertThat(d.takeDue(9000 * MS, true, 1000 * MS, 10_000 * MS)).isEmpty();
    d.rebuilt(1);
    assertThat(d.takeDue(9000 * MS, true, 1000 * MS, 10_000 * MS)).containsExactly(1);
  }

  @Test
  void aQuietPartitionWaitsWhileOtherPartitionsOfTheBatchKeepChanging() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.mark(3, 0);
    for (long t = 100; t <= 3000; t += 100) {
      d.mark(4, t * MS); // the batch goes on in another partition
      assertThat(d.takeDue(t * MS, true, 1000 * MS, 10_000 * MS)).isEmpty();
    }
    assertThat(d.takeDue(4000 * MS, true, 1000 * MS, 10_000 * MS)).containsExactly(3, 4);
  }

  @Test
  void nothingIsDueBeforeTheConsumerCaughtUpUnlessTheMaxDelayPassed() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.mark(6, 0);
    assertThat(d.takeDue(5000 * MS, false, 1000 * MS, 10_000 * MS)).isEmpty();
    assertThat(d.takeDue(10_000 * MS, false, 1000 * MS, 10_000 * MS)).containsExactly(6);
  }
}
