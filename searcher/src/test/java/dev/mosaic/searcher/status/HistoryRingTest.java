package dev.mosaic.searcher.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class HistoryRingTest {

  @Test
  void keepsTheLastCapacityItemsOldestFirstAgainstADequeReference() {
    for (long seed = 1; seed <= 20; seed++) {
      Random r = new Random(seed);
      int capacity = 1 + r.nextInt(40);
      HistoryRing<Integer> ring = new HistoryRing<>(capacity);
      Deque<Integer> reference = new ArrayDeque<>();
      int adds = r.nextInt(200);
      for (int i = 0; i < adds; i++) {
        ring.add(i);
        reference.addLast(i);
        if (reference.size() > capacity) {
          reference.removeFirst();
        }
        if (r.nextInt(10) == 0) {
          assertThat(ring.snapshot())
              .as("seed %d after %d adds", seed, i + 1)
              .containsExactlyElementsOf(reference);
        }
      }
      assertThat(ring.snapshot()).as("seed %d", seed).containsExactlyElementsOf(reference);
      assertThat(ring.size()).isEqualTo(reference.size()).isLessThanOrEqualTo(capacity);
      assertThat(ring.added()).isEqualTo(adds);
    }
  }

  @Test
  void neverHoldsMoreThanItsCapacity() {
    HistoryRing<Long> ring = new HistoryRing<>(900);
    for (long i = 0; i < 100_000; i++) {
      ring.add(i);
    }
    List<Long> held = ring.snapshot();
    assertThat(held).hasSize(900);
    assertThat(held.getFirst()).isEqualTo(100_000 - 900);
    assertThat(held.getLast()).isEqualTo(99_999);
  }

  @Test
  void concurrentWritersLoseNothingRecentAndKeepEachWritersOrder() throws Exception {
    int writers = 4;
    int perWriter = 20_000;
    int capacity = 1000;
    HistoryRing<long[]> ring = new HistoryRing<>(capacity);
    ExecutorService pool = Executors.newFixedThreadPool(writers + 1);
    CountDownLatch go = new CountDownLatch(1);
    CountDownLatch readerStarted = new CountDownLatch(1);
    AtomicBoolean writing = new AtomicBoolean(true);
    try {
      List<Future<?>> done = new ArrayList<>();
      for (int w = 0; w < writers; w++) {
        long writer = w;
        done.add(
            pool.submit(
                () -> {
                  go.await();
                  readerStarted.await();
                  for (long i = 0; i < perWriter; i++) {
                    ring.add(new long[] {writer, i});
                  }
                  return null;
                }));
      }
      // a reader meanwhile: every snapshot is bounded and in each writer's order
      Future<Integer> reader =
          pool.submit(
              () -> {
                go.await();
                int snapshots = 0;
                do {
                  assertOrderedPerWriter(ring.snapshot(), writers, capacity);
                  snapshots++;
                  readerStarted.countDown(); // the writers start once the reader reads
                } while (writing.get());
                return snapshots;
              });
      go.countDown();
      for (Future<?> f : done) {
        f.get();
      }
      writing.set(false);
      assertThat(reader.get()).as("snapshots taken while writing").isPositive();
    } finally {
      pool.shutdownNow();
    }
    List<long[]> held = ring.snapshot();
    assertThat(held).hasSize(capacity);
    assertThat(ring.added()).isEqualTo((long) writers * perWriter);
    assertOrderedPerWriter(held, writers, capacity);
    // the very last item of at least one writer is the newest held
    long[] newest = held.getLast();
    assertThat(newest[1]).isEqualTo(perWriter - 1);
  }

  private static void assertOrderedPerWriter(List<long[]> held, int writers, int capacity) {
    assertThat(held.size()).isLessThanOrEqualTo(capacity);
    long[] last = new long[writers];
    java.util.Arrays.fill(last, -1);
    for (long[] item : held) {
      int w = (int) item[0];
      assertThat(item[1]).as("writer %d's items in order", w).isGreaterThan(last[w]);
      last[w] = item[1];
    }
  }

  @Test
  void refusesANonPositiveCapacityAndNullItems() {
    assertThatThrownBy(() -> new HistoryRing<>(0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("capacity must be >= 1, got 0");
    assertThatThrownBy(() -> new HistoryRing<String>(3).add(null))
        .isInstanceOf(NullPointerException.class);
  }
}
