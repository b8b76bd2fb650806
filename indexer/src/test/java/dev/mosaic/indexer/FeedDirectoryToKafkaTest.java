package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.feedfile.SnapshotFileReader;
import dev.mosaic.api.feedfile.SnapshotFileWriter;
import dev.mosaic.api.realty.RealtyGeneratorSettings;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import dev.mosaic.api.realty.RealtySchema;
import dev.mosaic.embedded.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A realty snapshot file dropped into a watched directory reaches the offers topic. */
class FeedDirectoryToKafkaTest {
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void startKafka() throws Exception {
    kafka = EmbeddedKafka.builder().build().start();
  }

  @AfterAll
  static void stopKafka() {
    kafka.close();
  }

  @Test
  void aDroppedRealtyFileIsPublishedAndItsMalformedLineDeadLettered(@TempDir Path dir)
      throws Exception {
    try (var admin = kafka.admin()) {
      OfferTopics.create(admin, "realty-offers", 4, "realty-offers-dlq", (short) 1);
    }
    FeedSnapshot snapshot =
        RealtyOffers.snapshotsByPartner(
                new RealtyOfferGenerator(
                        RealtyGeneratorSettings.DEFAULTS.withSeed(21).withPartners(1))
                    .next(40),
                1,
                1_000L)
            .getFirst();
    Path staging = Files.createDirectories(dir.resolve("staging"));
    Path file = new SnapshotFileWriter().writeAtomically(snapshot, staging, "partner-001.jsonl");
    List<String> lines = Files.readAllLines(file);
    lines.set(3, "{\"offer_id\": 12"); // line 4: the third offer
    Files.write(file, lines);
    Path watched = dir.resolve("feeds");

    try (FeedLoader loader = loader("realty-offers");
        FileDeadLetters deadLetters = deadLetters("realty-offers");
        FeedDirectoryWatcher watcher = watcher(watched, loader, deadLetters).start()) {
      Files.move(file, watched.resolve(file.getFileName()));
      await().atMost(Duration.ofSeconds(30)).until(() -> watcher.filesDone() == 1);
      deadLetters.flush();
    }

    List<ConsumerRecord<byte[], byte[]>> offers =
        KafkaTestSupport.readAll(kafka, "realty-offers", 39);
    assertThat(offers).hasSize(39);
    assertThat(offers)
        .extracting(r -> Offer.parseFrom(r.value()).getRealty())
        .containsExactlyInAnyOrderElementsOf(
            snapshot.getOffersList().stream()
                .filter(o -> o != snapshot.getOffers(2))
                .map(Offer::getRealty)
                .toList());
    ConsumerRecord<byte[], byte[]> dead =
        KafkaTestSupport.readAll(kafka, "realty-offers-dlq", 1).getFirst();
    assertThat(
            new String(
                dead.headers().lastHeader(OfferTopics.REASON_HEADER).value(),
                StandardCharsets.UTF_8))
        .startsWith("partner-001.jsonl line 4: not an Offer: ");
    assertThat(new String(dead.value(), StandardCharsets.UTF_8)).isEqualTo("{\"offer_id\": 12");
  }

  @Test
  void theFilesOfOneScanAreOneBatchWithOneEndMarkerPerKafkaPartitionCountingItsRecords(
      @TempDir Path dir) throws Exception {
    try (var admin = kafka.admin()) {
      OfferTopics.create(admin, "realty-scan", 4, "realty-scan-dlq", (short) 1);
    }
    List<FeedSnapshot> snapshots =
        RealtyOffers.snapshotsByPartner(
            new RealtyOfferGenerator(RealtyGeneratorSettings.DEFAULTS.withSeed(5).withPartners(3))
                .next(60),
            1,
            1_000L);
    assertThat(snapshots).hasSize(3);
    int offers = snapshots.stream().mapToInt(FeedSnapshot::getOffersCount).sum();
    Path watched = Files.createDirectories(dir.resolve("feeds"));
    for (FeedSnapshot snapshot : snapshots) {
      new SnapshotFileWriter().writeAtomically(snapshot, watched, snapshot.getPartnerId() + ".pb");
    }

    try (FeedLoader loader = loader("realty-scan");
        FileDeadLetters deadLetters = deadLetters("realty-scan");
        FeedDirectoryWatcher watcher = watcher(watched, loader, deadLetters)) {
      assertThat(watcher.scanOnce()).isEqualTo(3);
    }

    List<ConsumerRecord<byte[], byte[]>> records =
        KafkaTestSupport.read(kafka, "realty-scan", offers + 4, true);
    List<ConsumerRecord<byte[], byte[]>> markers =
        records.stream().filter(r -> BatchEnd.isMarker(r.key())).toList();
    List<ConsumerRecord<byte[], byte[]>> upserts =
        records.stream().filter(r -> !BatchEnd.isMarker(r.key())).toList();
    assertThat(upserts).hasSize(offers);
    long batch = BatchEnd.batchOf(upserts.getFirst().headers());
    assertThat(upserts)
        .as("the three partners' offers carry one batch id")
        .allSatisfy(r -> assertThat(BatchEnd.batchOf(r.headers())).isEqualTo(batch));
    assertThat(markers)
        .as("one end marker per Kafka partition, after that partition's offers")
        .hasSize(4)
        .allSatisfy(
            m -> {
              BatchEnd end = BatchEnd.of(m.headers());
              assertThat(end.batchId()).isEqualTo(batch);
              assertThat(end.tombstones()).isZero();
              assertThat(end.upserts())
                  .isEqualTo(upserts.stream().filter(r -> r.partition() == m.partition()).count());
              assertThat(
                      upserts.stream()
                          .filter(r -> r.partition() == m.partition())
                          .mapToLong(ConsumerRecord::offset)
                          .max()
                          .orElseThrow())
                  .isLessThan(m.offset());
            });
  }

  private static FeedLoader loader(String topic) throws Exception {
    return FeedLoader.builder()
        .bootstrapServers(kafka.bootstrapServers())
        .offersTopic(topic)
        .deadLetterTopic(topic + "-dlq")
        .partitions(16)
        .schema(RealtySchema.SCHEMA)
        .build()
        .start();
  }

  private static FileDeadLetters deadLetters(String topic) {
    return new FileDeadLetters(
        kafka.bootstrapServers(), topic + "-dlq", "test", new SimpleMeterRegistry());
  }

  /** A watcher of {@code watched} publishing into {@code loader}'s batches, not started. */
  private static FeedDirectoryWatcher watcher(
      Path watched, FeedLoader loader, FileDeadLetters deadLetters) throws Exception {
    return new FeedDirectoryWatcher(
        new FeedDirectoryWatcher.Config(
            watched,
            FeedDirectoryWatcher.ReadySignal.RENAME,
            Duration.ofMillis(200),
            Duration.ofMillis(200)),
        new SnapshotFileReader(),
        FeedDirectoryWatcher.SnapshotSink.into(loader),
        deadLetters,
        new SimpleMeterRegistry());
  }
}
