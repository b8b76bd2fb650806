package dev.mosaic.indexer;

import static dev.mosaic.indexer.KafkaTestSupport.cars;
import static dev.mosaic.indexer.KafkaTestSupport.snapshot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.embedded.EmbeddedKafka;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The loader's state surviving damage, failing partners, and partner ids of any length. */
class FeedLoaderFailureTest {
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

  private static FeedLoader.Builder loader(String topic, Path stateDir) {
    return KafkaTestSupport.loaderOn(kafka, topic, P, K).stateDir(stateDir);
  }

  enum Damage {
    TRUNCATED,
    FLIPPED_BYTE,
    OLD_VERSION
  }

  @ParameterizedTest
  @EnumSource(Damage.class)
  void anUnreadableStateIsRebuiltFromTheTopicAndTheNextDiffIsExact(
      Damage damage, @TempDir Path state) throws Exception {
    String topic = "damaged-" + damage.name().toLowerCase().replace('_', '-');
    List<CarOffer> cars = cars(21, 40);
    FeedSnapshot first = snapshot(cars, 1);
    try (FeedLoader loader = loader(topic, state).build().start()) {
      assertThat(loader.publish(first).upserts()).isEqualTo(40);
    }
    Path file = new PartnerStateFiles(state).fileFor(first.getPartnerId());
    byte[] bytes = Files.readAllBytes(file);
    switch (damage) {
      case TRUNCATED -> Files.write(file, java.util.Arrays.copyOf(bytes, bytes.length / 2));
      case FLIPPED_BYTE -> {
        bytes[bytes.length - 30] ^= 0x10;
        Files.write(file, bytes);
      }
      case OLD_VERSION -> {
        ByteBuffer.wrap(bytes).putInt(4, 1);
        Files.write(file, bytes);
      }
    }

    // Second snapshot: 3 changed, 1 moved to another partition, 2 removed, 2 new, rest unchanged.
    List<Offer> offers = new ArrayList<>(first.getOffersList());
    for (int i = 0; i < 3; i++) {
      Offer o = offers.get(i);
      offers.set(i, o.toBuilder().setCar(o.getCar().toBuilder().setPriceRub(7 + i)).build());
    }
    Offer moved = offers.get(3);
    String newKey = otherPartitionKey(moved.getDedupKey());
    offers.set(3, moved.toBuilder().setDedupKey(newKey).build());
    offers.remove(offers.size() - 1);
    offers.remove(offers.size() - 1);
    for (CarOffer extra : cars(22, 2)) {
      offers.add(
          CarOffers.toOffer(
              extra.toBuilder().setOfferId("new-" + extra.getOfferId()).build(), 5_000L));
    }
    FeedSnapshot second =
        first.toBuilder().setSnapshotId(2).clearOffers().addAllOffers(offers).build();

    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (OffersTopicView view = new OffersTopicView(kafka, topic);
        FeedLoader loader = loader(topic, state).meterRegistry(registry).build().start()) {
      view.catchUp();
      FeedLoader.PublishResult result = loader.publish(second);
      assertThat(registry.get("mosaic.feedloader.state.recoveries").counter().count()).isEqualTo(1);
      assertThat(result.upserts()).as("3 changed + 1 moved + 2 new").isEqualTo(6);
      assertThat(result.deletes()).as("2 removed + the moved offer's old key").isEqualTo(3);
      assertThat(result.unchanged()).isEqualTo(34);
      assertThat(view.catchUp()).isEqualTo(9);
      assertThat(liveOffers(view)).isEqualTo(expectedLive(second));
    }
    try (FeedLoader loader = loader(topic, state).build().start()) {
      FeedLoader.PublishResult again = loader.publish(second.toBuilder().setSnapshotId(3).build());
      assertThat(again.unchanged()).as("the rewritten state reads back").isEqualTo(40);
      assertThat(again.upserts() + again.deletes()).isZero();
    }
  }

