package dev.mosaic.searcher;

import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Retires the generations of {@link Generations} that everyone released, on its own thread: drops
 * each partition's use by the generation and closes the arenas no generation uses any more (each
 * close a handshake with every thread, never on a query thread). Counts the retired generations
 * still to process and holds reopens back while there are too many of them.
 *
 * <p>Thread safety: safe for concurrent use. The mappings are touched under the generations' books
 * lock, arenas are closed outside it.
 */
final class Unmapper {
  // logs under the generations' name: unmapping is the generations' story
  private static final Logger LOG = LoggerFactory.getLogger(Generations.class);

  private final ExecutorService executor;
  private final Object books;
  private final PartitionMappings mappings;

  /** Null unless grouping is on. */
  private final BackgroundGrouping grouping;

  private final AtomicLong openGenerations;
  private final int maxUnmapBacklog;
  private final BooleanSupplier started;
  private final Timer reopenThrottle;
  // generations released by everyone whose partitions the unmapper has not yet processed
  private final AtomicLong unmapBacklog;
  private final Object unmapProgress = new Object();

  /**
   * @param books the generations' books lock, guarding {@code mappings}
   * @param started whether the generations are still started (a held-back reopen stops waiting when
   *     not)
   */
  Unmapper(
      Object books,
      PartitionMappings mappings,
      BackgroundGrouping grouping,
      AtomicLong openGenerations,
      AtomicLong unmapBacklog,
      int maxUnmapBacklog,
      BooleanSupplier started,
      Timer reopenThrottle) {
    this.books = books;
    this.mappings = mappings;
    this.grouping = grouping;
    this.openGenerations = openGenerations;
    this.unmapBacklog = unmapBacklog;
    this.maxUnmapBacklog = maxUnmapBacklog;
    this.started = started;
    this.reopenThrottle = reopenThrottle;
    this.executor =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "mosaic-unmapper");
              t.setDaemon(true);
              return t;
            });
  }

  /** Called by a generation whose last reference was released. */
  void retire(Generation g) {
    unmapBacklog.incrementAndGet();
    try {
      executor.execute(() -> doRetire(g));
    } catch (RejectedExecutionException e) {
      doRetire(g); // closed: the last holders retire inline
    }
  }

  /**
   * Back-pressure: holds the reopen (maintenance thread, outside the books lock) while the unmapper
   * has {@code maxUnmapBacklog} or more retired generations to process, so mapped generations and
   * bytes stay bounded when arena closes are slower than reopens. Store events arriving meanwhile
   * coalesce into the next reopen. Returns at once when closing.
   */
  void awaitBacklog() {
    if (unmapBacklog.get() < maxUnmapBacklog) {
      return;
    }
    long t0 = System.nanoTime();
    long warnAt = t0 + TimeUnit.SECONDS.toNanos(10);
    synchronized (unmapProgress) {
      while (unmapBacklog.get() >= maxUnmapBacklog && started.getAsBoolean()) {
        try {
          unmapProgress.wait(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          return;
        }
        if (System.nanoTime() - warnAt > 0) {
          LOG.warn(
              "reopen held back for {} s: the unmapper still has {} retired generations to process",
              TimeUnit.NANOSECONDS.toSeconds(System.nanoTime() - t0),
              unmapBacklog.get());
          warnAt += TimeUnit.SECONDS.toNanos(10);
        }
      }
    }
    reopenThrottle.record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
  }

  /**
   * Stops taking work and waits up to 30 s for the retirements queued so far; later retirements run
   * inline on the releasing thread.
   */
  void shutdown() {
    executor.shutdown();
    try {
      if (!executor.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("unmapper thread did not stop within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void doRetire(Generation g) {
    try {
      if (grouping != null) {
        grouping.release(g.database());
      }
      List<SharedArena> unused = new ArrayList<>();
      synchronized (books) {
        openGenerations.decrementAndGet();
        for (int i = 0; i < g.partitionCount(); i++) {
          MappedPartition m = g.mappedAt(i);
          if (m.decGenerations()) {
            mappings.forget(m.file().id());
            if (m.arena().retired()) {
              unused.add(m.arena());
            }
          }
        }
      }
      for (SharedArena a : unused) {
        mappings.closeArena(a);
      }
    } finally {
      unmapBacklog.decrementAndGet();
      synchronized (unmapProgress) {
        unmapProgress.notifyAll();
      }
    }
  }
}
