package dev.mosaic.indexer;

import dev.mosaic.format.Schema;
import dev.mosaic.partition.PartitionManifest;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's consumer thread: follows the offers topic as a member of the group, restores each
 * assigned Kafka partition from the beginning (the topic is compacted) up to the end offset seen at
 * assignment, claims the ownership epochs of its index partitions, applies every change to the
 * partition state (dead-lettering bad messages) and marks changed partitions dirty. Offsets are
 * never committed.
 *
 * <p>Thread safety: the consumer is used by its thread only; the getters are safe from any thread.
 */
final class OfferConsumer {
  /** The shortest silence after which an open batch counts as lost (see the constructor). */
  private static final Duration BATCH_EXPIRY_FLOOR = Duration.ofSeconds(1);

  private static final Logger LOG = LoggerFactory.getLogger(OfferConsumer.class);

  private final IndexerConfig config;
  private final Ownership ownership;
  private final OfferValidator validator;
  private final RebuildScheduler scheduler;
  private final Reconciler reconciler;
  private final Supplier<Schema> schema;
  private final PartitionManifest manifest;
  private final Map<TopicPartition, Long> restoring = new ConcurrentHashMap<>();
  private final Map<TopicPartition, Long> restoreStarted = new ConcurrentHashMap<>();
  private final Set<Integer> unclaimed = ConcurrentHashMap.newKeySet();
  private final Set<Integer> restoreRequests = ConcurrentHashMap.newKeySet();
  private volatile boolean restoreAllRequested;
  private final AtomicLong lag = new AtomicLong();
  private final BatchTracker batches;
  private KafkaConsumer<byte[], byte[]> consumer;
  private DeadLetterPublisher deadLetters;
  private Thread thread;
  private volatile boolean running;
  private volatile boolean polledOnce;
  private volatile boolean leaveGroupOnClose = true;
  private volatile Throwable failure;

  OfferConsumer(
      IndexerConfig config,
      Ownership ownership,
      RebuildScheduler scheduler,
      Reconciler reconciler,
      Supplier<Schema> schema) {
    this.config = config;
    this.ownership = ownership;
    this.validator = new OfferValidator(config.feedLimits(), config.partitions());
    this.scheduler = scheduler;
    this.reconciler = reconciler;
    this.schema = schema;
    this.manifest = config.manifest();
    // a batch none of whose records came for twice the debounce (at least a second) has lost its
    // marker: closed incomplete, its partitions stop waiting for it (they wait for nothing else
    // while it is open, see DirtyPartitions)
    this.batches =
        new BatchTracker(Math.max(2 * config.debounce().toNanos(), BATCH_EXPIRY_FLOOR.toNanos()));
  }

  /** Starts the consumer thread; the consumer and publisher are used (and closed) by it. */
  void start(KafkaConsumer<byte[], byte[]> consumer, DeadLetterPublisher deadLetters) {
    this.consumer = consumer;
    this.deadLetters = deadLetters;
    running = true;
    thread = Thread.ofPlatform().name(config.nodeName() + "-consumer").start(this::follow);
  }

