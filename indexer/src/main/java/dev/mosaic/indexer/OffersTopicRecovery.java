package dev.mosaic.indexer;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Rebuilds a partner's previous snapshot from the compacted offers topic, which holds the latest
 * record of every offer key: reads every Kafka partition from the beginning to the end offset seen
 * at the start, keeps the partner's keys ({@code <partition>|<partner>|<offer id hash>}), drops
 * keys whose latest record is a tombstone, and fingerprints the remaining values ({@link
 * OfferBytes#fingerprint()}; the loader publishes values with the fingerprint of the offer they
 * came from, so an unchanged offer stays unchanged).
 *
 * <p>An offer id live under two partitions (a move whose tombstone never made it) keeps its newest
 * record (by record timestamp); the other keys are returned as {@link Recovered#staleKeys()} for
 * the loader to tombstone. Costs one read of the whole topic; used only when a state file cannot be
 * read.
 *
 * <p>Thread safety: safe for concurrent use; each call uses its own consumer.
 */
final class OffersTopicRecovery {
  private static final Duration POLL = Duration.ofMillis(200);

  private final String bootstrapServers;
  private final String topic;
  private final Duration timeout;

  OffersTopicRecovery(String bootstrapServers, String topic, Duration timeout) {
    this.bootstrapServers = bootstrapServers;
    this.topic = topic;
    this.timeout = timeout;
  }

  /** An offer key: the offer id hash under one index partition. */
  record OfferAt(long offerHash, int partition) {}

  /**
   * A partner's state as the topic holds it.
   *
   * @param state the live offers
   * @param staleKeys keys of offers also live under a newer key, to be tombstoned
   * @param recordsRead records read from the topic (every partner's)
   * @param elapsedMillis time the read took
   */
  record Recovered(
      PartnerSnapshotState state, List<OfferAt> staleKeys, long recordsRead, long elapsedMillis) {}

  private record Live(long fingerprint, long timestamp) {}

  /**
   * Reads the topic up to its current end and returns the partner's offers.
   *
   * @throws KafkaException if the topic cannot be read within the timeout
   */
  Recovered recover(String partner) {
    long began = System.nanoTime();
    byte[] partnerBytes = partner.getBytes(StandardCharsets.UTF_8);
    Map<OfferAt, Live> live = new HashMap<>();
    OfferBytes reader = new OfferBytes();
    long read = 0;
    try (KafkaConsumer<byte[], byte[]> consumer = consumer()) {
      List<TopicPartition> partitions =
          consumer.partitionsFor(topic, timeout).stream()
              .map(i -> new TopicPartition(topic, i.partition()))
              .toList();
      consumer.assign(partitions);
      consumer.seekToBeginning(partitions);
      Map<TopicPartition, Long> end = consumer.endOffsets(partitions, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (!reachedEnd(consumer, end)) {
        if (System.nanoTime() > deadline) {
          throw new TimeoutException(
              "reading topic " + topic + " to its end took longer than " + timeout);
        }
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
          read++;
          OfferAt key = parseKey(r.key(), partnerBytes);
          if (key == null) {
            continue;
          }
          if (r.value() == null) {
            live.remove(key);
          } else {
            live.put(key, new Live(fingerprintOf(reader, r.value()), r.timestamp()));
          }
        }
      }
    }
    Map<Long, Map.Entry<OfferAt, Live>> newest = new HashMap<>();
    List<OfferAt> stale = new ArrayList<>();
    for (Map.Entry<OfferAt, Live> e : live.entrySet()) {
      Map.Entry<OfferAt, Live> other = newest.putIfAbsent(e.getKey().offerHash(), e);
      if (other != null) {
        boolean newer = e.getValue().timestamp() > other.getValue().timestamp();
        stale.add(newer ? other.getKey() : e.getKey());
        if (newer) {
          newest.put(e.getKey().offerHash(), e);
        }
      }
    }
    PartnerSnapshotState state = new PartnerSnapshotState(newest.size());
    for (Map.Entry<OfferAt, Live> e : newest.values()) {
      state.put(e.getKey().offerHash(), e.getValue().fingerprint(), e.getKey().partition());
    }
    return new Recovered(state, stale, read, (System.nanoTime() - began) / 1_000_000);
  }

  private static boolean reachedEnd(
      KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
    for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
      if (consumer.position(e.getKey()) < e.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** A value that does not read as an offer gets fingerprint 0, so the next diff republishes it. */
  private static long fingerprintOf(OfferBytes reader, byte[] value) {
    try {
      return reader.read(value, 0, value.length).fingerprint();
    } catch (WireReader.MalformedWireException e) {
      return 0;
    }
  }

  /** The key's partition and offer id hash when it is a key of this partner, else null. */
  static OfferAt parseKey(byte[] key, byte[] partner) {
    if (key == null) {
      return null;
    }
    int bar = 0;
    int partition = 0;
    while (bar < key.length && key[bar] != '|') {
      int digit = key[bar] - '0';
      if (digit < 0 || digit > 9 || bar >= 9) {
        return null;
      }
      partition = partition * 10 + digit;
      bar++;
    }
    int from = bar + 1;
    int hashAt = from + partner.length + 1;
    if (bar == 0
        || partition >= PartnerSnapshotState.MAX_PARTITIONS
        || hashAt + 16 != key.length
        || key[hashAt - 1] != '|'
        || !Arrays.equals(key, from, from + partner.length, partner, 0, partner.length)) {
      return null;
    }
    long hash = 0;
    for (int i = hashAt; i < key.length; i++) {
      int digit = Character.digit(key[i], 16);
      if (digit < 0) {
        return null;
      }
      hash = hash << 4 | digit;
    }
    return new OfferAt(hash, partition);
  }

  private KafkaConsumer<byte[], byte[]> consumer() {
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    p.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(8 << 20));
    p.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(64 << 20));
    return new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }
}
