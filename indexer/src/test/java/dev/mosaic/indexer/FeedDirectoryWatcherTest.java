package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feedfile.MalformedRecord;
import dev.mosaic.api.feedfile.SnapshotFileFormat;
import dev.mosaic.api.feedfile.SnapshotFileReader;
import dev.mosaic.api.feedfile.SnapshotFileWriter;
import dev.mosaic.api.realty.RealtyGeneratorSettings;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import dev.mosaic.indexer.FeedDirectoryWatcher.Config;
import dev.mosaic.indexer.FeedDirectoryWatcher.ReadySignal;
import dev.mosaic.indexer.FeedDirectoryWatcher.SnapshotBatch;
import dev.mosaic.indexer.FeedDirectoryWatcher.SnapshotSink;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FeedDirectoryWatcherTest {
  private static final Duration WAIT = Duration.ofSeconds(20);

  @TempDir Path dir;
  private final List<FeedSnapshot> published = new CopyOnWriteArrayList<>();
  private final List<MalformedRecord> deadLetters = new CopyOnWriteArrayList<>();
  private final SnapshotFileWriter writer = new SnapshotFileWriter();
  private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

  private static FeedSnapshot realtySnapshot(String partner, long snapshotId, int offers) {
    List<FeedSnapshot> byPartner =
        RealtyOffers.snapshotsByPartner(
            new RealtyOfferGenerator(
                    RealtyGeneratorSettings.DEFAULTS.withSeed(snapshotId).withPartners(1))
                .next(offers),
            snapshotId,
            1_000L);
    return byPartner.getFirst().toBuilder().setPartnerId(partner).build();
  }

  private FeedDirectoryWatcher watcher(ReadySignal signal) throws IOException {
    return new FeedDirectoryWatcher(
        new Config(dir, signal, Duration.ofMillis(100), Duration.ZERO),
        new SnapshotFileReader(),
        SnapshotSink.unbatched(published::add),
        deadLetters::add,
        registry);
  }

  @Test
  void aSnapshotRenamedIntoPlaceIsPublishedAndMovedToDone() throws Exception {
    FeedSnapshot snapshot = realtySnapshot("partner-001", 7, 200);
    try (FeedDirectoryWatcher watcher = watcher(ReadySignal.RENAME).start()) {
      writer.writeAtomically(snapshot, dir, "partner-001-7.jsonl");

      await().atMost(WAIT).until(() -> watcher.filesDone() == 1);
    }
    assertThat(published).containsExactly(snapshot);
    assertThat(deadLetters).isEmpty();
    assertThat(dir.resolve("done/partner-001-7.jsonl")).exists();
    assertThat(dir.resolve("partner-001-7.jsonl")).doesNotExist();
  }

  @Test
  void malformedRecordsGoToDeadLettersWithTheirLineAndTheRestIsPublished() throws Exception {
    FeedSnapshot snapshot = realtySnapshot("partner-002", 3, 10);
    Path good = writer.writeAtomically(snapshot, dir, "p2.jsonl");
    List<String> lines = Files.readAllLines(good);
    lines.set(4, "{\"offer_id\": ");
    lines.set(8, "{\"no_such_field\": true}");
    Files.write(good, lines);
    try (FeedDirectoryWatcher watcher = watcher(ReadySignal.RENAME)) {
      assertThat(watcher.scanOnce()).isEqualTo(1);

      assertThat(published)
          .singleElement()
          .satisfies(
              s -> {
                assertThat(s.getOffersCount()).isEqualTo(8);
                assertThat(s.getOffersList())
                    .doesNotContain(snapshot.getOffers(3), snapshot.getOffers(7))
                    .contains(snapshot.getOffers(0), snapshot.getOffers(9));
              });
      assertThat(deadLetters).extracting(MalformedRecord::record).containsExactly(5L, 9L);
      assertThat(deadLetters.getFirst().reason()).startsWith("p2.jsonl line 5: not an Offer: ");
      assertThat(deadLetters.getFirst().raw())
          .isEqualTo("{\"offer_id\": ".getBytes(StandardCharsets.UTF_8));
      assertThat(watcher.recordsMalformed()).isEqualTo(2);
      assertThat(registry.get("mosaic.feedfiles.malformed.records").functionCounter().count())
          .isEqualTo(2.0);
      assertThat(registry.get("mosaic.feedfiles.done").functionCounter().count()).isEqualTo(1.0);
      assertThat(dir.resolve("done/p2.jsonl")).exists();
    }
  }

  @Test
  void aTruncatedProtobufFileIsMovedToFailedWithItsReasonAndNothingIsPublished() throws Exception {
    Path file = writer.writeAtomically(realtySnapshot("partner-003", 1, 50), dir, "p3.pb");
    byte[] bytes = Files.readAllBytes(file);
    Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length - 10));
    try (FeedDirectoryWatcher watcher = watcher(ReadySignal.RENAME)) {
      assertThat(watcher.scanOnce()).isEqualTo(1);
      assertThat(watcher.filesFailed()).isEqualTo(1);
    }
    assertThat(published).isEmpty();
    assertThat(dir.resolve("failed/p3.pb")).exists();
    assertThat(Files.readString(dir.resolve("failed/p3.pb.reason")))
        .matches("p3\\.pb record 51 at byte \\d+: the file ends inside a record .*\\n");
  }

  @Test
  void halfWrittenFilesAreNotTaken() throws Exception {
    FeedSnapshot snapshot = realtySnapshot("partner-004", 2, 5);
    // Rename mode: hidden and unknown-extension names are still being written.
    try (var out = Files.newOutputStream(dir.resolve(".p4.jsonl.tmp"))) {
      writer.write(snapshot, SnapshotFileFormat.JSON_LINES, out);
    }
    Files.writeString(dir.resolve("p4.jsonl.part"), "{\"partner_id\":");
    try (FeedDirectoryWatcher watcher = watcher(ReadySignal.RENAME)) {
      assertThat(watcher.scanOnce()).isZero();
    }
    // Marker mode: a complete-looking file waits for its marker.
    Files.move(dir.resolve(".p4.jsonl.tmp"), dir.resolve("p4.jsonl"));
    try (FeedDirectoryWatcher watcher = watcher(ReadySignal.MARKER)) {
      assertThat(watcher.scanOnce()).isZero();
      Files.createFile(dir.resolve("p4.jsonl.ready"));
      assertThat(watcher.scanOnce()).isEqualTo(1);
    }
    assertThat(published).containsExactly(snapshot);
    assertThat(dir.resolve("p4.jsonl.ready")).doesNotExist();
    assertThat(dir.resolve("p4.jsonl.part")).exists();
  }

  @Test
  void aFailingPublishLeavesTheFileForARetryAndAnInvalidSnapshotIsRefused() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    FeedDirectoryWatcher watcher =
        new FeedDirectoryWatcher(
            new Config(dir, ReadySignal.RENAME, Duration.ofMillis(100), Duration.ZERO),
            new SnapshotFileReader(),
            SnapshotSink.unbatched(
                s -> {
                  if (s.getPartnerId().contains("|")) {
                    throw new IllegalArgumentException("partner id must not contain '|'");
                  }
                  if (attempts.incrementAndGet() == 1) {
                    throw new IOException("kafka is down");
                  }
                  published.add(s);
                }),
            deadLetters::add,
            registry);
    FeedSnapshot snapshot = realtySnapshot("partner-005", 4, 5);
    writer.writeAtomically(snapshot, dir, "p5.pb");
    writer.writeAtomically(realtySnapshot("bad|partner", 4, 1), dir, "bad.pb");
    Files.setLastModifiedTime(dir.resolve("bad.pb"), FileTime.fromMillis(0));

    assertThat(watcher.scanOnce()).isEqualTo(1); // bad.pb refused; p5.pb stays
    assertThat(dir.resolve("p5.pb")).exists();
    assertThat(published).isEmpty();
    assertThat(watcher.scanOnce()).isEqualTo(1);

    assertThat(published).containsExactly(snapshot);
    assertThat(Files.readString(dir.resolve("failed/bad.pb.reason")))
        .isEqualTo("bad.pb: partner id must not contain '|'\n");
    watcher.close();
  }

  @Test
  void filesAreTakenOldestFirst() throws Exception {
    for (int i = 0; i < 5; i++) {
      Path f =
          writer.writeAtomically(
              realtySnapshot("partner-006", 10 + i, 2), dir, "z" + (4 - i) + ".jsonl");
      Files.setLastModifiedTime(f, FileTime.fromMillis(1_000_000L + i * 1000L));
    }
    try (FeedDirectoryWatcher watcher = watcher(ReadySignal.RENAME)) {
      assertThat(watcher.scanOnce()).isEqualTo(5);
    }
    assertThat(published)
        .extracting(FeedSnapshot::getSnapshotId)
        .containsExactly(10L, 11L, 12L, 13L, 14L);
  }

  @Test
  void theFilesOfOneScanArePublishedInOneBatchEndedOnceAndABacklogInBatchesOfTheLimit()
      throws Exception {
    List<List<Long>> batches = new CopyOnWriteArrayList<>();
    List<Integer> ended = new CopyOnWriteArrayList<>();
    SnapshotSink recording =
        () -> {
          List<Long> batch = new CopyOnWriteArrayList<>();
          int index = batches.size();
          batches.add(batch);
          return new SnapshotBatch() {
            @Override
            public void publish(FeedSnapshot snapshot) {
              assertThat(ended).doesNotContain(index);
              batch.add(snapshot.getSnapshotId());
            }

            @Override
            public void end() {
              assertThat(ended).doesNotContain(index);
              ended.add(index);
            }
          };
        };
    int files = FeedDirectoryWatcher.MAX_BATCH_FILES + 3;
    for (int i = 0; i < files; i++) {
      Path f = writer.writeAtomically(realtySnapshot("partner-" + i, i, 1), dir, "f" + i + ".pb");
      Files.setLastModifiedTime(f, FileTime.fromMillis(1_000_000L + i * 1000L));
    }
    try (FeedDirectoryWatcher watcher =
        new FeedDirectoryWatcher(
            new Config(dir, ReadySignal.RENAME, Duration.ofMillis(100), Duration.ZERO),
            new SnapshotFileReader(),
            recording,
            deadLetters::add,
            registry)) {
      assertThat(watcher.scanOnce()).isEqualTo(files);
      assertThat(batches).hasSize(2);
      // the oldest files, different partners published at once: in any order within the batch
      assertThat(batches.get(0))
          .containsExactlyInAnyOrderElementsOf(
              LongStream.range(0, FeedDirectoryWatcher.MAX_BATCH_FILES).boxed().toList());
      assertThat(batches.get(1))
          .containsExactlyInAnyOrder(
              (long) FeedDirectoryWatcher.MAX_BATCH_FILES,
              FeedDirectoryWatcher.MAX_BATCH_FILES + 1L,
              FeedDirectoryWatcher.MAX_BATCH_FILES + 2L);
      assertThat(ended).containsExactly(0, 1);

      writer.writeAtomically(realtySnapshot("partner-x", 500, 1), dir, "g1.pb");
      writer.writeAtomically(realtySnapshot("partner-y", 501, 1), dir, "g2.pb");
      assertThat(watcher.scanOnce()).isEqualTo(2);
      assertThat(batches).hasSize(3);
      assertThat(batches.get(2)).containsExactlyInAnyOrder(500L, 501L);
      assertThat(ended).containsExactly(0, 1, 2);

      assertThat(watcher.scanOnce()).isZero();
      assertThat(batches).as("a scan that finds nothing opens no batch").hasSize(3);
    }
  }

  @Test
  void aFileLeftForARetryHoldsBackTheNewerFilesOfItsPartnerButNotOtherPartners() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    FeedSnapshot older = realtySnapshot("partner-007", 1, 3);
    FeedSnapshot newer = realtySnapshot("partner-007", 2, 3);
    FeedSnapshot other = realtySnapshot("partner-008", 1, 3);
    Path a = writer.writeAtomically(older, dir, "a.pb");
    Path b = writer.writeAtomically(newer, dir, "b.pb");
    Path c = writer.writeAtomically(other, dir, "c.pb");
    Files.setLastModifiedTime(a, FileTime.fromMillis(1_000_000L));
    Files.setLastModifiedTime(b, FileTime.fromMillis(2_000_000L));
    Files.setLastModifiedTime(c, FileTime.fromMillis(3_000_000L));
    try (FeedDirectoryWatcher watcher =
        new FeedDirectoryWatcher(
            new Config(dir, ReadySignal.RENAME, Duration.ofMillis(100), Duration.ofHours(1)),
            new SnapshotFileReader(),
            SnapshotSink.unbatched(
                s -> {
                  if (s.equals(older) && attempts.incrementAndGet() == 1) {
                    throw new IOException("kafka is down");
                  }
                  published.add(s);
                }),
            deadLetters::add,
            registry)) {
      assertThat(watcher.scanOnce()).isEqualTo(1);
      assertThat(published)
          .as("b.pb waits behind a.pb; c.pb is another partner's")
          .containsExactly(other);

      assertThat(watcher.scanOnce())
          .as("a.pb waits for its retry delay, and b.pb with it")
          .isZero();
      assertThat(dir.resolve("b.pb")).exists();
    }
    try (FeedDirectoryWatcher watcher =
        new FeedDirectoryWatcher(
            new Config(dir, ReadySignal.RENAME, Duration.ofMillis(100), Duration.ZERO),
            new SnapshotFileReader(),
            SnapshotSink.unbatched(published::add),
            deadLetters::add,
            registry)) {
      assertThat(watcher.scanOnce()).isEqualTo(2);
    }
    assertThat(published).containsExactly(other, older, newer);
  }
}
