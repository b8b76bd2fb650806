package dev.mosaic.indexer;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.embedded.EmbeddedKafka;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;

/** Shared helpers for tests on the embedded broker. */
final class KafkaTestSupport {
  private KafkaTestSupport() {}

  /**
   * Reads a topic from the beginning until at least {@code atLeast} records arrived, leaving out
   * batch end markers ({@link BatchEnd}).
   */
  static List<ConsumerRecord<byte[], byte[]>> readAll(
      EmbeddedKafka kafka, String topic, int atLeast) {
    return read(kafka, topic, atLeast, false);
  }

  /** Reads a topic, batch end markers included, until at least {@code atLeast} records arrived. */
  static List<ConsumerRecord<byte[], byte[]>> read(
      EmbeddedKafka kafka, String topic, int atLeast, boolean withMarkers) {
    Properties p = kafka.clientProperties();
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    List<ConsumerRecord<byte[], byte[]>> records = new ArrayList<>();
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Awaitility.await()
          .atMost(Duration.ofSeconds(30))
          .until(
              () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  if (withMarkers || !BatchEnd.isMarker(r.key())) {
                    records.add(r);
                  }
                }
                return records.size() >= atLeast;
              });
    }
    return records;
  }

  /**
   * A feed loader builder on {@code topic} (created with {@code kafkaPartitions} partitions if
   * missing, and its dead-letter topic {@code <topic>-dlq}), for the cars schema.
   */
  static FeedLoader.Builder loaderOn(
      EmbeddedKafka kafka, String topic, int partitions, int kafkaPartitions) {
    try (var admin = kafka.admin()) {
      OfferTopics.create(admin, topic, kafkaPartitions, topic + "-dlq", (short) 1);
    } catch (Exception e) {
      throw new IllegalStateException("cannot create topic " + topic, e);
    }
    return FeedLoader.builder()
        .bootstrapServers(kafka.bootstrapServers())
        .offersTopic(topic)
        .deadLetterTopic(topic + "-dlq")
        .partitions(partitions)
        .schema(CarsSchema.SCHEMA);
  }

  /** {@code count} car offers of one partner, seeded, no duplicates. */
  static List<CarOffer> cars(long seed, int count) {
    return CarOfferGenerator.builder().seed(seed).partners(1).duplicateShare(0).build().next(count);
  }

  /** The full snapshot of one partner's cars. */
  static FeedSnapshot snapshot(List<CarOffer> cars, long snapshotId) {
    List<FeedSnapshot> snapshots = CarOffers.snapshotsByPartner(cars, snapshotId, 1_000L);
    if (snapshots.size() != 1) {
      throw new IllegalArgumentException("cars of " + snapshots.size() + " partners");
    }
    return snapshots.getFirst();
  }
}
