package dev.mosaic.indexer;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;

/**
 * Names and layout of the indexer's Kafka topics, and the dead-letter record headers.
 *
 * <ul>
 *   <li>{@value #OFFERS}: log-compacted; key and routing per {@link OfferKeys}; value a serialized
 *       {@code mosaic.feed.v1.Offer}, or null (a tombstone) for a removed offer.
 *   <li>{@value #DEAD_LETTERS}: every rejected message, with its original key and value and the
 *       headers {@value #REASON_HEADER} (why, UTF-8), {@value #STAGE_HEADER} ({@code loader} or
 *       {@code indexer}) and {@value #SOURCE_HEADER} (where it came from: {@code
 *       topic/partition@offset} or {@code snapshot <partner>/<id>}).
 * </ul>
 *
 * <p>Thread safety: stateless, safe from any thread.
 */
public final class OfferTopics {
  /** The default offers topic. */
  public static final String OFFERS = "offers";

  /** The default topic of partner feed snapshots (one serialized FeedSnapshot per record). */
  public static final String FEEDS = "feeds";

  /** The default consumer group of feed loaders following the feeds topic. */
  public static final String FEED_LOADER_GROUP = "mosaic-feed-loader";

  /** The default dead-letter topic. */
  public static final String DEAD_LETTERS = "offers-dlq";

  /** The default consumer group of indexer nodes. */
  public static final String INDEXER_GROUP = "mosaic-indexer";

  /** Dead-letter header: the reason the message was rejected (UTF-8). */
  public static final String REASON_HEADER = "mosaic.dlq.reason";

  /** Dead-letter header: which stage rejected it, {@code loader} or {@code indexer}. */
  public static final String STAGE_HEADER = "mosaic.dlq.stage";

  /** Dead-letter header: where the message came from. */
  public static final String SOURCE_HEADER = "mosaic.dlq.source";

  private OfferTopics() {}

  /**
   * Creates the offers topic (compacted, {@code kafkaPartitions} partitions) and the dead-letter
   * topic (deleting, 1 partition), unless they exist, with the given replication factor.
   *
   * @throws IllegalStateException when Kafka refuses or does not answer within 30 s
   */
  public static void create(
      Admin admin,
      String offersTopic,
      int kafkaPartitions,
      String deadLetterTopic,
      short replicationFactor) {
    NewTopic offers =
        new NewTopic(offersTopic, kafkaPartitions, replicationFactor)
            .configs(
                Map.of(
                    TopicConfig.CLEANUP_POLICY_CONFIG,
                    TopicConfig.CLEANUP_POLICY_COMPACT,
                    TopicConfig.MAX_MESSAGE_BYTES_CONFIG,
                    Integer.toString(16 << 20)));
    NewTopic dlq = new NewTopic(deadLetterTopic, 1, replicationFactor);
    createIfMissing(admin, offers);
    createIfMissing(admin, dlq);
    awaitLeaders(admin, List.of(offersTopic, deadLetterTopic), Duration.ofSeconds(30));
  }

  /**
   * Creates a topic of partner snapshots (one serialized {@code FeedSnapshot} per record, keyed by
   * partner id so that one partner's snapshots stay in order) with {@code partitions} partitions
   * and records of up to 64 MiB, unless it exists.
   *
   * @throws IllegalStateException when Kafka refuses or does not answer within 30 s
   */
  public static void createSnapshotTopic(
      Admin admin, String topic, int partitions, short replicationFactor) {
    createIfMissing(
        admin,
        new NewTopic(topic, partitions, replicationFactor)
            .configs(Map.of(TopicConfig.MAX_MESSAGE_BYTES_CONFIG, Integer.toString(64 << 20))));
    awaitLeaders(admin, List.of(topic), Duration.ofSeconds(30));
  }

  private static void createIfMissing(Admin admin, NewTopic topic) {
    try {
      admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (!(e.getCause() instanceof TopicExistsException)) {
        throw new IllegalStateException(
            "could not create topic '" + topic.name() + "'", e.getCause());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted creating topic '" + topic.name() + "'", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("topic '" + topic.name() + "' not created within 30 s", e);
    }
  }

  /**
   * Waits until every partition of the topics has a leader, so the first produce does not race the
   * partitions' creation (an idempotent producer can otherwise wedge on a fresh partition).
   *
   * @throws IllegalStateException when a partition has no leader after the timeout
   */
  public static void awaitLeaders(Admin admin, List<String> topics, Duration timeout) {
    long deadline = System.nanoTime() + timeout.toNanos();
    String missing = "";
    while (System.nanoTime() < deadline) {
      try {
        missing = "";
        for (TopicDescription d :
            admin.describeTopics(topics).allTopicNames().get(10, TimeUnit.SECONDS).values()) {
          for (TopicPartitionInfo p : d.partitions()) {
            if (p.leader() == null || p.leader().isEmpty()) {
              missing = d.name() + "-" + p.partition();
            }
          }
        }
        if (missing.isEmpty()) {
          return;
        }
      } catch (ExecutionException | TimeoutException e) {
        missing = e.getMessage();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(
            "interrupted waiting for partition leaders of " + topics, e);
      }
      try {
        Thread.sleep(50); // polling interval of a bounded wait, not synchronization
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(
            "interrupted waiting for partition leaders of " + topics, e);
      }
    }
    throw new IllegalStateException("no leader within " + timeout + " for " + missing);
  }
}
