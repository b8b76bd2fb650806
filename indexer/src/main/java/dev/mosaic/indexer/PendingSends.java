package dev.mosaic.indexer;

import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Counts one publish's records in flight and remembers the first failure: one callback object for
 * all of them instead of a future per record, and a wait for exactly these records (not a producer
 * flush, which would also wait for other partners' records).
 *
 * <p>Thread safety: safe for concurrent use; callbacks come from the producer's I/O thread.
 */
final class PendingSends implements Callback {
  private int pending;
  private Exception failure;
  private long lastCompletionNanos;

  /** Called before each send. */
  synchronized void add() {
    pending++;
  }

  @Override
  public synchronized void onCompletion(RecordMetadata metadata, Exception exception) {
    if (exception != null && failure == null) {
      failure = exception;
    }
    lastCompletionNanos = System.nanoTime();
    if (--pending == 0) {
      notifyAll();
    }
  }

  /** Undoes {@link #add} for a record whose send threw before it was accepted. */
  synchronized void cancel() {
    if (--pending == 0) {
      notifyAll();
    }
  }

  /** When the last record completed ({@link System#nanoTime}), or 0 when none did. */
  synchronized long lastCompletionNanos() {
    return lastCompletionNanos;
  }

  /**
   * Waits until every record sent is acknowledged or failed.
   *
   * @return the first failure, or null when all were acknowledged
   */
  synchronized Exception await() throws InterruptedException {
    while (pending > 0) {
      wait();
    }
    return failure;
  }
}
