package dev.mosaic.indexer;

import static dev.mosaic.indexer.KafkaTestSupport.cars;
import static dev.mosaic.indexer.KafkaTestSupport.readAll;
import static dev.mosaic.indexer.KafkaTestSupport.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.FieldValue;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.embedded.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FeedLoaderTest {
  private static final int P = 16;
  private static final int K = 4;
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void startKafka() throws Exception {
    kafka = EmbeddedKafka.builder().build().start();
  }

  @AfterAll
  static void stopKafka() {
    kafka.close();
  }

  private static FeedLoader loader(String topic, Path stateDir) throws Exception {
    return KafkaTestSupport.loaderOn(kafka, topic, P, K).stateDir(stateDir).build().start();
  }

  /** A loader of {@code topic} that also follows {@code feedsTopic}. */
  private static FeedLoader feedsLoader(String topic, String feedsTopic, String groupId)
      throws Exception {
    return KafkaTestSupport.loaderOn(kafka, topic, P, K)
        .feedsTopic(feedsTopic)
        .feedsGroupId(groupId)
        .build()
        .start();
  }

  @Test
  void snapshotDiffPublishesNewAndChangedOffersAndTombstonesForRemovedOnes() throws Exception {
    List<CarOffer> cars = cars(11, 3);
    CarOffer changed = cars.get(0);
    CarOffer removed = cars.get(1);
    CarOffer kept = cars.get(2);
    try (FeedLoader loader = loader("diff", null)) {
      FeedLoader.PublishResult first = loader.publish(snapshot(cars, 1));
      assertThat(first.upserts()).isEqualTo(3);
      assertThat(first.deletes()).isZero();

      CarOffer newPrice = changed.toBuilder().setPriceRub(changed.getPriceRub() + 1000).build();
      FeedLoader.PublishResult second = loader.publish(snapshot(List.of(newPrice, kept), 2));
      assertThat(second.upserts()).isEqualTo(1);
      assertThat(second.deletes()).isEqualTo(1);
      assertThat(second.unchanged()).isEqualTo(1);
      assertThat(second.rejected()).isZero();
    }

    List<ConsumerRecord<byte[], byte[]>> records = readAll(kafka, "diff", 5);
    assertThat(records).hasSize(5);
    for (ConsumerRecord<byte[], byte[]> r : records) {
      int p = OfferKeys.partitionOfKey(r.key());
      assertThat(r.partition()).as("kafka partition of index partition %d", p).isEqualTo(p % K);
    }
    Map<String, List<ConsumerRecord<byte[], byte[]>>> byKey =
        records.stream()
            .collect(Collectors.groupingBy(r -> new String(r.key(), StandardCharsets.UTF_8)));
    String changedKey = key(changed);
    String removedKey = key(removed);
    assertThat(byKey.get(changedKey)).hasSize(2);
    assertThat(Offer.parseFrom(byKey.get(changedKey).get(1).value()).getCar().getPriceRub())
        .isEqualTo(changed.getPriceRub() + 1000);
    assertThat(byKey.get(removedKey)).hasSize(2);
    assertThat(byKey.get(removedKey).get(1).value()).as("tombstone").isNull();
    assertThat(byKey.get(key(kept))).hasSize(1);
  }

  @Test
  void batchEndsWithAMarkerAfterItsRecordsInEveryKafkaPartitionItWroteCountingThem()
      throws Exception {
    List<CarOffer> cars = cars(13, 12);
    long batchId;
    try (FeedLoader loader = loader("batched", null)) {
      try (FeedBatch batch = loader.batch()) {
        batchId = batch.id();
        batch.publish(snapshot(cars, 1));
      }
    }
    long kafkaPartitions =
        cars.stream().map(c -> OfferKeys.indexPartition(c.getDedupKey(), P) % K).distinct().count();
    List<ConsumerRecord<byte[], byte[]>> records =
        KafkaTestSupport.read(kafka, "batched", cars.size() + (int) kafkaPartitions, true);
    Map<Integer, long[]> seen = new java.util.HashMap<>();
    Map<Integer, BatchEnd> markers = new java.util.HashMap<>();
    for (ConsumerRecord<byte[], byte[]> r : records) {
      assertThat(BatchEnd.batchOf(r.headers())).isEqualTo(batchId);
      if (BatchEnd.isMarker(r.key())) {
        assertThat(markers.put(r.partition(), BatchEnd.of(r.headers()))).isNull();
      } else {
        assertThat(markers)
            .as("a marker before a record of its partition")
            .doesNotContainKey(r.partition());
        seen.computeIfAbsent(r.partition(), k -> new long[1])[0]++;
      }
    }
    assertThat(markers.keySet()).isEqualTo(seen.keySet());
    seen.forEach((k, n) -> assertThat(markers.get(k)).isEqualTo(new BatchEnd(batchId, n[0], 0)));
  }

  @Test
  void offersThatDoNotFitGoToTheDeadLetterTopicWithTheReason() throws Exception {
    List<CarOffer> cars = cars(12, 3);
    FeedSnapshot good = snapshot(cars, 1);
    Offer noDedupKey = good.getOffers(0).toBuilder().setDedupKey("").build();
    Offer wrongType =
        good.getOffers(1).toBuilder()
            .addFields(FieldValue.newBuilder().setName("year").setStringValue("2019"))
            .build();
    Offer duplicate = good.getOffers(2);
    FeedSnapshot bad =
        good.toBuilder()
            .clearOffers()
            .addOffers(noDedupKey)
            .addOffers(wrongType)
            .addOffers(good.getOffers(2))
            .addOffers(duplicate)
            .build();
    try (FeedLoader loader = loader("rejects", null)) {
      FeedLoader.PublishResult result = loader.publish(bad);
      assertThat(result.upserts()).isEqualTo(1);
      assertThat(result.rejected()).isEqualTo(3);
    }
    List<String> reasons = new ArrayList<>();
    for (ConsumerRecord<byte[], byte[]> r : readAll(kafka, "rejects-dlq", 3)) {
      reasons.add(header(r, OfferTopics.REASON_HEADER));
      assertThat(header(r, OfferTopics.STAGE_HEADER)).isEqualTo("loader");
      assertThat(header(r, OfferTopics.SOURCE_HEADER)).startsWith("snapshot partner-001/1");
    }
    assertThat(reasons)
        .anySatisfy(r -> assertThat(r).contains(cars.get(0).getOfferId()).contains("no dedup_key"))
        .anySatisfy(r -> assertThat(r).contains("'year'").contains("string_value"))
        .anySatisfy(r -> assertThat(r).contains("appears twice"));
  }

  @Test
  void aSnapshotOfTheSameOffersPublishesNothingAndAChangeAfterItIsFound(@TempDir Path state)
      throws Exception {
    List<CarOffer> cars = cars(14, 4);
    CarOffer changed = cars.get(2);
    CarOffer newPrice = changed.toBuilder().setPriceRub(changed.getPriceRub() + 500).build();
    List<CarOffer> withChange = new ArrayList<>(cars);
    withChange.set(2, newPrice);
    try (FeedLoader loader = loader("same-offers", state)) {
      assertThat(loader.publish(snapshot(cars, 1)).upserts()).isEqualTo(4);
      FeedLoader.PublishResult same = loader.publish(snapshot(cars, 2));
      assertThat(same.upserts()).isZero();
      assertThat(same.deletes()).isZero();
      assertThat(same.unchanged()).isEqualTo(4);

      FeedLoader.PublishResult change = loader.publish(snapshot(withChange, 3));
      assertThat(change.upserts()).isEqualTo(1);
      assertThat(change.unchanged()).isEqualTo(3);
      assertThat(loader.publish(snapshot(withChange, 4)).upserts()).isZero();
    }
    try (FeedLoader loader = loader("same-offers", state)) {
      // the state read back from disk, after the change: the diff finds nothing new either
      FeedLoader.PublishResult afterRestart = loader.publish(snapshot(withChange, 5));
      assertThat(afterRestart.upserts()).isZero();
      assertThat(afterRestart.unchanged()).isEqualTo(4);
    }
    List<ConsumerRecord<byte[], byte[]>> records = readAll(kafka, "same-offers", 5);
    assertThat(records).as("4 first upserts and the one change").hasSize(5);
    List<ConsumerRecord<byte[], byte[]>> ofChanged =
        records.stream()
            .filter(r -> new String(r.key(), StandardCharsets.UTF_8).equals(key(changed)))
            .toList();
    assertThat(Offer.parseFrom(ofChanged.getLast().value()).getCar().getPriceRub())
        .isEqualTo(newPrice.getPriceRub());
  }

  @Test
  void previousSnapshotSurvivesALoaderRestartWithAStateDirectory(@TempDir Path state)
      throws Exception {
    List<CarOffer> cars = cars(13, 5);
    try (FeedLoader loader = loader("restart", state)) {
      assertThat(loader.publish(snapshot(cars, 1)).upserts()).isEqualTo(5);
    }
    try (FeedLoader loader = loader("restart", state)) {
      FeedLoader.PublishResult result = loader.publish(snapshot(cars.subList(0, 4), 2));
      assertThat(result.upserts()).isZero();
      assertThat(result.unchanged()).isEqualTo(4);
      assertThat(result.deletes()).isEqualTo(1);
    }
  }

  @Test
  void snapshotsArrivingOnTheFeedsTopicArePublishedAndGarbageIsDeadLettered() throws Exception {
    List<CarOffer> cars = cars(14, 4);
    kafka.createTopic("feeds-in", 1);
    try (FeedLoader loader = feedsLoader("from-feeds", "feeds-in", "feeds-test");
        KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(
                kafka.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>("feeds-in", new byte[] {1, 2, 3})).get();
      producer.send(new ProducerRecord<>("feeds-in", snapshot(cars, 1).toByteArray())).get();
      List<ConsumerRecord<byte[], byte[]>> offers = readAll(kafka, "from-feeds", 4);
      assertThat(offers).hasSize(4).allSatisfy(r -> assertThat(r.value()).isNotNull());
      List<ConsumerRecord<byte[], byte[]>> dlq = readAll(kafka, "from-feeds-dlq", 1);
      assertThat(header(dlq.getFirst(), OfferTopics.REASON_HEADER))
          .startsWith("not a usable FeedSnapshot");
      assertThat(header(dlq.getFirst(), OfferTopics.SOURCE_HEADER)).isEqualTo("feeds-in/0@0");
    }
  }

  @Test
  void theSnapshotsOfOnePollOfTheFeedsTopicArePublishedAsOneBatch() throws Exception {
    List<CarOffer> cars =
        CarOfferGenerator.builder().seed(21).partners(3).duplicateShare(0).build().next(30);
    List<FeedSnapshot> snapshots = CarOffers.snapshotsByPartner(cars, 1, 1_000L);
    assertThat(snapshots).hasSize(3);
    kafka.createTopic("feeds-polled", 1);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (FeedSnapshot snapshot : snapshots) {
        producer.send(new ProducerRecord<>("feeds-polled", snapshot.toByteArray())).get();
      }
    }
    long kafkaPartitions =
        cars.stream().map(c -> OfferKeys.indexPartition(c.getDedupKey(), P) % K).distinct().count();
    List<ConsumerRecord<byte[], byte[]>> records;
    // the three snapshots wait on the topic before the loader starts: its first poll takes them all
    try (FeedLoader loader = feedsLoader("polled", "feeds-polled", "polled-test")) {
      records = KafkaTestSupport.read(kafka, "polled", cars.size() + (int) kafkaPartitions, true);
    }
    List<ConsumerRecord<byte[], byte[]>> upserts =
        records.stream().filter(r -> !BatchEnd.isMarker(r.key())).toList();
    List<ConsumerRecord<byte[], byte[]>> markers =
        records.stream().filter(r -> BatchEnd.isMarker(r.key())).toList();
    assertThat(upserts).hasSize(cars.size());
    long batch = BatchEnd.batchOf(upserts.getFirst().headers());
    assertThat(upserts).allSatisfy(r -> assertThat(BatchEnd.batchOf(r.headers())).isEqualTo(batch));
    assertThat(markers)
        .as("one marker per Kafka partition written, not one per snapshot")
        .hasSize((int) kafkaPartitions)
        .allSatisfy(
            m ->
                assertThat(BatchEnd.of(m.headers()).upserts())
                    .isEqualTo(
                        upserts.stream().filter(r -> r.partition() == m.partition()).count()));
  }

  @Test
  void aPartnersSnapshotsInOnePollArePublishedInTheirOrderBesideOtherPartnersAndCommitted()
      throws Exception {
    List<CarOffer> cars =
        CarOfferGenerator.builder().seed(31).partners(3).duplicateShare(0).build().next(60);
    List<FeedSnapshot> first = CarOffers.snapshotsByPartner(cars, 1, 1_000L);
    assertThat(first).hasSize(3);
    FeedSnapshot x1 = first.get(0);
    // partner x's second snapshot drops half of its offers: published before the first, they
    // would stay live
    FeedSnapshot x2 =
        x1.toBuilder()
            .setSnapshotId(2)
            .clearOffers()
            .addAllOffers(x1.getOffersList().subList(0, x1.getOffersCount() / 2))
            .build();
    kafka.createTopic("feeds-ordered", 1);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
      for (FeedSnapshot snapshot : List.of(x1, first.get(1), x2, first.get(2))) {
        producer.send(new ProducerRecord<>("feeds-ordered", snapshot.toByteArray())).get();
      }
    }
    Map<String, Offer> expected = new HashMap<>(FeedLoaderFailureTest.expectedLive(x2));
    expected.putAll(FeedLoaderFailureTest.expectedLive(first.get(1)));
    expected.putAll(FeedLoaderFailureTest.expectedLive(first.get(2)));
    // the four snapshots wait on the topic before the loader starts: its first poll takes them all
    try (FeedLoader loader =
            KafkaTestSupport.loaderOn(kafka, "ordered", P, K)
                .feedsTopic("feeds-ordered")
                .feedsGroupId("ordered-test")
                .publishThreads(3)
                .build()
                .start();
        OffersTopicView view = new OffersTopicView(kafka, "ordered");
        Admin admin = Admin.create(kafka.clientProperties())) {
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .untilAsserted(
              () -> {
                view.catchUp();
                assertThat(FeedLoaderFailureTest.liveOffers(view)).isEqualTo(expected);
                assertThat(
                        admin
                            .listConsumerGroupOffsets("ordered-test")
                            .partitionsToOffsetAndMetadata()
                            .get()
                            .get(new TopicPartition("feeds-ordered", 0)))
                    .as("every record of the poll committed")
                    .isNotNull()
                    .extracting(OffsetAndMetadata::offset)
                    .isEqualTo(4L);
              });
    }
  }

  static String key(CarOffer car) {
    return new String(
        OfferKeys.recordKey(
            OfferKeys.indexPartition(car.getDedupKey(), P), car.getPartnerId(), car.getOfferId()),
        StandardCharsets.UTF_8);
  }

  static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    var h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }

  /** A snapshot's bytes written field by field: offers as given (raw bytes), partner id last. */
  private static byte[] snapshotBytes(
      String partner, long snapshotId, List<byte[]> offers, boolean partnerFirst) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(bytes);
    if (partnerFirst) {
      out.writeString(FeedSnapshot.PARTNER_ID_FIELD_NUMBER, partner);
    }
    out.writeInt64(FeedSnapshot.SNAPSHOT_ID_FIELD_NUMBER, snapshotId);
    for (byte[] offer : offers) {
      out.writeByteArray(FeedSnapshot.OFFERS_FIELD_NUMBER, offer);
    }
    if (!partnerFirst) {
      out.writeString(FeedSnapshot.PARTNER_ID_FIELD_NUMBER, partner);
    }
    out.flush();
    return bytes.toByteArray();
  }

  private static List<String> reasons(String topic, int count) throws Exception {
    return readAll(kafka, topic + "-dlq", count).stream()
        .map((ConsumerRecord<byte[], byte[]> r) -> header(r, OfferTopics.REASON_HEADER))
        .toList();
  }

  @Test
  void changedOffersThatAreMalformedAreRefusedPreciselyAndUnchangedOnesAreNotCheckedAgain()
      throws Exception {
    List<CarOffer> cars = cars(31, 6);
    FeedSnapshot first = snapshot(cars, 1);
    String partner = first.getPartnerId();
    AtomicInteger payloadChecks = new AtomicInteger();
    try (FeedLoader loader =
        KafkaTestSupport.loaderOn(kafka, "digest-malformed", 16, 2)
            .payloadCheck(
                offer -> {
                  payloadChecks.incrementAndGet();
                  return null;
                })
            .build()
            .start()) {
      assertThat(loader.publish(first).upserts()).isEqualTo(6);
      assertThat(payloadChecks).hasValue(6);

      Offer wrongType =
          first.getOffers(1).toBuilder()
              .addFields(FieldValue.newBuilder().setName("year").setStringValue("2019"))
              .build();
      Offer repriced =
          first.getOffers(5).toBuilder()
              .setCar(first.getOffers(5).getCar().toBuilder().setPriceRub(123_456))
              .build();
      byte[] truncated = {(byte) 0x12, (byte) 0x05, 'x'}; // offer_id of 5 bytes, 1 there
      byte[] second =
          snapshotBytes(
              partner,
              2,
              List.of(
                  first.getOffers(0).toByteArray(),
                  wrongType.toByteArray(),
                  truncated,
                  first.getOffers(3).toByteArray(),
                  first.getOffers(4).toByteArray(),
                  repriced.toByteArray()),
              true);
      FeedLoader.PublishResult r = loader.publish(second);

      assertThat(r.unchanged()).isEqualTo(3);
      assertThat(r.upserts()).isEqualTo(1);
      assertThat(r.rejected()).isEqualTo(2);
      assertThat(r.deletes()).isEqualTo(2); // the refused offers count as gone
      assertThat(payloadChecks).hasValue(7); // only the repriced offer was checked again
    }
    assertThat(reasons("digest-malformed", 2))
        .anySatisfy(
            reason ->
                assertThat(reason)
                    .matches(
                        "offer 2 of snapshot "
                            + partner
                            + "/2 is not a mosaic\\.feed\\.v1\\.Offer: length 5 at byte \\d+ runs"
                            + " past the end \\(1 left\\)"))
        .anySatisfy(
            reason ->
                assertThat(reason)
                    .contains(cars.get(1).getOfferId())
                    .contains("'year'")
                    .contains("string_value"));
  }

  @Test
  void offersNamingAnotherPartnerBeforeTheSnapshotNamesItsOwnAreCheckedOneByOne() throws Exception {
    List<CarOffer> cars = cars(37, 4);
    FeedSnapshot first = snapshot(cars, 1);
    String partner = first.getPartnerId();
    Offer stranger = first.getOffers(0).toBuilder().setPartnerId("partner-999").build();
    try (FeedLoader loader =
        KafkaTestSupport.loaderOn(kafka, "digest-partner-last", 16, 2).build().start()) {
      assertThat(loader.publish(first).upserts()).isEqualTo(4);

      FeedLoader.PublishResult r =
          loader.publish(
              snapshotBytes(
                  partner,
                  2,
                  List.of(
                      stranger.toByteArray(),
                      first.getOffers(1).toByteArray(),
                      first.getOffers(2).toByteArray(),
                      first.getOffers(3).toByteArray()),
                  false));

      assertThat(r.rejected()).isEqualTo(1);
      assertThat(r.unchanged()).isEqualTo(3);
      assertThat(r.upserts()).isZero();
      assertThat(r.deletes()).isEqualTo(1);
    }
    assertThat(reasons("digest-partner-last", 1))
        .containsExactly(
            "offer '"
                + partner
                + "/"
                + cars.get(0).getOfferId()
                + "' names partner 'partner-999' in a snapshot of '"
                + partner
                + "'");
  }
}
