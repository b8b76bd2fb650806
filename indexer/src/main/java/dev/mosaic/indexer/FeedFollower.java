package dev.mosaic.indexer;

import io.micrometer.core.instrument.Counter;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows a topic of partner snapshots (one serialized {@code FeedSnapshot} per record) on its own
 * thread and hands each to the loader, committing its offset once published. The snapshots of one
 * poll (at most {@link #MAX_BATCH_SNAPSHOTS}) are published as one {@link FeedBatch}. A record that
 * is not a usable snapshot is dead-lettered at once; a snapshot whose publishing fails is tried
 * again after a backoff, and after {@link SnapshotRetry#maxAttempts()} failed tries it is
 * dead-lettered with the last failure and the follower moves on to the next record, so one partner
 * that cannot be processed never blocks the others on its feeds partition.
 *
 * <p>Thread safety: {@link #start} and {@link #close} from the owner; everything else on the
 * follower's thread.
 */
final class FeedFollower implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FeedFollower.class);

  /**
   * The most snapshots one poll returns, so one batch holds: a backlog is published in batches of
   * this many, and a poll's snapshots (each retried up to {@link SnapshotRetry#maxAttempts()}) stay
   * well within the consumer's poll interval.
   */
  static final int MAX_BATCH_SNAPSHOTS = 16;

  private final String topic;
  private final SnapshotRetry retry;
  private final FeedLoader loader;
  private final DeadLetterPublisher deadLetters;
  private final Counter rejected;
  private final Counter failures;
  private final KafkaConsumer<byte[], byte[]> consumer;
  private final CountDownLatch closing = new CountDownLatch(1);
  private Thread thread;

  FeedFollower(
      String bootstrapServers,
      String topic,
      String groupId,
      SnapshotRetry retry,
      FeedLoader loader,
      DeadLetterPublisher deadLetters,
      Counter rejected,
      Counter failures) {
    this.topic = topic;
    this.retry = retry;
    this.loader = loader;
    this.deadLetters = deadLetters;
    this.rejected = rejected;
    this.failures = failures;
    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    cp.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, Integer.toString(MAX_BATCH_SNAPSHOTS));
    cp.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(256 << 20));
    cp.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(256 << 20));
    cp.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "600000");
    consumer = new KafkaConsumer<>(cp, new ByteArrayDeserializer(), new ByteArrayDeserializer());
  }

  FeedFollower start() {
    thread = Thread.ofPlatform().name("feed-loader-feeds").start(this::follow);
    return this;
  }

  private void follow() {
    try {
      consumer.subscribe(List.of(topic));
      while (closing.getCount() > 0) {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(200));
        if (records.isEmpty()) {
          continue;
        }
        // one batch per poll: the indexers rebuild each partition the poll's snapshots changed
        // once; a follower closing mid-poll leaves the batch to expire
        FeedBatch batch = loader.batch();
        for (ConsumerRecord<byte[], byte[]> r : records) {
          if (!handle(r, batch)) {
            return;
          }
          consumer.commitSync(
              Map.of(
                  new TopicPartition(r.topic(), r.partition()),
                  new OffsetAndMetadata(r.offset() + 1)));
        }
        try {
          batch.end();
        } catch (IOException e) {
          LOG.warn(
              "the snapshots of a poll of {} are published, but their batch end markers failed;"
                  + " indexers rebuild their partitions after their debounce: {}",
              topic,
              e.getMessage());
        }
      }
    } catch (WakeupException e) {
      if (closing.getCount() > 0) {
        LOG.error("feeds consumer woken up unexpectedly", e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("following the feeds topic failed; snapshots there are no longer loaded", e);
    } finally {
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  /**
   * Publishes one record's snapshot, retrying, or dead-letters it.
   *
   * @return false when the follower is closing and the record was left uncommitted
   */
  private boolean handle(ConsumerRecord<byte[], byte[]> r, FeedBatch batch)
      throws InterruptedException {
    String source = r.topic() + "/" + r.partition() + "@" + r.offset();
    SnapshotBytes snapshot;
    try {
      snapshot = SnapshotBytes.read(r.value() == null ? new byte[0] : r.value());
      OfferKeys.checkPartnerId(snapshot.partnerId());
    } catch (IllegalArgumentException e) {
      rejected.increment();
      deadLetters.publish(
          r.key(), r.value(), source, "not a usable FeedSnapshot: " + e.getMessage());
      return true;
    }
    for (int attempt = 1; ; attempt++) {
      try {
        loader.publish(snapshot, batch);
        return true;
      } catch (IOException | RuntimeException e) {
        failures.increment();
        if (attempt >= retry.maxAttempts()) {
          rejected.increment();
          deadLetters.publish(
              r.key(),
              r.value(),
              source,
              "snapshot of partner '"
                  + snapshot.partnerId()
                  + "' failed "
                  + attempt
                  + " attempts; last: "
                  + e);
          return true;
        }
        Duration wait = retry.backoffAfter(attempt);
        LOG.warn(
            "publishing the snapshot of partner '{}' at {} failed (attempt {} of {}); retrying in"
                + " {} ms",
            snapshot.partnerId(),
            source,
            attempt,
            retry.maxAttempts(),
            wait.toMillis(),
            e);
        if (closing.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
          return false;
        }
      }
    }
  }

  /** Stops following; the record in progress, if any, is left uncommitted. */
  @Override
  public void close() {
    closing.countDown();
    consumer.wakeup();
    if (thread != null) {
      try {
        thread.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
