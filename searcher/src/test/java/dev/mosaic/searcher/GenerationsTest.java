package dev.mosaic.searcher;

import static dev.mosaic.searcher.TestFiles.SCHEMA_VERSION;
import static dev.mosaic.searcher.TestFiles.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.RejectedFileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GenerationsTest {
  private static final Duration WAIT = Duration.ofSeconds(30);

  @TempDir Path root;

  private PartitionStore store(int keep) throws IOException {
    PartitionStore s = PartitionStore.builder(root).keepVersions(keep).build();
    s.start();
    return s;
  }

  private static Generations generations(PartitionStore store, int groupSize) {
    Generations g =
        Generations.builder(store)
            .scanInterval(Duration.ZERO)
            .arenaGroupSize(groupSize)
            .bulkReopenPartitions(1)
            .arenaFillWindow(Duration.ZERO) // arenas per reopen, whatever the test's speed
            .build();
    g.start();
    return g;
  }

  private static long mappedBytesOf(
      PartitionStore store, SortedMap<Integer, PartitionFileId> files) {
    long n = 0;
    for (PartitionFileId id : files.values()) {
      n += store.storedFile(id).orElseThrow().sizeInBytes();
    }
    return n;
  }

  @Test
  void notReadyUntilTheStoreHoldsAFileThenReadyAfterThePublishEvent() throws Exception {
    try (PartitionStore store = store(2);
        Generations gens = generations(store, 1)) {
      assertThat(gens.isReady()).isFalse();
      assertThatThrownBy(gens::acquire)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("no generation is open yet");
      publish(store, 0, 1);
      await().atMost(WAIT).until(gens::isReady);
      try (Generation g = gens.acquire()) {
        assertThat(g.database().count(Query.all())).isEqualTo(TestFiles.documents(1));
        assertThat(g.files()).containsEntry(0, new PartitionFileId(SCHEMA_VERSION, 0, 1));
      }
    }
  }

  @Test
  void nextGenerationReusesUnchangedPartitionsAndMapsOnlyTheNewOne() throws Exception {
    try (PartitionStore store = store(2)) {
      for (int p = 0; p < 8; p++) {
        publish(store, p, 1);
      }
      try (Generations gens = generations(store, 1)) {
        Database before;
        Database replacedBefore;
        try (Generation g = gens.acquire()) {
          before = g.database().partitions().get(1);
          replacedBefore = g.database().partitions().get(3);
        }
        publish(store, 3, 2);
        long id = gens.reopen().get(30, TimeUnit.SECONDS);
        try (Generation g = gens.acquire()) {
          assertThat(g.id()).isEqualTo(id);
          assertThat(g.database().partitions().get(1)).isSameAs(before);
          assertThat(g.database().partitions().get(3)).isNotSameAs(replacedBefore);
          assertThat(g.files().get(3).version()).isEqualTo(2);
        }
        // a reopen with nothing changed keeps the generation
        assertThat(gens.reopen().get(30, TimeUnit.SECONDS)).isEqualTo(id);
      }
    }
  }

  @Test
  void retiredPartitionIsUnmappedOnlyAfterTheLastHolderReleasesAndThenItsFileIsDeleted()
      throws Exception {
    try (PartitionStore store = store(1)) {
      publish(store, 0, 1);
      publish(store, 1, 1);
      try (Generations gens = generations(store, 1)) {
        Generation held = gens.acquire();
        Database old = held.database().partitions().get(0);
        Path oldFile = store.file(new PartitionFileId(SCHEMA_VERSION, 0, 1)).orElseThrow();
        publish(store, 0, 2);
        gens.reopen().get(30, TimeUnit.SECONDS);
        assertThat(gens.openGenerations()).isEqualTo(2);
        // the held generation still answers, from the old version, while a newer one serves
        assertThat(held.database().count(Query.where(Condition.eq("version", 1L))))
            .isEqualTo(TestFiles.documents(1) * 2L);
        assertThat(old.sortableValue(0, "version")).isEqualTo(1L);
        assertThat(oldFile).exists(); // K=1 but still mapped
        assertThat(gens.mappedPartitions()).isEqualTo(3);

        held.close();
        await().atMost(WAIT).until(() -> gens.openGenerations() == 1);
        await().atMost(WAIT).until(() -> gens.mappedPartitions() == 2);
        assertThatThrownBy(() -> old.sortableValue(0, "version"))
            .isInstanceOf(IllegalStateException.class);
        await().atMost(WAIT).until(() -> !Files.exists(oldFile));
        try (Generation g = gens.acquire()) {
          assertThat(gens.mappedBytes()).isEqualTo(mappedBytesOf(store, g.files()));
        }
      }
    }
  }

  @Test
  void aForgottenReleaseShowsInTheCountsAndKeepsTheOldPartitionMapped() throws Exception {
    try (PartitionStore store = store(2)) {
      publish(store, 0, 1);
      try (Generations gens = generations(store, 1)) {
        Generation leaked = gens.acquire();
        assertThat(leaked.referenceCount()).isEqualTo(2);
        for (long v = 2; v <= 4; v++) {
          publish(store, 0, v);
          gens.reopen().get(30, TimeUnit.SECONDS);
        }
        await().atMost(WAIT).until(() -> gens.openGenerations() == 2);
        assertThat(gens.mappedPartitions()).isEqualTo(2);
        leaked.close();
        await().atMost(WAIT).until(() -> gens.openGenerations() == 1);
        assertThat(gens.mappedPartitions()).isEqualTo(1);
        assertThatThrownBy(leaked::close)
            .isInstanceOf(IllegalStateException.class)
            .hasMessageContaining("released more often than acquired");
      }
    }
  }

  @Test
  void partitionsMappedByOneReopenShareArenasOfTheGroupSize() throws Exception {
    try (PartitionStore store = store(2)) {
      for (int p = 0; p < 10; p++) {
        publish(store, p, 1);
      }
      try (Generations gens = generations(store, 4)) {
        assertThat(gens.openArenas()).isEqualTo(3); // 4 + 4 + 2
        assertThat(gens.mappedPartitions()).isEqualTo(10);
        // replacing one partition of the first group keeps the whole group mapped...
        publish(store, 0, 2);
        gens.reopen().get(30, TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> gens.openGenerations() == 1);
        assertThat(gens.openArenas()).isEqualTo(4);
        assertThat(gens.mappedPartitions()).isEqualTo(11);
        // ...until every partition of it retired: then one close unmaps them all
        for (int p = 1; p < 4; p++) {
          publish(store, p, 2);
        }
        gens.reopen().get(30, TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> gens.unmapCount() == 1);
        assertThat(gens.mappedPartitions()).isEqualTo(10);
        try (Generation g = gens.acquire()) {
          assertThat(gens.mappedBytes()).isEqualTo(mappedBytesOf(store, g.files()));
        }
      }
    }
  }

  @Test
  void reopensWithinTheFillWindowKeepFillingTheLastArena() throws Exception {
    try (PartitionStore store = store(2)) {
      for (int p = 0; p < 2; p++) {
        publish(store, p, 1);
      }
      try (Generations gens =
          Generations.builder(store)
              .scanInterval(Duration.ZERO)
              .arenaGroupSize(4)
              .bulkReopenPartitions(1)
              .arenaFillWindow(Duration.ofHours(1))
              .build()) {
        gens.start();
        assertThat(gens.openArenas()).isEqualTo(1);
        // two more reopens of one new partition each: into the arena of the first (2 + 1 + 1)
        for (int p = 2; p < 4; p++) {
          publish(store, p, 1);
          gens.reopen().get(30, TimeUnit.SECONDS);
        }
        assertThat(gens.openArenas()).isEqualTo(1);
        assertThat(gens.mappedPartitions()).isEqualTo(4);
        // the arena is full: the next reopen opens another
        publish(store, 4, 1);
        gens.reopen().get(30, TimeUnit.SECONDS);
        assertThat(gens.openArenas()).isEqualTo(2);
        // replacing the four partitions of the first arena unmaps them with one close; the
        // replacements fill the second arena (1 + 3) and open a third
        for (int p = 0; p < 4; p++) {
          publish(store, p, 2);
        }
        gens.reopen().get(30, TimeUnit.SECONDS);
        await().atMost(WAIT).until(() -> gens.unmapCount() == 1);
        assertThat(gens.openArenas()).isEqualTo(2);
        assertThat(gens.mappedPartitions()).isEqualTo(5);
        try (Generation g = gens.acquire()) {
          assertThat(g.files().values()).allMatch(id -> id.partition() == 4 || id.version() == 2);
          assertThat(gens.mappedBytes()).isEqualTo(mappedBytesOf(store, g.files()));
        }
      }
    }
  }

  /**
   * Files arriving within the reopen delay of the first one are served by one reopen, which maps
   * them into shared arenas: a feed cycle's arrivals cost a few generations and arena closes, not
   * one each.
   */
  @Test
  void filesArrivingWithinTheReopenDelayAreServedByOneReopen() throws Exception {
    try (PartitionStore store = store(2)) {
      publish(store, 0, 1);
      try (Generations gens =
          Generations.builder(store)
              .scanInterval(Duration.ZERO)
              .arenaGroupSize(16)
              .bulkReopenPartitions(2)
              .reopenDelay(Duration.ofSeconds(5))
              .build()) {
        gens.start();
        long reopens = gens.reopenCount();
        long arenas = gens.openArenas();
        long t0 = System.nanoTime();
        for (int p = 1; p <= 8; p++) {
          publish(store, p, 1);
        }
        assertThat(Duration.ofNanos(System.nanoTime() - t0))
            .as("publishing must be quicker than the delay for this test to mean anything")
            .isLessThan(Duration.ofSeconds(5));
        await()
            .atMost(WAIT)
            .until(
                () -> {
                  try (Generation g = gens.acquire()) {
                    return g.files().size() == 9;
                  }
                });
        assertThat(Duration.ofNanos(System.nanoTime() - t0))
            .as("served only after the delay")
            .isGreaterThanOrEqualTo(Duration.ofSeconds(5));
        assertThat(gens.reopenCount()).isEqualTo(reopens + 1);
        assertThat(gens.openArenas()).isEqualTo(arenas + 1);
      }
    }
  }

  @Test
  void afterACrashOnlyFullyPublishedVerifiedFilesAreServed() throws Exception {
    try (PartitionStore store = store(2)) {
      publish(store, 0, 1);
      publish(store, 1, 1);
    }
    Path p0 = root.resolve("v" + SCHEMA_VERSION).resolve("0");
    Path p1 = root.resolve("v" + SCHEMA_VERSION).resolve("1");
    // crash while receiving version 2 of partition 0: complete bytes, but still under the temp name
    Files.write(p0.resolve("2.mosaic.5eed.tmp"), TestFiles.bytes(0, 2));
    // a half-written version 2 of partition 1 under its final name (copied in by hand, say)
    byte[] half = TestFiles.bytes(1, 2);
    Files.write(p1.resolve("2.mosaic"), java.util.Arrays.copyOf(half, half.length - 9));
    try (PartitionStore store = store(2);
        Generations gens = generations(store, 1)) {
      try (Generation g = gens.acquire()) {
        assertThat(g.files().get(0).version()).isEqualTo(1);
        assertThat(g.files().get(1).version()).isEqualTo(1);
        assertThat(g.database().count(Query.all())).isEqualTo(2L * TestFiles.documents(1));
      }
      assertThat(p0.resolve("2.mosaic.5eed.tmp")).doesNotExist();
      assertThat(p1.resolve("2.mosaic.corrupt")).exists();
      // a corrupt publish later is rejected and the generation keeps version 1
      byte[] bad = TestFiles.bytes(0, 3);
      bad[bad.length - 12] ^= 0x7f;
      try (var staged = store.stage(new PartitionFileId(SCHEMA_VERSION, 0, 3), bad.length)) {
        Files.write(staged.path(), bad);
        assertThatThrownBy(staged::publish).isInstanceOf(RejectedFileException.class);
      }
      long id = gens.reopen().get(30, TimeUnit.SECONDS);
      assertThat(id).isEqualTo(1);
      try (Generation g = gens.acquire()) {
        assertThat(g.files().get(0).version()).isEqualTo(1);
      }
    }
  }

  @Test
  void aNewSchemaVersionIsServedOnceCompleteNeverHalfBuiltAndARollbackPinsTheOldOne()
      throws Exception {
    Schema v2 =
        Schema.builder()
            .version(2)
            .field("partition", FieldType.INT, FieldRole.FULL)
            .field("version", FieldType.LONG, FieldRole.FULL)
            .field("row", FieldType.INT, FieldRole.FULL)
            .build();
    try (PartitionStore store = store(2)) {
      publish(store, 0, 1);
      publish(store, 1, 1);
      try (Generations gens = generations(store, 1)) {
        byte[] bytes =
            DatabaseBuilder.create(v2)
                .add(
                    Document.builder(v2)
                        .add("partition", 0)
                        .add("version", 1L)
                        .add("row", 0)
                        .build())
                .toByteArray();
        try (var staged = store.stage(new PartitionFileId(2, 0, 1), bytes.length)) {
          Files.write(staged.path(), bytes);
          staged.publish();
        }
        gens.reopen().get(30, TimeUnit.SECONDS);
        assertThat(gens.schemaVersion()).hasValue(SCHEMA_VERSION); // 1 of 2 partitions: no switch
        assertThatThrownBy(() -> gens.switchSchemaVersion(3).join())
            .hasCauseInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("holds no partition of schema version 3");

        assertThatThrownBy(() -> gens.switchSchemaVersion(2).join())
            .hasCauseInstanceOf(IllegalArgumentException.class)
            .hasMessageContaining("schema version 2 is incomplete")
            .hasMessageContaining("missing [1]");
        try (Generation g = gens.acquire()) {
          assertThat(g.database().schema()).isEqualTo(TestFiles.SCHEMA); // still serving 1
        }

        byte[] second =
            DatabaseBuilder.create(v2)
                .add(
                    Document.builder(v2)
                        .add("partition", 1)
                        .add("version", 1L)
                        .add("row", 0)
                        .build())
                .toByteArray();
        try (var staged = store.stage(new PartitionFileId(2, 1, 1), second.length)) {
          Files.write(staged.path(), second);
          staged.publish();
        }
        // complete now: an unpinned searcher follows the new schema version by itself
        await().atMost(WAIT).until(() -> gens.schemaVersion().orElse(-1) == 2);
        try (Generation g = gens.acquire()) {
          assertThat(g.database().schema()).isEqualTo(v2);
          assertThat(g.database().count(Query.all())).isEqualTo(2);
        }
        gens.switchSchemaVersion(SCHEMA_VERSION).get(30, TimeUnit.SECONDS); // the rollback pins
        gens.reopen().get(30, TimeUnit.SECONDS);
        try (Generation g = gens.acquire()) {
          assertThat(g.database().schema()).isEqualTo(TestFiles.SCHEMA);
          assertThat(g.files()).hasSize(2);
        }
        assertThat(gens.schemaVersion()).hasValue(SCHEMA_VERSION);
        await().atMost(WAIT).until(() -> gens.mappedPartitions() == 2);
      }
    }
  }

  /**
   * Many query threads while reopens swap generations hundreds of times: no query fails, every
   * answer matches exactly the generation it ran on, and once the old generations retire the mapped
   * memory is exactly the current generation's files.
   */
  @Test
  void queriesStayConsistentWithOneGenerationWhileHundredsOfReopensSwapUnderThem()
      throws Exception {
    long seed = System.nanoTime();
    Random random = new Random(seed);
    int partitions = 16;
    int reopens = 300;
    int threads = 4;
    try (PartitionStore store = store(2)) {
      long[] versions = new long[partitions];
      for (int p = 0; p < partitions; p++) {
        versions[p] = 1;
        publish(store, p, 1);
      }
      try (Generations gens = generations(store, 1)) {
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong queries = new AtomicLong();
        ConcurrentLinkedQueue<String> errors = new ConcurrentLinkedQueue<>();
        CountDownLatch started = new CountDownLatch(threads);
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
          workers.add(
              pool.submit(
                  () -> {
                    started.countDown();
                    while (!stop.get()) {
                      try (Generation g = gens.acquire()) {
                        checkConsistent(g);
                        queries.incrementAndGet();
                      } catch (Throwable e) {
                        errors.add(e.toString());
                      }
                    }
                  }));
        }
        started.await();
        for (int i = 0; i < reopens; i++) {
          int p = random.nextInt(partitions);
          versions[p]++;
          publish(store, p, versions[p]);
          if (i % 3 == 0) {
            gens.reopen().get(30, TimeUnit.SECONDS); // and others are left to the store events
          }
        }
        gens.reopen().get(30, TimeUnit.SECONDS);
        stop.set(true);
        for (Future<?> f : workers) {
          f.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(errors).as("query errors (seed %d)", seed).isEmpty();
        assertThat(queries.get()).as("queries run (seed %d)", seed).isGreaterThan(reopens);
        assertThat(gens.reopenCount()).as("reopens (seed %d)", seed).isGreaterThanOrEqualTo(100);

        await().atMost(WAIT).until(() -> gens.openGenerations() == 1);
        try (Generation g = gens.acquire()) {
          for (int p = 0; p < partitions; p++) {
            assertThat(g.files().get(p).version()).as("seed %d", seed).isEqualTo(versions[p]);
          }
          await().atMost(WAIT).until(() -> gens.mappedPartitions() == partitions);
          assertThat(gens.mappedBytes()).isEqualTo(mappedBytesOf(store, g.files()));
          assertThat(gens.openArenas()).isEqualTo(partitions);
        }
        await().atMost(WAIT).until(() -> store.fileCount() <= 2 * partitions);
      }
    }
  }

  /** One generation's answers must all come from the versions it holds. */
  private static void checkConsistent(Generation g) {
    SortedMap<Integer, PartitionFileId> files = g.files();
    long expected = 0;
    for (PartitionFileId id : files.values()) {
      expected += TestFiles.documents(id.version());
    }
    long count = g.database().count(Query.all());
    if (count != expected) {
      throw new AssertionError("generation " + g.id() + ": count " + count + " != " + expected);
    }
    long[] seen = new long[1];
    g.database()
        .execute(
            Query.all().orderBy(Order.asc("partition"), Order.asc("row")),
            (doc, db) -> {
              int p = (Integer) db.sortableValue(doc, "partition");
              long v = (Long) db.sortableValue(doc, "version");
              if (files.get(p).version() != v || g.partitionOf(db) != p) {
                throw new AssertionError(
                    "generation "
                        + g.id()
                        + " holds "
                        + files.get(p)
                        + " but a hit came from version "
                        + v);
              }
              seen[0]++;
              return true;
            });
    if (seen[0] != expected) {
      throw new AssertionError("generation " + g.id() + ": " + seen[0] + " hits != " + expected);
    }
    Map<Integer, PartitionFileId> again = g.files();
    if (!again.equals(files)) {
      throw new AssertionError("generation " + g.id() + " changed under a query");
    }
  }
}
