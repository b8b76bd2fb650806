package dev.mosaic.searcher;

import static dev.mosaic.searcher.TestFiles.SCHEMA_VERSION;
import static dev.mosaic.searcher.TestFiles.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Query;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Thousands of reopens under query load with an unmapper slower than the reopens (each arena close
 * takes an extra 3 ms, as under a heavy handshake): open generations and mapped bytes stay within
 * the back-pressure bound, every query sees a consistent generation with the right counts, and
 * everything drains once the churn stops.
 */
class UnmapBacklogTest {
  private static final int PARTITIONS = 4;
  private static final int REOPENS = 2000;
  private static final int BACKLOG = 8;
  private static final int QUERY_THREADS = 2;

  @TempDir Path root;

  @Test
  void openGenerationsAndMappedBytesStayBoundedWhenTheUnmapperFallsBehind() throws Exception {
    try (PartitionStore store = PartitionStore.builder(root).keepVersions(2).build()) {
      store.start();
      for (int p = 0; p < PARTITIONS; p++) {
        publish(store, p, 1);
        publish(store, p, 2);
      }
      long largestFile = 0;
      for (StoredFile f : store.servingFiles(SCHEMA_VERSION).values()) {
        largestFile = Math.max(largestFile, f.sizeInBytes());
      }
      try (Generations gens =
          Generations.builder(store)
              .scanInterval(Duration.ZERO)
              .arenaGroupSize(1)
              .maxUnmapBacklog(BACKLOG)
              .beforeArenaClose(() -> LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(3)))
              .build()) {
        gens.start();
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong maxOpen = new AtomicLong();
        AtomicLong maxMapped = new AtomicLong();
        AtomicLong queries = new AtomicLong();
        ConcurrentLinkedQueue<String> wrong = new ConcurrentLinkedQueue<>();
        ExecutorService pool = Executors.newFixedThreadPool(QUERY_THREADS + 1);
        try {
          Future<?> watcher =
              pool.submit(
                  () -> {
                    while (!stop.get()) {
                      maxOpen.accumulateAndGet(gens.openGenerations(), Math::max);
                      maxMapped.accumulateAndGet(gens.mappedBytes(), Math::max);
                      Thread.onSpinWait();
                    }
                  });
          for (int t = 0; t < QUERY_THREADS; t++) {
            pool.submit(() -> queryUntil(stop, gens, queries, wrong));
          }
          // each flip changes one partition's serving file: a reopen mapping it afresh
          for (int i = 0; i < REOPENS; i++) {
            int p = i % PARTITIONS;
            if ((i / PARTITIONS) % 2 == 0) {
              store.pin(SCHEMA_VERSION, p, 1);
            } else {
              store.unpin(SCHEMA_VERSION, p);
            }
            gens.reopen().join();
          }
          stop.set(true);
          watcher.get(30, TimeUnit.SECONDS);
        } finally {
          stop.set(true);
          pool.shutdown();
          assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(gens.reopenCount()).isGreaterThanOrEqualTo(REOPENS);
        assertThat(gens.throttledReopens()).as("the slow unmapper held reopens back").isPositive();
        assertThat(wrong).isEmpty();
        assertThat(queries.get()).isPositive();
        // current + one per query thread + the backlog, and a few in between
        long openBound = 1 + QUERY_THREADS + BACKLOG + 2;
        assertThat(maxOpen.get()).isLessThanOrEqualTo(openBound);
        // each open generation maps every partition at most once more than the current one
        assertThat(maxMapped.get()).isLessThanOrEqualTo((PARTITIONS + openBound) * largestFile);
        await().atMost(Duration.ofSeconds(30)).until(() -> gens.openGenerations() == 1);
        assertThat(gens.unmapBacklog()).isZero();
        assertThat(gens.mappedPartitions()).isEqualTo(PARTITIONS);
      }
    }
  }

  /** Counts every partition's documents on one generation and checks them against its files. */
  private static void queryUntil(
      AtomicBoolean stop,
      Generations gens,
      AtomicLong queries,
      ConcurrentLinkedQueue<String> wrong) {
    while (!stop.get()) {
      try (Generation g = gens.acquire()) {
        for (var e : g.files().entrySet()) {
          long version = e.getValue().version();
          long n =
              g.database()
                  .count(
                      Query.where(
                          Condition.and(
                              Condition.eq("partition", e.getKey()),
                              Condition.eq("version", version))));
          if (n != TestFiles.documents(version)) {
            wrong.add("generation " + g.id() + " partition " + e.getKey() + ": " + n);
          }
        }
        long all = g.database().count(Query.all());
        long expected =
            g.files().values().stream().mapToLong(id -> TestFiles.documents(id.version())).sum();
        if (all != expected) {
          wrong.add("generation " + g.id() + ": " + all + " documents, expected " + expected);
        }
        queries.incrementAndGet();
      }
    }
  }
}
