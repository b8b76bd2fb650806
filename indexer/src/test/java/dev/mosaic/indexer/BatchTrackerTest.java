package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BatchTrackerTest {
  private static final long BATCH = 0x1234L;

  /** Records each close; every close makes its partition due when complete. */
  private final List<String> closes = new ArrayList<>();

  private boolean close(int p, boolean complete) {
    closes.add(p + (complete ? " complete" : " incomplete"));
    return complete;
  }

  @Test
  void batchWhoseRecordsWereAllSeenClosesCompleteOnThePartitionsItChanged() {
    BatchTracker t = new BatchTracker(1_000);
    assertThat(t.record(1, BATCH, 5, true, 0)).isTrue();
    assertThat(t.record(1, BATCH, 5, true, 0)).isFalse(); // already waiting for this batch
    assertThat(t.record(1, BATCH, 9, false, 0)).isFalse(); // seen, but changed nothing
    assertThat(t.end(1, new BatchEnd(BATCH, 2, 1), this::close)).containsExactly(5);
    assertThat(closes).containsExactly("5 complete");
    assertThat(t.openBatches()).isZero();
  }

  @Test
  void markerCountingMoreRecordsThanSeenClosesIncomplete() {
    // e.g. part of the batch was read while the partition was being restored
    BatchTracker t = new BatchTracker(1_000);
    t.record(2, BATCH, 6, true, 0);
    assertThat(t.end(2, new BatchEnd(BATCH, 1, 1), this::close)).isEmpty();
    assertThat(closes).containsExactly("6 incomplete");
  }

  @Test
  void markerOfAnotherKafkaPartitionOrAnUnknownBatchClosesNothing() {
    BatchTracker t = new BatchTracker(1_000);
    t.record(2, BATCH, 6, true, 0);
    assertThat(t.end(3, new BatchEnd(BATCH, 1, 0), this::close)).isEmpty();
    assertThat(t.end(2, new BatchEnd(BATCH + 1, 1, 0), this::close)).isEmpty();
    assertThat(closes).isEmpty();
    assertThat(t.openBatches()).isEqualTo(1);
  }

  @Test
  void forgottenKafkaPartitionsBatchesNeverCloseComplete() {
    BatchTracker t = new BatchTracker(1_000);
    t.record(4, BATCH, 8, true, 0);
    t.forget(4); // revoked, then assigned again: the marker's records are not all seen here
    assertThat(t.end(4, new BatchEnd(BATCH, 1, 0), this::close)).isEmpty();
    assertThat(closes).isEmpty();
  }

  @Test
  void batchWithoutMarkerExpiresIncompleteAfterItsLastRecord() {
    BatchTracker t = new BatchTracker(1_000);
    t.record(0, BATCH, 3, true, 0);
    t.record(0, BATCH, 4, true, 500);
    t.expire(1_499, this::close);
    assertThat(closes).isEmpty();
    t.expire(1_500, this::close);
    assertThat(closes).containsExactlyInAnyOrder("3 incomplete", "4 incomplete");
    assertThat(t.openBatches()).isZero();
  }
}
