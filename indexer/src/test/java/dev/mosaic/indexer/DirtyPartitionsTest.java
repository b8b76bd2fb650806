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

  private static final long DEBOUNCE = 600_000 * MS;
  private static final long MAX_DELAY = 1_200_000 * MS;

  @Test
  void partitionIsDueAsSoonAsTheOnlyBatchThatChangedItEndsComplete() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.openBatch(4, 0);
    assertThat(d.takeDue(10 * MS, false, DEBOUNCE, MAX_DELAY)).isEmpty();
    assertThat(d.closeBatch(4, true)).isTrue();
    // not caught up, nowhere near the debounce: the batch's end alone makes it due
    assertThat(d.takeDue(20 * MS, false, DEBOUNCE, MAX_DELAY)).containsExactly(4);
    d.readingState(4);
    d.rebuilt(4);
    assertThat(d.takeDue(30 * MS, false, DEBOUNCE, MAX_DELAY)).isEmpty();
    assertThat(d.pending()).isZero();
  }

  @Test
  void partitionChangedByTwoBatchesWaitsForBoth() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.openBatch(2, 0);
    d.openBatch(2, 1 * MS);
    assertThat(d.closeBatch(2, true)).isFalse();
    assertThat(d.takeDue(5 * MS, true, DEBOUNCE, MAX_DELAY)).isEmpty();
    assertThat(d.closeBatch(2, true)).isTrue();
    assertThat(d.takeDue(6 * MS, true, DEBOUNCE, MAX_DELAY)).containsExactly(2);
  }

  @Test
  void aNewBatchChangingAPartitionWhoseBatchEndedMakesItWaitAgain() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.openBatch(6, 0);
    assertThat(d.closeBatch(6, true)).isTrue();
    d.openBatch(6, 1 * MS); // before the ticker took it
    assertThat(d.takeDue(2 * MS, true, DEBOUNCE, MAX_DELAY)).isEmpty();
    assertThat(d.closeBatch(6, true)).isTrue();
    assertThat(d.takeDue(3 * MS, true, DEBOUNCE, MAX_DELAY)).containsExactly(6);
  }

  @Test
  void anIncompleteBatchLeavesItsPartitionToTheDebounce() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.openBatch(1, 0);
    assertThat(d.closeBatch(1, false)).isFalse();
    assertThat(d.takeDue(DEBOUNCE - MS, true, DEBOUNCE, MAX_DELAY)).isEmpty();
    assertThat(d.takeDue(DEBOUNCE, true, DEBOUNCE, MAX_DELAY)).containsExactly(1);
  }

  @Test
  void aBatchThatNeverEndsIsRebuiltOnceExpiredAndDoesNotHoldBackTheNextOnesForever() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.openBatch(3, 0);
    // open: neither a quiet moment nor the maximum delay takes it
    assertThat(d.takeDue(DEBOUNCE, true, DEBOUNCE, MAX_DELAY)).isEmpty();
    assertThat(d.takeDue(MAX_DELAY, true, DEBOUNCE, MAX_DELAY)).isEmpty();
    // the lost batch is expired (closed incomplete): the debounce and the maximum delay apply
    assertThat(d.closeBatch(3, false)).isFalse();
    assertThat(d.takeDue(MAX_DELAY + MS, true, DEBOUNCE, MAX_DELAY)).containsExactly(3);
    d.readingState(3);
    d.rebuilt(3);
    // a later batch ends complete
    d.openBatch(3, DEBOUNCE + MS);
    assertThat(d.closeBatch(3, true)).isTrue();
    assertThat(d.takeDue(DEBOUNCE + 2 * MS, true, DEBOUNCE, MAX_DELAY)).containsExactly(3);
  }

  @Test
  void aSlowBatchIsRebuiltOnceAtItsEndNotAtQuietMomentsOrTheMaxDelayWhileItRuns() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.openBatch(2, 0);
    d.openBatch(5, 0);
    // the loader pauses longer than the debounce, then goes on past the maximum delay
    assertThat(d.takeDue(DEBOUNCE + MS, true, DEBOUNCE, MAX_DELAY)).isEmpty();
    d.mark(2, DEBOUNCE + 2 * MS);
    assertThat(d.takeDue(MAX_DELAY + MS, true, DEBOUNCE, MAX_DELAY)).isEmpty();
    assertThat(d.closeBatch(2, true)).isTrue();
    assertThat(d.closeBatch(5, true)).isTrue();
    assertThat(d.takeDue(MAX_DELAY + 2 * MS, false, DEBOUNCE, MAX_DELAY)).containsExactly(2, 5);
  }

  @Test
  void aChangeOutsideABatchIsTakenAlongByABatchEndingOnTheSamePartition() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.mark(5, 0);
    d.openBatch(5, 1 * MS);
    assertThat(d.closeBatch(5, true)).isTrue();
    assertThat(d.takeDue(2 * MS, true, DEBOUNCE, MAX_DELAY)).containsExactly(5);
  }

  @Test
  void aForgottenPartitionHasNoOpenBatchesLeft() {
    DirtyPartitions d = new DirtyPartitions(8);
    d.openBatch(7, 0);
    d.openBatch(7, 0);
    d.forget(7);
    assertThat(d.pending()).isZero();
    d.openBatch(7, 1 * MS); // owned again
    assertThat(d.closeBatch(7, true)).isTrue();
  }
}
