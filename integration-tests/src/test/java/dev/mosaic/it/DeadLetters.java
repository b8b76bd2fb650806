package dev.mosaic.it;

import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.function.Predicate;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a dead-letter topic from its beginning for the tests. Stateless. */
final class DeadLetters {
  private DeadLetters() {}

  /** The first record of the topic with this key, waiting up to 60 s for it. */
  static ConsumerRecord<byte[], byte[]> awaitKey(String bootstrap, String topic, byte[] key) {
    return awaitFirst(
        bootstrap,
        topic,
        "key " + new String(key, StandardCharsets.UTF_8),
        r -> r.key() != null && Arrays.equals(r.key(), key));
  }

  /** The first record of the topic {@code wanted} accepts, waiting up to 60 s for it. */
  static ConsumerRecord<byte[], byte[]> awaitFirst(
      String bootstrap,
      String topic,
      String description,
      Predicate<ConsumerRecord<byte[], byte[]>> wanted) {
    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(cp, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps =
          consumer.partitionsFor(topic).stream()
              .map(i -> new TopicPartition(i.topic(), i.partition()))
              .toList();
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      List<ConsumerRecord<byte[], byte[]>> found = new ArrayList<>();
      await("dead letter on " + topic + ": " + description)
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                  if (wanted.test(r)) {
                    found.add(r);
                  }
                }
                return !found.isEmpty();
              });
      return found.getFirst();
    }
  }

  /** A header's value as UTF-8, or null. */
  static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    Header h = r.headers().lastHeader(name);
    return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
  }
}