  private void follow() {
    try {
      consumer.subscribe(List.of(config.offersTopic()), new Rebalance());
      while (running) {
        config.hooks().eachPoll().run();
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          apply(r);
        }
        batches.expire(System.nanoTime(), scheduler::closeBatch);
        claimEpochs();
        restartRequestedRestores();
        finishRestores();
        updateLag();
        polledOnce = true;
      }
    } catch (WakeupException e) {
      if (running) {
        failure = e;
        LOG.error("indexer consumer woken up unexpectedly", e);
      }
    } catch (Throwable t) {
      failure = t;
      LOG.error("indexer consumer failed; the node stops following the offers topic", t);
    } finally {
      try {
        consumer.close(
            CloseOptions.groupMembershipOperation(
                    leaveGroupOnClose
                        ? CloseOptions.GroupMembershipOperation.LEAVE_GROUP
                        : CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP)
                .withTimeout(Duration.ofSeconds(5)));
      } catch (RuntimeException e) {
        LOG.warn("closing the consumer failed", e);
      }
    }
  }

  private final class Rebalance implements ConsumerRebalanceListener {
    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> assigned) {
      if (assigned.isEmpty()) {
        return;
      }
      Map<TopicPartition, Long> ends = consumer.endOffsets(assigned);
      for (TopicPartition tp : assigned) {
        ownership.assign(tp.partition());
        unclaimed.add(tp.partition());
        restoring.put(tp, ends.getOrDefault(tp, 0L));
        restoreStarted.put(tp, System.nanoTime());
      }
      consumer.seekToBeginning(assigned);
      claimEpochs();
      LOG.info("assigned offers partitions {}; restoring them", numbers(assigned));
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> revoked) {
      drop(revoked, "revoked");
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> lost) {
      drop(lost, "lost");
    }

    private void drop(Collection<TopicPartition> tps, String why) {
      if (tps.isEmpty()) {
        return;
      }
      for (TopicPartition tp : tps) {
        restoring.remove(tp);
        restoreStarted.remove(tp);
        unclaimed.remove(tp.partition());
        batches.forget(tp.partition());
        for (int p : ownership.indexPartitionsOf(tp.partition())) {
          scheduler.clear(p);
        }
        ownership.drop(tp.partition());
      }
      LOG.info("offers partitions {} {}; their state is dropped", numbers(tps), why);
    }
  }

  private static List<Integer> numbers(Collection<TopicPartition> tps) {
    return tps.stream().map(TopicPartition::partition).sorted().toList();
  }

  /**
   * Claims the ownership epochs of newly assigned Kafka partitions' index partitions (retried at
   * every poll while ZooKeeper is away; a partition is not restored, hence never rebuilt, before).
   */
  private void claimEpochs() {
    for (int k : List.copyOf(unclaimed)) {
      int[] ps = ownership.indexPartitionsOf(k);
      try {
        long[] epochs = manifest.claimAll(ps, config.nodeName());
        for (int i = 0; i < ps.length; i++) {
          ownership.claimed(ps[i], epochs[i]);
        }
        unclaimed.remove(k);
      } catch (Exception e) {
        LOG.warn(
            "claiming the partitions of offers partition {} failed; retrying: {}", k, e.toString());
      }
    }
  }

  /**
   * Asks the consumer thread to restore the Kafka partition of index partition {@code p} from the
   * beginning again (its state lost what a rebuild needs, e.g. its base file).
   */
  void requestRestore(int p) {
    restoreRequests.add(p % ownership.kafkaPartitions());
  }

  /** Asks the consumer thread to restore every assigned partition again (a new schema). */
  void requestRestoreAll() {
    restoreAllRequested = true;
  }

  private void restartRequestedRestores() {
    if (!restoreAllRequested && restoreRequests.isEmpty()) {
      return;
    }
    List<TopicPartition> again = new java.util.ArrayList<>();
    boolean all = restoreAllRequested;
    restoreAllRequested = false;
    for (TopicPartition tp : consumer.assignment()) {
      if (all | restoreRequests.remove(tp.partition())) {
        again.add(tp);
      }
    }
    restoreRequests.clear();
    if (again.isEmpty()) {
      return;
    }
    Map<TopicPartition, Long> ends = consumer.endOffsets(again);
    for (TopicPartition tp : again) {
      for (int p : ownership.indexPartitionsOf(tp.partition())) {
        scheduler.clear(p);
      }
      ownership.reset(tp.partition());
      batches.forget(tp.partition());
      restoring.put(tp, ends.getOrDefault(tp, 0L));
      restoreStarted.put(tp, System.nanoTime());
    }
    consumer.seekToBeginning(again);
    LOG.info("restoring offers partitions {} again", numbers(again));
  }

  private void apply(ConsumerRecord<byte[], byte[]> r) {
    int k = r.partition();
    byte[] key = r.key();
    if (BatchEnd.isMarker(key)) {
      endBatch(r);
      return;
    }
    long batch;
    try {
      batch = BatchEnd.batchOf(r.headers());
    } catch (IllegalArgumentException e) {
      // the record itself is fine: apply it as a change outside any batch (debounced)
      LOG.warn("{}/{}@{}: {}", r.topic(), k, r.offset(), e.getMessage());
      batch = BatchEnd.NONE;
    }
    int p;
    try {
      p = OfferKeys.partitionOfKey(key);
    } catch (IllegalArgumentException e) {
      deadLetter(r, e.getMessage());
      return;
    }
    String misplaced = validator.checkPlacement(p, k, ownership.kafkaPartitions());
    if (misplaced != null) {
      deadLetter(r, misplaced);
      return;
    }
    PartitionState s = ownership.state(p);
    if (s == null) {
      return; // revoked meanwhile
    }
    long keyHash = ContentHash.of(key, 0, key.length);
    boolean changed;
    if (r.value() == null) {
      changed = s.remove(keyHash);
    } else {
      String reason = validator.check(r.value(), p, schema.get());
      if (reason != null) {
        deadLetter(r, reason);
        changed = s.remove(keyHash);
      } else {
        changed = s.put(keyHash, r.value());
      }
    }
    if (!ownership.isRestored(k)) {
      return;
    }
    if (batch != BatchEnd.NONE && batches.record(k, batch, p, changed, System.nanoTime())) {
      scheduler.markInBatch(p);
    } else if (changed) {
      scheduler.mark(p);
    }
  }

  /** A batch end marker: the batch's partitions here may be due at once. */
  private void endBatch(ConsumerRecord<byte[], byte[]> r) {
    if (r.value() != null) {
      deadLetter(r, "a batch end marker must have a null value");
      return;
    }
    BatchEnd end;
    try {
      end = BatchEnd.of(r.headers());
    } catch (IllegalArgumentException e) {
      deadLetter(r, e.getMessage());
      return;
    }
    if (!ownership.isRestored(r.partition())) {
      return; // read while restoring: the restore covers the batch
    }
    if (!batches.end(r.partition(), end, scheduler::closeBatch).isEmpty()) {
      scheduler.batchesEnded();
    }
  }

  private void deadLetter(ConsumerRecord<byte[], byte[]> r, String reason) {
    deadLetters.publish(
        r.key(), r.value(), r.topic() + "/" + r.partition() + "@" + r.offset(), reason);
  }

  private void finishRestores() {
    if (restoring.isEmpty()) {
      return;
    }
    for (Map.Entry<TopicPartition, Long> e : List.copyOf(restoring.entrySet())) {
      TopicPartition tp = e.getKey();
      int k = tp.partition();
      if (consumer.position(tp) < e.getValue() || unclaimed.contains(k)) {
        continue;
      }
      int offers = 0;
      int reconciled = 0;
      Schema current = schema.get();
      for (int p : ownership.indexPartitionsOf(k)) {
        PartitionState s = ownership.state(p);
        if (s != null) {
          s.trim();
          offers += s.size();
          if (reconciler.reconcile(p, s, current)) {
            reconciled++;
          }
        }
      }
      ownership.restored(k);
      restoring.remove(tp);
      Long began = restoreStarted.remove(tp);
      LOG.info(
          "restored offers partition {}: {} offers up to offset {} in {} ms; {} index partitions"
              + " differ from the manifest and will be rebuilt",
          k,
          offers,
          e.getValue(),
          began == null ? -1 : TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began),
          reconciled);
    }
  }

  private void updateLag() {
    long total = 0;
    for (TopicPartition tp : consumer.assignment()) {
      total += consumer.currentLag(tp).orElse(0);
    }
    lag.set(total);
  }

  /** True while some assigned offers partition is still being restored. */
  boolean isRestoring() {
    return !restoring.isEmpty();
  }

  /** Records behind the end of the assigned partitions, as of the last poll. */
  long lag() {
    return lag.get();
  }

  /** Read everything assigned (restores done, no lag) as of the last poll. */
  boolean caughtUp() {
    return polledOnce && restoring.isEmpty() && lag.get() == 0;
  }

  /** The error that stopped the consumer thread, if any. */
  Throwable failure() {
    return failure;
  }

  /**
   * Stops the thread and closes the consumer.
   *
   * @param leaveGroup false to stay in the group until the session times out (a crash)
   */
  void stop(boolean leaveGroup) {
    leaveGroupOnClose = leaveGroup;
    running = false;
    if (consumer != null) {
      consumer.wakeup();
    }
    if (thread != null) {
      try {
        thread.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
