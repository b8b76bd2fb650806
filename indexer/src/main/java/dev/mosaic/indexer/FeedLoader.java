package dev.mosaic.indexer;

import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.schema.PayloadCheck;
import dev.mosaic.format.Schema;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns partners' full feed snapshots into changes on the compacted offers topic: each snapshot is
 * diffed against the same partner's previous one, and only new or changed offers are published
 * (upserts), plus a tombstone for every offer that disappeared or moved to another index partition.
 * Keys and routing follow {@link OfferKeys}.
 *
 * <p><b>Diff by fingerprint.</b> A snapshot is read offer by offer from its serialized bytes, in
 * one walk ({@link SnapshotBytes}, {@link OfferBytes}): for each offer only the hashes of its id
 * and dedup key and a fingerprint of its wire bytes (ignoring {@code partner_id} and {@code
 * observed_at_millis}) are taken ({@link OfferDigests}), and compared with the previous snapshot's
 * ({@link PartnerSnapshotState}) by a {@link SnapshotDiff}. An unchanged offer is never parsed into
 * an object, serialized or even read again; a new or changed one is read again, parsed, checked and
 * published as the bytes it came in (with the partner id and observation time added when missing).
 * {@link #publish(byte[])} and {@link #publish(Path)} take the bytes as they arrive; {@link
 * #publish(FeedSnapshot)} serializes the snapshot once first.
 *
 * <p><b>Checks</b> ({@link OfferChecks}). Every offer needs an offer id, a dedup key, the
 * snapshot's partner (or none), and a unique offer id in the snapshot; a new or changed offer must
 * also be within {@link FeedMessageLimits}, map to a document of the schema ({@link
 * OfferDocuments}) and pass the {@link Builder#payloadCheck payload check} (the index's Protobuf
 * descriptor). An offer failing a check goes to the dead-letter topic with the reason and counts as
 * absent from the snapshot.
 *
 * <p><b>State.</b> With a {@link Builder#stateDir state directory}, each partner's state is written
 * durably ({@link PartnerStateFiles}) once the snapshot is acknowledged by Kafka, then becomes the
 * base of the next diff. A state file that cannot be read (truncated, corrupt, another version) is
 * rebuilt from the compacted offers topic ({@link OffersTopicRecovery}) with a log line naming the
 * file and the reason. Without a state directory, a restarted loader republishes the next snapshot
 * in full and cannot delete offers that disappeared meanwhile.
 *
 * <p><b>Feeds topic.</b> With {@link Builder#feedsTopic}, snapshots arriving there are published as
 * they come ({@link FeedFollower}), the snapshots of one poll as one batch, {@link
 * Builder#publishThreads} partners at a time; one that keeps failing is dead-lettered after {@link
 * SnapshotRetry#maxAttempts()} tries and the next one flows.
 *
 * <p>Lifecycle: LATENT → STARTED → CLOSED by CAS. Thread safety: safe for concurrent use; snapshots
 * of one partner are published one at a time, different partners in parallel. NOTE: run one loader
 * per partner (two loaders diffing the same partner against different previous snapshots would
 * publish wrong deletes).
 */
public final class FeedLoader implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FeedLoader.class);

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  /**
   * Partners published at once from the feeds topic by default: a partner's publish reads its
   * snapshot, diffs it and then waits for Kafka's acknowledgements about as long again, so four
   * times the cores of a small machine keep it busy (the benchmarks publish a cycle with as many
   * threads). On 2 cores, 8 threads took the indexer bench's diff from 335 and 334 ms (4 threads)
   * to 279 and 286 ms in alternating runs. Each thread holds the snapshot it publishes.
   */
  public static final int DEFAULT_PUBLISH_THREADS = 8;

  /** Changes queued before they go to the producer together. */
  private static final int SEND_BURST = 1024;

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final Config config;
  private final Map<String, Object> partnerLocks = new ConcurrentHashMap<>();
  private final Map<String, PartnerSnapshotState> previous = new ConcurrentHashMap<>();
  private final PartnerStateFiles stateFiles;
  private final OfferChecks checks;
  private final ThreadLocal<OfferBytes> offerReaders = ThreadLocal.withInitial(OfferBytes::new);
  private final Counter upserts;
  private final Counter deletes;
  private final Counter rejected;
  private final Counter recoveries;
  private FeedFollower follower;
  private KafkaProducer<byte[], byte[]> producer;
  private DeadLetterPublisher deadLetters;
  private int kafkaPartitions;

  private FeedLoader(Config config) {
    this.config = config;
    this.stateFiles = config.stateDir() == null ? null : new PartnerStateFiles(config.stateDir());
    this.checks = new OfferChecks(config.schema(), config.limits(), config.payloadCheck());
    MeterRegistry registry = config.meterRegistry();
    this.upserts = Counter.builder("mosaic.feedloader.upserts").register(registry);
    this.deletes = Counter.builder("mosaic.feedloader.deletes").register(registry);
    this.rejected = Counter.builder("mosaic.feedloader.rejected").register(registry);
    this.recoveries =
        Counter.builder("mosaic.feedloader.state.recoveries")
            .description("partner states rebuilt from the offers topic")
            .register(registry);
  }

  /** A builder; bootstrap servers and schema are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Connects the producer and reads the offers topic's partition count.
   *
   * @return this
   * @throws IllegalStateException if already started or closed, or the offers topic does not exist
   */
  public FeedLoader start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("FeedLoader cannot start: it is " + state.get());
    }
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(16 << 20));
    p.put(ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(128L << 20));
    p.putAll(config.producerProperties());
    producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    deadLetters =
        new DeadLetterPublisher(
            producer, config.deadLetterTopic(), "loader", "feed-loader", config.meterRegistry());
    try {
      kafkaPartitions = producer.partitionsFor(config.offersTopic()).size();
    } catch (RuntimeException e) {
      close();
      throw new IllegalStateException(
          "offers topic '" + config.offersTopic() + "' is not available: " + e.getMessage(), e);
    }
    if (stateFiles != null) {
      Files.createDirectories(config.stateDir());
      stateFiles.deleteTemporaryFiles();
    }
    if (config.feedsTopic() != null) {
      follower =
          new FeedFollower(
                  config.bootstrapServers(),
                  config.feedsTopic(),
                  config.feedsGroupId(),
                  config.retry(),
                  this,
                  deadLetters,
                  rejected,
                  Counter.builder("mosaic.feedloader.snapshot.failures")
                      .description("failed tries to publish a snapshot from the feeds topic")
                      .register(config.meterRegistry()),
                  config.publishThreads())
              .start();
    }
    LOG.info(
        "feed loader started: topic {} ({} Kafka partitions), {} index partitions, schema v{}",
        config.offersTopic(),
        kafkaPartitions,
        config.partitions(),
        config.schema().version());
    return this;
  }

  /**
   * Publishes a snapshot file (one serialized {@link FeedSnapshot}).
   *
   * @throws IOException if the file cannot be read or is not a snapshot (naming the file), or Kafka
   *     fails
   */
  public PublishResult publish(Path snapshotFile) throws IOException, InterruptedException {
    return publishAlone(readSnapshotFile(snapshotFile));
  }

  static SnapshotBytes readSnapshotFile(Path snapshotFile) throws IOException {
    try {
      return SnapshotBytes.read(Files.readAllBytes(snapshotFile));
    } catch (IllegalArgumentException e) {
      throw new IOException("snapshot file " + snapshotFile + ": " + e.getMessage(), e);
    }
  }

  /**
   * Publishes a snapshot as it arrived (one serialized {@link FeedSnapshot}); the fast path: no
   * unchanged offer is parsed.
   *
   * @throws IllegalArgumentException if the bytes are not a snapshot or it has no valid partner id
   * @throws IOException if Kafka did not acknowledge every change
   */
  public PublishResult publish(byte[] serializedSnapshot) throws IOException, InterruptedException {
    return publishAlone(SnapshotBytes.read(serializedSnapshot));
  }

  /**
   * Diffs a partner's full snapshot against the previous one and publishes the changes, waiting
   * until Kafka acknowledged all of them. Only then does the snapshot become the partner's previous
   * one; on failure the next publish diffs against the same old snapshot again. Serializes the
   * snapshot once; {@link #publish(byte[])} avoids even that.
   *
   * @throws IllegalArgumentException if the snapshot has no valid partner id
   * @throws IOException if Kafka did not acknowledge every change
   */
  public PublishResult publish(FeedSnapshot snapshot) throws IOException, InterruptedException {
    OfferKeys.checkPartnerId(snapshot.getPartnerId());
    return publishAlone(SnapshotBytes.read(snapshot.toByteArray()));
  }

  /**
   * A batch of snapshots to publish together (a feed cycle): the indexers rebuild each partition
   * the batch changed once, as soon as {@link FeedBatch#end()} marked the batch complete. A single
   * {@code publish} is a batch of its own.
   */
  public FeedBatch batch() {
    checkStarted();
    return new FeedBatch(this, kafkaPartitions);
  }

  /**
   * One snapshot as a batch of its own; a marker that fails leaves the debounce to the indexers.
   */
  private PublishResult publishAlone(SnapshotBytes snapshot)
      throws IOException, InterruptedException {
    checkStarted();
    FeedBatch batch = new FeedBatch(this, kafkaPartitions);
    PublishResult result = publish(snapshot, batch);
    try {
      batch.end();
    } catch (IOException e) {
      LOG.warn(
          "snapshot {}/{} is published, but its batch end markers failed; indexers rebuild its"
              + " partitions after their debounce: {}",
          result.partnerId(),
          result.snapshotId(),
          e.getMessage());
    }
    return result;
  }

  PublishResult publish(SnapshotBytes snapshot, FeedBatch batch)
      throws IOException, InterruptedException {
    checkStarted();
    String partner = snapshot.partnerId();
    OfferKeys.checkPartnerId(partner);
    synchronized (partnerLocks.computeIfAbsent(partner, k -> new Object())) {
      return publishLocked(partner, snapshot, batch);
    }
  }

  /** Writes the batch's end markers and waits for their acknowledgements. */
  void endBatch(FeedBatch batch) throws IOException, InterruptedException {
    PendingSends pending = new PendingSends();
    for (int k = 0; k < batch.kafkaPartitions(); k++) {
      BatchEnd end = batch.endOf(k);
      if (end != null) {
        pending.add();
        try {
          producer.send(end.toRecord(config.offersTopic(), k), pending);
        } catch (RuntimeException e) {
          pending.cancel();
          pending.await();
          throw new IOException("batch end marker for offers partition " + k + ": " + e, e);
        }
      }
    }
    Exception failure = pending.await();
    if (failure != null) {
      throw new IOException(
          "batch " + Long.toHexString(batch.id()) + ": an end marker was not acknowledged",
          failure);
    }
  }

  private PublishResult publishLocked(String partner, SnapshotBytes snapshot, FeedBatch batch)
      throws IOException, InterruptedException {
    long began = System.nanoTime();
    PendingSends pending = new PendingSends();
    int deleteCount = 0;
    PartnerSnapshotState prev = previous.get(partner);
    if (prev == null) {
      Recovery recovery = previousState(partner);
      prev = recovery.state();
      for (OffersTopicRecovery.OfferAt stale : recovery.staleKeys()) {
        send(pending, batch, stale.partition(), partner, stale.offerHash(), null);
        deleteCount++;
      }
    }
    if (deleteCount == 0 && prev.madeFromTheSameDigests(snapshot.digests())) {
      // every offer is what the state holds (timestamps aside), as when the state was made: no
      // change to publish, no state to write (offers refused then were dead-lettered then)
      long took = (System.nanoTime() - began) / 1_000_000;
      PublishResult result =
          new PublishResult(partner, snapshot.snapshotId(), 0, 0, prev.size(), 0, took, took, took);
      LOG.info("published {} (no offer changed)", result);
      return result;
    }
    BurstSends sends = new BurstSends(partner, pending, batch);
    OfferBytes reader = offerReaders.get();
    SnapshotDiff diff =
        new SnapshotDiff(
            partner,
            snapshot,
            prev,
            config.partitions(),
            checks,
            reader,
            config.clock().millis(),
            sends,
            this::refuse);
    try {
      diff.run();
    } finally {
      reader.release(); // a publishing thread lives on: it must not pin the snapshot's bytes
    }
    sends.flush();
    long diffed = System.nanoTime();
    deleteCount += diff.deletes();
    // The new state goes to disk while Kafka acknowledges; it replaces the old one only after.
    PartnerStateFiles.Staged staged = null;
    Exception failure;
    try {
      staged = stateFiles == null ? null : stateFiles.stage(partner, diff.next());
    } finally {
      failure = pending.await();
    }
    long acknowledged = Math.max(diffed, pending.lastCompletionNanos());
    if (failure != null) {
      if (staged != null) {
        staged.discard();
      }
      throw new IOException(
          "publishing "
              + diff.source()
              + " failed; the previous snapshot stays the base of the next diff",
          failure);
    }
    if (staged != null) {
      staged.commit();
    }
    previous.put(partner, diff.next());
    upserts.increment(diff.upserts());
    deletes.increment(deleteCount);
    PublishResult result =
        new PublishResult(
            partner,
            snapshot.snapshotId(),
            diff.upserts(),
            deleteCount,
            diff.unchanged(),
            diff.rejected(),
            (System.nanoTime() - began) / 1_000_000,
            (diffed - began) / 1_000_000,
            (acknowledged - began) / 1_000_000);
    LOG.info("published {}", result);
    return result;
  }

  /**
   * A diff's changes on their way to the producer: queued and handed over in bursts ({@value
   * #SEND_BURST}) rather than one by one between offers, so the producer fills fewer, fuller
   * batches per Kafka partition. Confined to the publishing thread.
   */
  private final class BurstSends implements SnapshotDiff.Changes {
    private final String partner;
    private final PendingSends pending;
    private final FeedBatch batch;
    private final List<ProducerRecord<byte[], byte[]>> queued = new ArrayList<>();

    BurstSends(String partner, PendingSends pending, FeedBatch batch) {
      this.partner = partner;
      this.pending = pending;
      this.batch = batch;
    }

    @Override
    public void upsert(int indexPartition, long offerHash, byte[] value) {
      queue(record(batch, indexPartition, partner, offerHash, value));
    }

    @Override
    public void tombstone(int indexPartition, long offerHash) {
      queue(record(batch, indexPartition, partner, offerHash, null));
    }

    private void queue(ProducerRecord<byte[], byte[]> record) {
      queued.add(record);
      if (queued.size() >= SEND_BURST) {
        flush();
      }
    }

    /** Hands every queued change to the producer. */
    void flush() {
      for (ProducerRecord<byte[], byte[]> r : queued) {
        dispatch(pending, r);
      }
      queued.clear();
    }
  }

  private void send(
      PendingSends pending,
      FeedBatch batch,
      int indexPartition,
      String partner,
      long offerHash,
      byte[] value) {
    dispatch(pending, record(batch, indexPartition, partner, offerHash, value));
  }

  /** The record of one change, counted in its batch. */
  private ProducerRecord<byte[], byte[]> record(
      FeedBatch batch, int indexPartition, String partner, long offerHash, byte[] value) {
    int k = OfferKeys.kafkaPartition(indexPartition, kafkaPartitions);
    RecordHeaders headers = new RecordHeaders();
    headers.add(BatchEnd.BATCH_HEADER, batch.idHeader());
    batch.counted(k, value == null);
    return new ProducerRecord<>(
        config.offersTopic(),
        k,
        OfferKeys.recordKey(indexPartition, partner, offerHash),
        value,
        headers);
  }

  private void dispatch(PendingSends pending, ProducerRecord<byte[], byte[]> record) {
    pending.add();
    try {
      producer.send(record, pending);
    } catch (RuntimeException e) {
      pending.cancel();
      throw e;
    }
  }

  /** An offer refused by a diff: counted and dead-lettered. */
  private void refuse(byte[] key, byte[] value, String source, String reason) {
    rejected.increment();
    deadLetters.publish(key, value, source, reason);
  }

  /** A partner's previous state and the stale keys found while rebuilding it. */
  private record Recovery(
      PartnerSnapshotState state, List<OffersTopicRecovery.OfferAt> staleKeys) {}

  private Recovery previousState(String partner) throws IOException {
    if (stateFiles == null) {
      return new Recovery(new PartnerSnapshotState(0), List.of());
    }
    try {
      var read = stateFiles.read(partner);
      if (read.isPresent()) {
        LOG.info(
            "partner {}: previous snapshot of {} offers read from {}",
            partner,
            read.get().size(),
            stateFiles.fileFor(partner));
      } else {
        LOG.info("partner {}: no previous snapshot, every offer is new", partner);
      }
      return new Recovery(read.orElseGet(() -> new PartnerSnapshotState(0)), List.of());
    } catch (PartnerStateFiles.UnreadableStateException e) {
      LOG.warn(
          "partner {}: {}; rebuilding its previous snapshot from topic {}",
          partner,
          e.getMessage(),
          config.offersTopic());
      OffersTopicRecovery.Recovered r;
      try {
        r =
            new OffersTopicRecovery(
                    config.bootstrapServers(), config.offersTopic(), config.recoveryTimeout())
                .recover(partner);
      } catch (KafkaException ke) {
        throw new IOException(
            "partner "
                + partner
                + ": state unreadable and topic "
                + config.offersTopic()
                + " could not be read: "
                + ke.getMessage(),
            ke);
      }
      recoveries.increment();
      LOG.warn(
          "partner {}: previous snapshot of {} offers rebuilt from topic {} ({} records read in {}"
              + " ms, {} stale keys to tombstone)",
          partner,
          r.state().size(),
          config.offersTopic(),
          r.recordsRead(),
          r.elapsedMillis(),
          r.staleKeys().size());
      return new Recovery(r.state(), r.staleKeys());
    }
  }

  private void checkStarted() {
    if (state.get() != State.STARTED) {
      throw new IllegalStateException("FeedLoader is " + state.get() + ", not STARTED");
    }
  }

  /** Stops following the feeds topic, flushes and closes the producer; idempotent. */
  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) == State.CLOSED) {
      return;
    }
    if (follower != null) {
      follower.close();
    }
    if (producer != null) {
      producer.close();
    }
  }

  /**
   * What one snapshot changed.
   *
   * @param upserts new or changed offers published
   * @param deletes tombstones published (removed offers, old keys of moved offers, and stale keys
   *     found when a state was rebuilt from the topic)
   * @param unchanged offers identical to the previous snapshot's
   * @param rejected offers sent to the dead-letter topic
   * @param tookMillis from the start of the publish to its end (changes acknowledged, state
   *     written)
   * @param diffMillis from the start to every change handed to the producer (reading the previous
   *     state when not in memory, the diff, the sends)
   * @param acknowledgedMillis from the start to the last change acknowledged by Kafka (the new
   *     state is written to a temporary file meanwhile, and moved into place after)
   */
  public record PublishResult(
      String partnerId,
      long snapshotId,
      int upserts,
      int deletes,
      int unchanged,
      int rejected,
      long tookMillis,
      long diffMillis,
      long acknowledgedMillis) {}

  /**
   * A loader's immutable configuration, made by {@link Builder#build()}.
   *
   * @param stateDir where partners' states are kept, or null for memory only
   * @param feedsTopic a topic of snapshots to follow, or null
   * @param recoveryTimeout how long rebuilding a state from the offers topic may take
   * @param payloadCheck what new and changed offers' payloads are checked with
   * @param publishThreads partners the feeds topic's follower publishes at once
   */
  record Config(
      String bootstrapServers,
      String offersTopic,
      String deadLetterTopic,
      int partitions,
      Schema schema,
      MeterRegistry meterRegistry,
      Path stateDir,
      String feedsTopic,
      String feedsGroupId,
      Map<String, String> producerProperties,
      Clock clock,
      SnapshotRetry retry,
      FeedMessageLimits limits,
      Duration recoveryTimeout,
      PayloadCheck payloadCheck,
      int publishThreads) {
    Config {
      producerProperties = Map.copyOf(producerProperties);
    }
  }

  /** Configures a {@link FeedLoader}. Not thread safe. */
  public static final class Builder extends OfferPipelineBuilder<Builder> {
    private Path stateDir;
    private String feedsTopic;
    private String feedsGroupId = OfferTopics.FEED_LOADER_GROUP;
    private final Map<String, String> producerProperties = new HashMap<>();
    private Clock clock = Clock.systemUTC();
    private SnapshotRetry retry = SnapshotRetry.DEFAULT;
    private Duration recoveryTimeout = Duration.ofMinutes(10);
    private PayloadCheck payloadCheck = PayloadCheck.none();
    private int publishThreads = DEFAULT_PUBLISH_THREADS;

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /** Where partners' previous snapshots are kept across restarts (default: memory only). */
    public Builder stateDir(Path dir) {
      this.stateDir = dir;
      return this;
    }

    /**
     * Also follow a topic of partner snapshots (one serialized {@link FeedSnapshot} per record,
     * e.g. {@value OfferTopics#FEEDS}), committing each once published (default: none).
     */
    public Builder feedsTopic(String topic) {
      this.feedsTopic = Objects.requireNonNull(topic);
      return this;
    }

    /**
     * The consumer group following the feeds topic (default {@value
     * OfferTopics#FEED_LOADER_GROUP}).
     */
    public Builder feedsGroupId(String groupId) {
      this.feedsGroupId = Objects.requireNonNull(groupId);
      return this;
    }

    /**
     * How snapshots from the feeds topic are retried before being dead-lettered (default {@link
     * SnapshotRetry#DEFAULT}).
     */
    public Builder retry(SnapshotRetry retry) {
      this.retry = Objects.requireNonNull(retry);
      return this;
    }

    /** How long rebuilding an unreadable state from the offers topic may take (default 10 min). */
    public Builder recoveryTimeout(Duration timeout) {
      this.recoveryTimeout = Objects.requireNonNull(timeout);
      return this;
    }

    /**
     * Checks every new or changed offer's payload, after the schema's field checks; an offer it
     * finds a problem with is dead-lettered with that reason (default: {@link PayloadCheck#none()};
     * {@link PayloadCheck#against} checks payloads against the index's Protobuf descriptor).
     */
    public Builder payloadCheck(PayloadCheck check) {
      this.payloadCheck = Objects.requireNonNull(check);
      return this;
    }

    /**
     * How many partners' snapshots from the feeds topic are diffed and published at once (default
     * {@value #DEFAULT_PUBLISH_THREADS}); a partner's own snapshots go one at a time, in order.
     */
    public Builder publishThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("publishThreads must be >= 1, got " + threads);
      }
      this.publishThreads = threads;
      return this;
    }

    /** Overrides one Kafka producer property. */
    public Builder producerProperty(String key, String value) {
      producerProperties.put(key, value);
      return this;
    }

    /** The clock stamping {@code observed_at_millis} on offers that lack it. */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock);
      return this;
    }

    /** A LATENT loader; call {@link FeedLoader#start()}. */
    public FeedLoader build() {
      if (bootstrapServers == null) {
        throw new IllegalStateException("FeedLoader needs bootstrapServers");
      }
      if (schema == null) {
        throw new IllegalStateException("FeedLoader needs a schema to check offers against");
      }
      if (partitions > PartnerSnapshotState.MAX_PARTITIONS) {
        throw new IllegalStateException(
            "FeedLoader supports at most "
                + PartnerSnapshotState.MAX_PARTITIONS
                + " index partitions, got "
                + partitions);
      }
      return new FeedLoader(
          new Config(
              bootstrapServers,
              offersTopic,
              deadLetterTopic,
              partitions,
              schema,
              meterRegistry,
              stateDir,
              feedsTopic,
              feedsGroupId,
              producerProperties,
              clock,
              retry,
              FeedMessageLimits.DEFAULT,
              recoveryTimeout,
              payloadCheck,
              publishThreads));
    }
  }
}
