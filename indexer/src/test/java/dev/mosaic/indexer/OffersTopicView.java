package dev.mosaic.indexer;

import dev.mosaic.embedded.EmbeddedKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.awaitility.Awaitility;

/**
 * What a compacted topic holds once compacted: the latest value of every key, tombstones removing
 * keys. Follows the topic from the beginning; {@link #catchUp} reads to the current end offsets.
 */
final class OffersTopicView implements AutoCloseable {
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final List<TopicPartition> partitions;
  private final Map<String, byte[]> live = new HashMap<>();
  private long records;
  private long markers;

  OffersTopicView(EmbeddedKafka kafka, String topic) {
    Properties p = kafka.clientProperties();
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    consumer = new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    partitions =
        consumer.partitionsFor(topic).stream()
            .map(i -> new TopicPartition(topic, i.partition()))
            .toList();
    consumer.assign(partitions);
    consumer.seekToBeginning(partitions);
  }

  /**
   * Reads every record up to the end offsets as of now.
   *
   * @return the number of offer records (upserts and tombstones, not batch end markers) read by
   *     this call
   */
  long catchUp() {
    Map<TopicPartition, Long> end = consumer.endOffsets(partitions);
    long before = records;
    Awaitility.await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () -> {
              for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                if (BatchEnd.isMarker(r.key())) {
                  markers++;
                  continue;
                }
                records++;
                String key = new String(r.key(), StandardCharsets.UTF_8);
                if (r.value() == null) {
                  live.remove(key);
                } else {
                  live.put(key, r.value());
                }
              }
              return end.entrySet().stream()
                  .allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
            });
    return records - before;
  }

  /** Batch end markers read so far. */
  long markers() {
    return markers;
  }

  /** Live keys and their latest values. */
  Map<String, byte[]> live() {
    return live;
  }

  @Override
  public void close() {
    consumer.close();
  }
}
