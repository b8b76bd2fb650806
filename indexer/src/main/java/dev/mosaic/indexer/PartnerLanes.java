package dev.mosaic.indexer;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import java.util.stream.IntStream;

/**
 * Runs a task over a list of items in lanes: items with the same lane key (a partner's snapshots)
 * one at a time, in the list's order; different lanes at once, on a fixed pool of threads. So a
 * feed cycle's partners are diffed and published in parallel, as the benchmarks and the {@link
 * FeedBatch} API allow, while a partner's snapshots never overtake each other. With one thread,
 * everything runs on the calling thread, in the list's order.
 *
 * <p>Lifecycle: {@link #close} once; after it, a {@link #run} of several lanes is rejected. Thread
 * safety: {@link #run} from one thread at a time (the follower's); the task runs on the lanes'
 * threads.
 */
final class PartnerLanes implements AutoCloseable {
  /** One item's work. */
  @FunctionalInterface
  interface LaneTask<T> {
    /**
     * Handles one item.
     *
     * @return false to stop its lane: the lane's later items are not run (e.g. closing)
     */
    boolean handle(T item) throws InterruptedException;
  }

  /** One index's work, for {@link #each}. */
  @FunctionalInterface
  interface IndexTask {
    void handle(int index) throws InterruptedException;
  }

  private final ExecutorService pool;

  /**
   * @param threads lanes run at once, >= 1
   * @param name the threads' name prefix
   */
  PartnerLanes(int threads, String name) {
    if (threads < 1) {
      throw new IllegalArgumentException("threads must be >= 1, got " + threads);
    }
    this.pool =
        threads == 1
            ? null
            : Executors.newFixedThreadPool(
                threads, Thread.ofPlatform().name(name, 0).daemon().factory());
  }

  /**
   * Runs {@code task} over {@code items} in lanes and waits for every lane.
   *
   * @return per item, whether its task ran and returned true
   * @throws InterruptedException if interrupted while waiting (running tasks are interrupted)
   * @throws RuntimeException the first task's unexpected exception (or error), after every lane
   *     ended; the lane that threw stops there
   */
  <T> boolean[] run(List<T> items, Function<T, ?> laneOf, LaneTask<T> task)
      throws InterruptedException {
    boolean[] done = new boolean[items.size()];
    Map<Object, List<Integer>> lanes = new LinkedHashMap<>();
    for (int i = 0; i < items.size(); i++) {
      lanes.computeIfAbsent(laneOf.apply(items.get(i)), k -> new ArrayList<>()).add(i);
    }
    if (pool == null || lanes.size() == 1) {
      for (List<Integer> lane : lanes.values()) {
        runLane(items, lane, task, done);
      }
      return done;
    }
    List<Future<?>> running = new ArrayList<>(lanes.size());
    for (List<Integer> lane : lanes.values()) {
      running.add(
          pool.submit(
              () -> {
                runLane(items, lane, task, done);
                return null;
              }));
    }
    RuntimeException first = null;
    try {
      for (Future<?> f : running) {
        try {
          f.get();
        } catch (ExecutionException e) {
          if (first == null) {
            first =
                e.getCause() instanceof RuntimeException r
                    ? r
                    : new IllegalStateException("a lane failed: " + e.getCause(), e.getCause());
          }
        }
      }
    } catch (InterruptedException e) {
      running.forEach(f -> f.cancel(true));
      throw e;
    }
    if (first != null) {
      throw first;
    }
    // the lanes' writes to done happen before their futures complete, so they are visible here
    return done;
  }

  /**
   * Runs {@code task} for every index in {@code [0, count)}, each its own lane: as many at once as
   * there are threads (e.g. reading every snapshot of a batch before any is published).
   */
  void each(int count, IndexTask task) throws InterruptedException {
    run(
        IntStream.range(0, count).boxed().toList(),
        i -> i,
        i -> {
          task.handle(i);
          return true;
        });
  }

  private static <T> void runLane(
      List<T> items, List<Integer> lane, LaneTask<T> task, boolean[] done)
      throws InterruptedException {
    for (int i : lane) {
      if (!task.handle(items.get(i))) {
        return;
      }
      done[i] = true;
    }
  }

  /** Stops the threads (a running task is interrupted); idempotent. */
  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