  @Test
  void aSnapshotThatKeepsFailingIsDeadLetteredAfterTheRetriesAndTheNextPartnerFlows(
      @TempDir Path state) throws Exception {
    String topic = "failing";
    kafka.createTopic("failing-feeds", 1);
    FeedSnapshot bad = snapshot(withPartner(cars(23, 3), "partner-bad"), 1);
    FeedSnapshot good = snapshot(cars(24, 4), 1);
    // The bad partner's state file cannot be written: a non-empty directory sits at its path.
    Path blocked = new PartnerStateFiles(state).fileFor("partner-bad");
    Files.createDirectories(blocked.resolve("occupied"));
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try (FeedLoader loader =
            loader(topic, state)
                .feedsTopic("failing-feeds")
                .feedsGroupId("failing-test")
                .retry(new SnapshotRetry(3, Duration.ofMillis(10), Duration.ofMillis(40)))
                .meterRegistry(registry)
                .build()
                .start();
        KafkaProducer<byte[], byte[]> producer =
            new KafkaProducer<>(
                kafka.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
      producer.send(new ProducerRecord<>("failing-feeds", bad.toByteArray())).get();
      producer.send(new ProducerRecord<>("failing-feeds", good.toByteArray())).get();

      List<ConsumerRecord<byte[], byte[]>> dlq = KafkaTestSupport.readAll(kafka, "failing-dlq", 1);
      assertThat(FeedLoaderTest.header(dlq.getFirst(), OfferTopics.SOURCE_HEADER))
          .isEqualTo("failing-feeds/0@0");
      assertThat(FeedLoaderTest.header(dlq.getFirst(), OfferTopics.REASON_HEADER))
          .startsWith("snapshot of partner 'partner-bad' failed 3 attempts; last: ")
          .contains(blocked.toString());
      assertThat(dlq.getFirst().value()).isEqualTo(bad.toByteArray());
      assertThat(registry.get("mosaic.feedloader.snapshot.failures").counter().count())
          .isEqualTo(3);

      try (OffersTopicView view = new OffersTopicView(kafka, topic)) {
        Awaitility.await()
            .atMost(Duration.ofSeconds(30))
            .untilAsserted(
                () -> {
                  view.catchUp();
                  assertThat(liveOffers(view)).containsAllEntriesOf(expectedLive(good));
                });
      }
      assertThat(new PartnerStateFiles(state).read(good.getPartnerId())).isPresent();
    }
  }

  @Test
  void aThreeHundredCharacterPartnerIdKeepsItsStateAcrossRestarts(@TempDir Path state)
      throws Exception {
    String partner = "partner-" + "x".repeat(292);
    assertThat(partner).hasSize(300);
    FeedSnapshot first = snapshot(withPartner(cars(25, 5), partner), 1);
    try (FeedLoader loader = loader("long-partner", state).build().start()) {
      assertThat(loader.publish(first).upserts()).isEqualTo(5);
    }
    try (FeedLoader loader = loader("long-partner", state).build().start();
        OffersTopicView view = new OffersTopicView(kafka, "long-partner")) {
      FeedSnapshot second = first.toBuilder().setSnapshotId(2).removeOffers(4).build();
      FeedLoader.PublishResult result = loader.publish(second);
      assertThat(result.unchanged()).isEqualTo(4);
      assertThat(result.deletes()).isEqualTo(1);
      view.catchUp();
      assertThat(liveOffers(view)).isEqualTo(expectedLive(second));
    }
  }

  private static List<CarOffer> withPartner(List<CarOffer> cars, String partner) {
    return cars.stream().map(c -> c.toBuilder().setPartnerId(partner).build()).toList();
  }

  /** A dedup key landing in another index partition than {@code key}. */
  static String otherPartitionKey(String key) {
    int partition = OfferKeys.indexPartition(key, P);
    for (int i = 0; ; i++) {
      String candidate = key + "-moved-" + i;
      if (OfferKeys.indexPartition(candidate, P) != partition) {
        return candidate;
      }
    }
  }

  /** Record key → offer (observation time cleared) of a snapshot's offers. */
  static Map<String, Offer> expectedLive(FeedSnapshot snapshot) {
    Map<String, Offer> expected = new HashMap<>();
    for (Offer o : snapshot.getOffersList()) {
      String key =
          new String(
              OfferKeys.recordKey(
                  OfferKeys.indexPartition(o.getDedupKey(), P),
                  snapshot.getPartnerId(),
                  o.getOfferId()),
              StandardCharsets.UTF_8);
      expected.put(
          key, o.toBuilder().setPartnerId(snapshot.getPartnerId()).clearObservedAtMillis().build());
    }
    return expected;
  }

  /** The topic's live offers, observation time cleared. */
  static Map<String, Offer> liveOffers(OffersTopicView view) throws Exception {
    Map<String, Offer> live = new HashMap<>();
    for (Map.Entry<String, byte[]> e : view.live().entrySet()) {
      live.put(
          e.getKey(), Offer.parseFrom(e.getValue()).toBuilder().clearObservedAtMillis().build());
    }
    return live;
  }
}
