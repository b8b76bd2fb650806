package dev.mosaic.it.process;

import dev.mosaic.indexer.OfferKeys;
import dev.mosaic.partition.ManifestRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Compares the partition manifest with what the compacted offers topic holds: the live offer keys
 * of each index partition (latest record of each key not a tombstone) against the documents the
 * manifest records for that partition. With the feed paused and the indexers idle they must be
 * equal partition by partition: a difference is an offer the indexers lost or a removal they did
 * not apply. Stateless; thread safe.
 */
final class OffersTopicAudit {
  private static final Duration TIMEOUT = Duration.ofSeconds(30);

  private OffersTopicAudit() {}

  /** Live offer keys per index partition, reading the whole topic up to its current end. */
  static Map<Integer, Integer> liveOffers(String bootstrapServers, String topic) {
    Map<String, Boolean> live = new HashMap<>();
    readAll(
        bootstrapServers,
        topic,
        r -> {
          String key = new String(r.key(), StandardCharsets.UTF_8);
          if (r.value() == null) {
            live.remove(key);
          } else {
            live.put(key, Boolean.TRUE);
          }
        });
    Map<Integer, Integer> out = new TreeMap<>();
    for (String key : live.keySet()) {
      out.merge(OfferKeys.partitionOfKey(key.getBytes(StandardCharsets.UTF_8)), 1, Integer::sum);
    }
    return out;
  }

  /**
   * For a failure message: reads the whole topic and, for each partition whose recorded documents
   * differ, the offers that the recorded file (from {@code outputDir}) holds although the topic
   * removed them, and the live ones it lacks, each with its key's history (offset, time, upsert or
   * tombstone).
   */
  static String explain(
      String bootstrapServers,
      String topic,
      java.nio.file.Path outputDir,
      Collection<ManifestRecord> records) {
    StringBuilder out = new StringBuilder();
    Map<String, List<String>> history = new HashMap<>();
    Map<String, dev.mosaic.api.feed.Offer> lastValue = new HashMap<>();
    Map<String, Boolean> live = new HashMap<>();
    try {
      readAll(
          bootstrapServers,
          topic,
          r -> {
            String key = new String(r.key(), StandardCharsets.UTF_8);
            history
                .computeIfAbsent(key, k -> new ArrayList<>())
                .add(
                    (r.value() == null ? "tombstone" : "upsert")
                        + "@"
                        + r.partition()
                        + ":"
                        + r.offset()
                        + " "
                        + java.time.Instant.ofEpochMilli(r.timestamp()));
            if (r.value() == null) {
              live.remove(key);
            } else {
              live.put(key, Boolean.TRUE);
              try {
                lastValue.put(key, dev.mosaic.api.feed.Offer.parseFrom(r.value()));
              } catch (com.google.protobuf.InvalidProtocolBufferException e) {
                out.append("unparseable value under ").append(key).append('\n');
              }
            }
          });
    } catch (RuntimeException e) {
      return "could not read the topic: " + e;
    }
    dev.mosaic.partition.PartitionLayout layout =
        new dev.mosaic.partition.PartitionLayout(outputDir);
    for (ManifestRecord r : records) {
      int partition = r.id().partition();
      java.nio.file.Path file = layout.file(r.id());
      if (!java.nio.file.Files.exists(file)) {
        out.append(r.id()).append(": not in ").append(outputDir).append('\n');
        continue;
      }
      try (dev.mosaic.format.Database db = dev.mosaic.format.Database.open(file, true)) {
        for (Map.Entry<String, dev.mosaic.api.feed.Offer> e : lastValue.entrySet()) {
          if (OfferKeys.partitionOfKey(e.getKey().getBytes(StandardCharsets.UTF_8)) != partition) {
            continue;
          }
          dev.mosaic.api.feed.Offer o = e.getValue();
          long n =
              db.count(
                  dev.mosaic.format.query.Query.where(
                      dev.mosaic.format.query.Condition.and(
                          dev.mosaic.format.query.Condition.eq("partner", o.getPartnerId()),
                          dev.mosaic.format.query.Condition.eq("offer_id", o.getOfferId()))));
          boolean isLive = live.containsKey(e.getKey());
          if (n != (isLive ? 1 : 0)) {
            out.append(r.id())
                .append(" holds ")
                .append(n)
                .append(" of ")
                .append(isLive ? "live " : "removed ")
                .append(e.getKey())
                .append(" (")
                .append(o.getOfferId())
                .append("): ")
                .append(history.get(e.getKey()))
                .append('\n');
          }
        }
      } catch (Exception ex) {
        out.append(r.id()).append(": ").append(ex).append('\n');
      }
    }
    return out.toString();
  }

  /** Partitions whose recorded documents differ from the topic's live offers, described. */
  static List<String> differences(
      Map<Integer, Integer> liveOffers, Collection<ManifestRecord> records) {
    Map<Integer, Long> recorded = new TreeMap<>();
    for (ManifestRecord r : records) {
      recorded.put(r.id().partition(), (long) r.documents());
    }
    List<String> out = new ArrayList<>();
    for (int p : recorded.keySet()) {
      long inTopic = liveOffers.getOrDefault(p, 0);
      if (recorded.get(p) != inTopic) {
        out.add("p" + p + ": manifest " + recorded.get(p) + " documents, topic " + inTopic);
      }
    }
    for (int p : liveOffers.keySet()) {
      if (!recorded.containsKey(p)) {
        out.add("p" + p + ": not in the manifest, topic " + liveOffers.get(p));
      }
    }
    return out;
  }

  /** Reads the whole topic, from the beginning up to its end offsets as of now. */
  private static void readAll(
      String bootstrapServers, String topic, Consumer<ConsumerRecord<byte[], byte[]>> each) {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    try (KafkaConsumer<byte[], byte[]> consumer =
        new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
      List<TopicPartition> tps =
          consumer.partitionsFor(topic, TIMEOUT).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      consumer.assign(tps);
      consumer.seekToBeginning(tps);
      Map<TopicPartition, Long> end = consumer.endOffsets(tps, TIMEOUT);
      long deadline = System.nanoTime() + TIMEOUT.toNanos();
      while (tps.stream().anyMatch(tp -> consumer.position(tp) < end.get(tp))) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("reading " + topic + " took longer than " + TIMEOUT);
        }
        consumer.poll(Duration.ofMillis(200)).forEach(each);
      }
    }
  }
}
