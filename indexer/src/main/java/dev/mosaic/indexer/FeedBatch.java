package dev.mosaic.indexer;

import dev.mosaic.api.feed.FeedSnapshot;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * A batch of snapshots published together (one feed cycle), made by {@link FeedLoader#batch()}. Its
 * records carry the batch id ({@link BatchEnd#BATCH_HEADER}); {@link #end()} writes a {@link
 * BatchEnd} marker to every Kafka partition the batch wrote to, which tells the indexers that the
 * batch's changes there are complete: a partition they touched is rebuilt at once, once, instead of
 * after the rebuild debounce. A batch that never ends is rebuilt by the debounce.
 *
 * <p>Thread safety: {@link #publish} may be called from several threads at once (different partners
 * in parallel); {@link #end()} once, after every publish returned.
 */
public final class FeedBatch implements AutoCloseable {
  private final FeedLoader loader;
  private final long id;
  private final byte[] idHeader;
  private final AtomicLongArray upserts;
  private final AtomicLongArray tombstones;
  private int inFlight;
  private boolean ended;

  FeedBatch(FeedLoader loader, int kafkaPartitions) {
    this.loader = loader;
    long random;
    do {
      random = ThreadLocalRandom.current().nextLong();
    } while (random == BatchEnd.NONE);
    this.id = random;
    this.idHeader = BatchEnd.batchHeaderValue(random);
    this.upserts = new AtomicLongArray(kafkaPartitions);
    this.tombstones = new AtomicLongArray(kafkaPartitions);
  }

  /** The batch id its records and markers carry. */
  public long id() {
    return id;
  }

  /** Publishes a snapshot (one serialized {@link FeedSnapshot}) in this batch. */
  public FeedLoader.PublishResult publish(byte[] serializedSnapshot)
      throws IOException, InterruptedException {
    return publish(() -> SnapshotBytes.read(serializedSnapshot));
  }

  /** Publishes a snapshot file in this batch; see {@link FeedLoader#publish(Path)}. */
  public FeedLoader.PublishResult publish(Path snapshotFile)
      throws IOException, InterruptedException {
    return publish(() -> FeedLoader.readSnapshotFile(snapshotFile));
  }

  private interface SnapshotSource {
    SnapshotBytes read() throws IOException;
  }

  private FeedLoader.PublishResult publish(SnapshotSource source)
      throws IOException, InterruptedException {
    begin();
    try {
      return loader.publish(source.read(), this);
    } finally {
      finish();
    }
  }

  /** Publishes a snapshot in this batch; see {@link FeedLoader#publish(FeedSnapshot)}. */
  public FeedLoader.PublishResult publish(FeedSnapshot snapshot)
      throws IOException, InterruptedException {
    OfferKeys.checkPartnerId(snapshot.getPartnerId());
    return publish(snapshot.toByteArray());
  }

  private synchronized void begin() {
    if (ended) {
      throw new IllegalStateException("batch " + Long.toHexString(id) + " has ended");
    }
    inFlight++;
  }

  private synchronized void finish() {
    inFlight--;
  }

  /** The value of the {@link BatchEnd#BATCH_HEADER} header (shared, never modified). */
  byte[] idHeader() {
    return idHeader;
  }

  /** Counts a record handed to the producer for Kafka partition {@code k}. */
  void counted(int k, boolean tombstone) {
    (tombstone ? tombstones : upserts).incrementAndGet(k);
  }

  /** The marker for Kafka partition {@code k}, or null when the batch wrote nothing there. */
  BatchEnd endOf(int k) {
    long u = upserts.get(k);
    long t = tombstones.get(k);
    return u + t == 0 ? null : new BatchEnd(id, u, t);
  }

  int kafkaPartitions() {
    return upserts.length();
  }

  /**
   * Ends the batch: writes its markers and waits until Kafka acknowledged them. Idempotent.
   *
   * @throws IllegalStateException if a publish of this batch is still running
   * @throws IOException if a marker was not acknowledged (the indexers then rebuild the batch's
   *     partitions after their debounce)
   */
  public void end() throws IOException, InterruptedException {
    synchronized (this) {
      if (inFlight > 0) {
        throw new IllegalStateException(
            "batch " + Long.toHexString(id) + " cannot end: " + inFlight + " publishes running");
      }
      if (ended) {
        return;
      }
      ended = true;
    }
    loader.endBatch(this);
  }

  /** Same as {@link #end()}. */
  @Override
  public void close() throws IOException, InterruptedException {
    end();
  }
}
