package dev.mosaic.indexer;

import io.micrometer.core.instrument.Counter;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
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
 * thread and hands them to the loader, committing their offsets once published. The snapshots of
 * one poll (at most {@link #MAX_BATCH_SNAPSHOTS}) are published as one {@link FeedBatch}, different
 * partners in parallel ({@link PartnerLanes}: as many at once as the loader's publishing threads),
 * each partner's snapshots in their order on the topic. A record that is not a usable snapshot is
 * dead-lettered at once; a snapshot whose publishing fails is tried again after a backoff, and
 * after {@link SnapshotRetry#maxAttempts()} failed tries it is dead-lettered with the last failure,
 * so one partner that cannot be processed never blocks the others on its feeds partition.
 *
 * <p>Thread safety: {@link #start} and {@link #close} from the owner; polling and committing on the
 * follower's thread, publishing on the lanes' threads.
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
  private final PartnerLanes lanes;
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
      Counter failures,
      int publishThreads) {
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
    lanes = new PartnerLanes(publishThreads, "feed-loader-publish-");
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
        if (!publish(records, batch)) {
          return;
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
      lanes.close();
      consumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  /** A record and its snapshot as read, or why it is not a usable one. */
  private record Arrived(
      ConsumerRecord<byte[], byte[]> record, SnapshotBytes snapshot, String problem) {
    String source() {
      return record.topic() + "/" + record.partition() + "@" + record.offset();
    }
  }

  /**
   * Publishes a poll's snapshots into {@code batch}: all of them are read at once, the unusable
   * ones dead-lettered, then partners are published in parallel ({@link PartnerLanes}), each
   * partner's snapshots in the poll's order; then the offsets of what was handled are committed,
   * per feeds partition up to its first record left unhandled.
   *
   * @return false when the follower is closing and a record was left uncommitted
   */
  private boolean publish(ConsumerRecords<byte[], byte[]> records, FeedBatch batch)
      throws InterruptedException {
    List<ConsumerRecord<byte[], byte[]>> polled = new ArrayList<>(records.count());
    records.forEach(polled::add);
    Arrived[] arrived = new Arrived[polled.size()];
    // reading walks every offer of the snapshot: the heaviest part of a diff, so in parallel too
    lanes.each(polled.size(), i -> arrived[i] = read(polled.get(i)));
    List<Integer> usable = new ArrayList<>(polled.size());
    boolean[] handled = new boolean[polled.size()];
    for (int i = 0; i < arrived.length; i++) {
      Arrived a = arrived[i];
      if (a.problem() == null) {
        usable.add(i);
        continue;
      }
      rejected.increment();
      ConsumerRecord<byte[], byte[]> r = a.record();
      deadLetters.publish(r.key(), r.value(), a.source(), a.problem());
      handled[i] = true;
    }
    lanes.run(
        usable,
        i -> arrived[i].snapshot().partnerId(),
        i -> handled[i] = handle(arrived[i], batch));
    Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();
    Set<TopicPartition> blocked = new HashSet<>();
    boolean all = true;
    for (int i = 0; i < polled.size(); i++) {
      ConsumerRecord<byte[], byte[]> r = polled.get(i);
      TopicPartition tp = new TopicPartition(r.topic(), r.partition());
      if (!handled[i]) {
        all = false;
        blocked.add(tp);
      } else if (!blocked.contains(tp)) {
        commits.put(tp, new OffsetAndMetadata(r.offset() + 1));
      }
    }
    if (!commits.isEmpty()) {
      consumer.commitSync(commits);
    }
    return all;
  }

  private static Arrived read(ConsumerRecord<byte[], byte[]> r) {
    try {
      SnapshotBytes snapshot = SnapshotBytes.read(r.value() == null ? new byte[0] : r.value());
      OfferKeys.checkPartnerId(snapshot.partnerId());
      return new Arrived(r, snapshot, null);
    } catch (IllegalArgumentException e) {
      return new Arrived(r, null, "not a usable FeedSnapshot: " + e.getMessage());
    }
  }

  /**
   * Publishes one record's snapshot, retrying, or dead-letters it. Runs on a lane's thread.
   *
   * @return false when the follower is closing and the record was left uncommitted
   */
  private boolean handle(Arrived a, FeedBatch batch) throws InterruptedException {
    ConsumerRecord<byte[], byte[]> r = a.record();
    SnapshotBytes snapshot = a.snapshot();
    String source = a.source();
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
