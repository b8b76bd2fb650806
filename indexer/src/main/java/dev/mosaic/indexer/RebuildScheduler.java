package dev.mosaic.indexer;

import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs rebuilds of dirty partitions when they are due (see {@link DirtyPartitions}): a ticker takes
 * the due partitions and hands each to a pool of rebuild threads.
 *
 * <p>Lifecycle: {@link #start} once, {@link #close} once. Thread safety: {@link #mark}, {@link
 * #clear} and {@link #pending} are safe from any thread.
 */
final class RebuildScheduler implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(RebuildScheduler.class);

  private final DirtyPartitions dirty;
  private final Duration debounce;
  private final Duration maxDelay;
  private final int threads;
  private final String nodeName;
  private ScheduledExecutorService ticker;
  private ExecutorService rebuilders;
  private Runnable tick = () -> {};

  RebuildScheduler(int partitions, IndexerConfig config) {
    this.dirty = new DirtyPartitions(partitions);
    this.debounce = config.debounce();
    this.maxDelay = config.maxDelay();
    this.threads = config.rebuildThreads();
    this.nodeName = config.nodeName();
  }

  /**
   * Starts ticking.
   *
   * @param caughtUp whether the consumer has read everything assigned to it
   * @param rebuild rebuilds one partition (on a rebuild thread); must call {@link #reading} before
   *     it reads the state and {@link #done} at the end
   */
  void start(BooleanSupplier caughtUp, IntConsumer rebuild) {
    rebuilders =
        Executors.newFixedThreadPool(
            threads, Thread.ofPlatform().name(nodeName + "-rebuild-", 0).factory());
    ticker =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name(nodeName + "-ticker").daemon().factory());
    // a batch's rebuilds start at most a tick after its debounce ends
    long every = Math.clamp(debounce.toMillis() / 20, 10, 50);
    tick =
        () -> {
          try {
            for (int p :
                dirty.takeDue(
                    System.nanoTime(),
                    caughtUp.getAsBoolean(),
                    debounce.toNanos(),
                    maxDelay.toNanos())) {
              rebuilders.execute(() -> rebuild.accept(p));
            }
          } catch (RuntimeException e) {
            LOG.error("scheduling rebuilds failed", e);
          }
        };
    ticker.scheduleWithFixedDelay(tick, every, every, TimeUnit.MILLISECONDS);
  }

  /** A partition changed. */
  void mark(int p) {
    dirty.mark(p, System.nanoTime());
  }

  /** A partition changed in a batch that had not changed it yet: it also waits for that batch. */
  void markInBatch(int p) {
    dirty.openBatch(p, System.nanoTime());
  }

  /**
   * A batch that changed partition {@code p} ended ({@code complete}: all its records were seen).
   *
   * @return whether the partition is now due at once (call {@link #batchesEnded} after the batch's
   *     partitions were closed)
   */
  boolean closeBatch(int p, boolean complete) {
    return dirty.closeBatch(p, complete);
  }

  /** Some partitions became due at once: take them now rather than at the next tick. */
  void batchesEnded() {
    ScheduledExecutorService t = ticker;
    if (t != null) {
      try {
        t.execute(tick);
      } catch (java.util.concurrent.RejectedExecutionException e) {
        // closing
      }
    }
  }

  /** A partition is no longer owned: forget its pending change and open batches. */
  void clear(int p) {
    dirty.forget(p);
  }

  /** A rebuild is about to read the partition's state. */
  void reading(int p) {
    dirty.readingState(p);
  }

  /** A rebuild ended (whatever its outcome). */
  void done(int p) {
    dirty.rebuilt(p);
  }

  /** Partitions waiting for a rebuild or being rebuilt. */
  int pending() {
    return dirty.pending();
  }

  /** Abandons running rebuilds (a crash, for tests). */
  void abandon() {
    if (rebuilders != null) {
      rebuilders.shutdownNow();
    }
  }

  /** Stops ticking and waits up to 30 s for running rebuilds. */
  @Override
  public void close() {
    if (ticker != null) {
      ticker.shutdownNow();
    }
    if (rebuilders != null) {
      rebuilders.shutdown();
      try {
        if (!rebuilders.awaitTermination(30, TimeUnit.SECONDS)) {
          LOG.warn("rebuilds still running after 30 s; abandoning them");
          rebuilders.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        rebuilders.shutdownNow();
      }
    }
  }
}
