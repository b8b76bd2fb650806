package dev.mosaic.indexer;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Turns partners' full feed snapshots into changes on the compacted offers topic: each snapshot is
 * diffed against the same partner's previous one, and only new or changed offers are published
 * (upserts), plus a tombstone for every offer that disappeared or moved to another index partition.
 * Keys and routing follow {@link OfferKeys}.
 *
 * <p>Every offer is checked before it is published: it needs an offer id, a dedup key, the
 * snapshot's partner (or none, then the snapshot's is used), a unique offer id in the snapshot, and
 * it must map to a document of the schema ({@link OfferDocuments}). An offer failing a check goes
 * to the dead-letter topic with the reason, and counts as absent from the snapshot. An offer
 * unchanged since the previous snapshot is not mapped again (it was when it first came).
 *
 * <p>What is remembered of the previous snapshot: per offer, the hashes of its id and content and
 * its partition ({@link PartnerSnapshotState}, ~37 bytes per offer), in memory and, when a {@link
 * Builder#stateDir state directory} is given, in one file per partner written after each snapshot
 * is fully acknowledged by Kafka. Without a state directory, a restarted loader republishes the
 * next snapshot in full and cannot delete offers that disappeared meanwhile.
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

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final Builder config;
  private final Map<String, Object> partnerLocks = new ConcurrentHashMap<>();
  private final Map<String, PartnerSnapshotState> previous = new ConcurrentHashMap<>();
  private final Counter upserts;
  private final Counter deletes;
  private final Counter rejected;
  private volatile boolean running;
  private Thread feedsThread;
  private KafkaConsumer<byte[], byte[]> feedsConsumer;
  private KafkaProducer<byte[], byte[]> producer;
  private DeadLetterPublisher deadLetters;
  private int kafkaPartitions;

  private FeedLoader(Builder builder) {
    this.config = builder;
    MeterRegistry registry = builder.meterRegistry;
    this.upserts = Counter.builder("mosaic.feedloader.upserts").register(registry);
    this.deletes = Counter.builder("mosaic.feedloader.deletes").register(registry);
    this.rejected = Counter.builder("mosaic.feedloader.rejected").register(registry);
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
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
    p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    p.put(ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(256 * 1024));
    p.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
    p.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(16 << 20));
    p.putAll(config.producerProperties);
    producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    deadLetters =
        new DeadLetterPublisher(
            producer, config.deadLetterTopic, "loader", "feed-loader", config.meterRegistry);
    try {
      kafkaPartitions = producer.partitionsFor(config.offersTopic).size();
    } catch (RuntimeException e) {
      close();
      throw new IllegalStateException(
          "offers topic '" + config.offersTopic + "' is not available: " + e.getMessage(), e);
    }
    if (config.stateDir != null) {
      Files.createDirectories(config.stateDir);
    }
    if (config.feedsTopic != null) {
      Properties cp = new Properties();
      cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers);
      cp.put(ConsumerConfig.GROUP_ID_CONFIG, config.feedsGroupId);
      cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
      cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
      cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1");
      cp.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(256 << 20));
      cp.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, Integer.toString(256 << 20));
      cp.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "600000");
      feedsConsumer =
          new KafkaConsumer<>(cp, new ByteArrayDeserializer(), new ByteArrayDeserializer());
      running = true;
      feedsThread = Thread.ofPlatform().name("feed-loader-feeds").start(this::followFeeds);
    }
    LOG.info(
        "feed loader started: topic {} ({} Kafka partitions), {} index partitions, schema v{}",
        config.offersTopic,
        kafkaPartitions,
        config.partitions,
        config.schema.version());
    return this;
  }

  /**
   * Follows the feeds topic: each record is one partner's full snapshot, published as {@link
   * #publish(FeedSnapshot)} does. An unparseable record is dead-lettered; a snapshot that fails to
   * publish is retried (its offset is committed only once published).
   */
  private void followFeeds() {
    try {
      feedsConsumer.subscribe(List.of(config.feedsTopic));
      while (running) {
        ConsumerRecords<byte[], byte[]> records = feedsConsumer.poll(Duration.ofMillis(200));
        for (ConsumerRecord<byte[], byte[]> r : records) {
          String source = r.topic() + "/" + r.partition() + "@" + r.offset();
          TopicPartition tp = new TopicPartition(r.topic(), r.partition());
          try {
            FeedSnapshot snapshot;
            try {
              snapshot = FeedSnapshot.parseFrom(r.value() == null ? new byte[0] : r.value());
              OfferKeys.checkPartnerId(snapshot.getPartnerId());
            } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
              rejected.increment();
              deadLetters.publish(
                  r.key(), r.value(), source, "not a usable FeedSnapshot: " + e.getMessage());
              commit(tp, r.offset() + 1);
              continue;
            }
            publish(snapshot);
            commit(tp, r.offset() + 1);
          } catch (IOException e) {
            LOG.error("publishing the snapshot at {} failed; retrying it", source, e);
            feedsConsumer.seek(tp, r.offset());
            break;
          }
        }
      }
    } catch (WakeupException e) {
      if (running) {
        LOG.error("feeds consumer woken up unexpectedly", e);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } catch (RuntimeException e) {
      LOG.error("following the feeds topic failed; snapshots there are no longer loaded", e);
    } finally {
      feedsConsumer.close(CloseOptions.timeout(Duration.ofSeconds(5)));
    }
  }

  private void commit(TopicPartition tp, long next) {
    feedsConsumer.commitSync(Map.of(tp, new OffsetAndMetadata(next)));
  }

  /**
   * Publishes a snapshot file (one serialized {@link FeedSnapshot}).
   *
   * @throws IOException if the file cannot be read or parsed (naming the file), or Kafka fails
   */
  public PublishResult publish(Path snapshotFile) throws IOException, InterruptedException {
    FeedSnapshot snapshot;
    try (InputStream in = Files.newInputStream(snapshotFile)) {
      snapshot = FeedSnapshot.parseFrom(in);
    } catch (InvalidProtocolBufferException e) {
      throw new IOException(
          "snapshot file " + snapshotFile + " is not a FeedSnapshot: " + e.getMessage(), e);
    }
    return publish(snapshot);
  }

  /**
   * Diffs a partner's full snapshot against the previous one and publishes the changes, waiting
   * until Kafka acknowledged all of them. Only then does the snapshot become the partner's previous
   * one; on failure the next publish diffs against the same old snapshot again.
   *
   * @throws IllegalArgumentException if the snapshot has no valid partner id
   * @throws IOException if Kafka did not acknowledge every change
   */
  public PublishResult publish(FeedSnapshot snapshot) throws IOException, InterruptedException {
    checkStarted();
    String partner = snapshot.getPartnerId();
    OfferKeys.checkPartnerId(partner);
    synchronized (partnerLocks.computeIfAbsent(partner, k -> new Object())) {
      return publishLocked(partner, snapshot);
    }
  }

  private PublishResult publishLocked(String partner, FeedSnapshot snapshot)
      throws IOException, InterruptedException {
    long began = System.nanoTime();
    PartnerSnapshotState prev = previousState(partner);
    PartnerSnapshotState next = new PartnerSnapshotState(snapshot.getOffersCount());
    List<Future<RecordMetadata>> sent = new ArrayList<>();
    int upsertCount = 0;
    int deleteCount = 0;
    int unchanged = 0;
    int rejectedCount = 0;
    String source = "snapshot " + partner + "/" + snapshot.getSnapshotId();
    long now = config.clock.millis();
    for (Offer offer : snapshot.getOffersList()) {
      String reason = checkIdentity(partner, offer, next);
      if (reason == null) {
        reason = FeedMessageLimits.DEFAULT.check(offer);
      }
      long offerHash = 0;
      long contentHash = 0;
      int partition = -1;
      byte[] content = null;
      if (reason == null) {
        content = contentBytes(partner, offer);
        offerHash = OfferKeys.hash(offer.getOfferId());
        contentHash = OfferKeys.hash(content, 0, content.length);
        partition = OfferKeys.indexPartition(offer.getDedupKey(), config.partitions);
        boolean unchangedOffer =
            prev.partition(offerHash) == partition && prev.contentHash(offerHash) == contentHash;
        if (!unchangedOffer) {
          // Unchanged offers passed this check when they were first published.
          reason = checkDocument(offer);
        }
      }
      if (reason != null) {
        rejectedCount++;
        rejected.increment();
        byte[] key =
            offer.getOfferId().isEmpty()
                ? null
                : offer.getOfferId().getBytes(StandardCharsets.UTF_8);
        deadLetters.publish(key, offer.toByteArray(), source, reason);
        continue;
      }
      next.put(offerHash, contentHash, partition);
      int before = prev.partition(offerHash);
      if (before == partition && prev.contentHash(offerHash) == contentHash) {
        unchanged++;
        continue;
      }
      if (before >= 0 && before != partition) {
        sent.add(send(before, OfferKeys.recordKey(before, partner, offerHash), null));
        deleteCount++;
      }
      sent.add(
          send(
              partition,
              OfferKeys.recordKey(partition, partner, offerHash),
              withObservedAt(
                  content, offer.getObservedAtMillis() != 0 ? offer.getObservedAtMillis() : now)));
      upsertCount++;
    }
    int[] removed = {0};
    prev.forEach(
        (offerHash, partition) -> {
          if (!next.contains(offerHash)) {
            sent.add(send(partition, OfferKeys.recordKey(partition, partner, offerHash), null));
            removed[0]++;
          }
        });
    deleteCount += removed[0];
    producer.flush();
    for (Future<RecordMetadata> f : sent) {
      try {
        f.get();
      } catch (ExecutionException e) {
        throw new IOException(
            "publishing "
                + source
                + " failed; the previous snapshot stays the base of the next diff",
            e.getCause());
      }
    }
    previous.put(partner, next);
    if (config.stateDir != null) {
      next.writeTo(stateFile(partner));
    }
    upserts.increment(upsertCount);
    deletes.increment(deleteCount);
    PublishResult result =
        new PublishResult(
            partner,
            snapshot.getSnapshotId(),
            upsertCount,
            deleteCount,
            unchanged,
            rejectedCount,
            (System.nanoTime() - began) / 1_000_000);
    LOG.info("published {}", result);
    return result;
  }

  /** The reason an offer's identity is unusable, or null when it is fine. */
  private String checkIdentity(String partner, Offer offer, PartnerSnapshotState seen) {
    String id = "offer '" + partner + "/" + offer.getOfferId() + "'";
    if (offer.getOfferId().isEmpty()) {
      return "offer of partner '" + partner + "' has no offer_id";
    }
    if (!offer.getPartnerId().isEmpty() && !offer.getPartnerId().equals(partner)) {
      return id
          + " names partner '"
          + offer.getPartnerId()
          + "' in a snapshot of '"
          + partner
          + "'";
    }
    if (offer.getDedupKey().isEmpty()) {
      return id + " has no dedup_key";
    }
    if (seen.contains(OfferKeys.hash(offer.getOfferId()))) {
      return id + " appears twice in the snapshot; the first one is kept";
    }
    return null;
  }

  /** The reason an offer does not map to a document of the schema, or null when it does. */
  private String checkDocument(Offer offer) {
    try {
      OfferDocuments.toDocument(config.schema, offer);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    return null;
  }

  private Future<RecordMetadata> send(int indexPartition, byte[] key, byte[] value) {
    return producer.send(
        new ProducerRecord<>(
            config.offersTopic,
            OfferKeys.kafkaPartition(indexPartition, kafkaPartitions),
            key,
            value));
  }

  /**
   * The offer serialized with the snapshot's partner id and without the observation time: what its
   * content hash is taken over, and the prefix of what is published.
   */
  static byte[] contentBytes(String partner, Offer offer) {
    if (offer.getObservedAtMillis() == 0 && offer.getPartnerId().equals(partner)) {
      return offer.toByteArray();
    }
    return offer.toBuilder().setPartnerId(partner).clearObservedAtMillis().build().toByteArray();
  }

  /**
   * Appends {@code observed_at_millis} to an offer serialized without it, so the offer is
   * serialized once, not twice. Protobuf parsers accept fields in any order, so this is the same
   * message; while it is the highest-numbered field it is even the same bytes.
   */
  static byte[] withObservedAt(byte[] content, long observedAtMillis) {
    int extra =
        CodedOutputStream.computeInt64Size(Offer.OBSERVED_AT_MILLIS_FIELD_NUMBER, observedAtMillis);
    byte[] out = Arrays.copyOf(content, content.length + extra);
    CodedOutputStream tail = CodedOutputStream.newInstance(out, content.length, extra);
    try {
      tail.writeInt64(Offer.OBSERVED_AT_MILLIS_FIELD_NUMBER, observedAtMillis);
      tail.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new IllegalStateException("cannot append observed_at_millis", e);
    }
    return out;
  }

  private PartnerSnapshotState previousState(String partner) throws IOException {
    PartnerSnapshotState s = previous.get(partner);
    if (s != null) {
      return s;
    }
    if (config.stateDir != null) {
      Path file = stateFile(partner);
      if (Files.exists(file)) {
        s = PartnerSnapshotState.readFrom(file);
        LOG.info(
            "partner {}: previous snapshot of {} offers read from {}", partner, s.size(), file);
        return s;
      }
    }
    return new PartnerSnapshotState(0);
  }

  private Path stateFile(String partner) {
    return config.stateDir.resolve(URLEncoder.encode(partner, StandardCharsets.UTF_8) + ".state");
  }

  private void checkStarted() {
    if (state.get() != State.STARTED) {
      throw new IllegalStateException("FeedLoader is " + state.get() + ", not STARTED");
    }
  }

  /** Flushes and closes the producer; idempotent. */
  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) == State.CLOSED) {
      return;
    }
    running = false;
    if (feedsThread != null) {
      feedsConsumer.wakeup();
      try {
        feedsThread.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (producer != null) {
      producer.close();
    }
  }

  /**
   * What one snapshot changed.
   *
   * @param upserts new or changed offers published
   * @param deletes tombstones published (removed offers, and old keys of moved offers)
   * @param unchanged offers identical to the previous snapshot's
   * @param rejected offers sent to the dead-letter topic
   */
  public record PublishResult(
      String partnerId,
      long snapshotId,
      int upserts,
      int deletes,
      int unchanged,
      int rejected,
      long tookMillis) {}

  /** Configures a {@link FeedLoader}. Not thread safe. */
  public static final class Builder extends OfferPipelineBuilder<Builder> {
    private Path stateDir;
    private String feedsTopic;
    private String feedsGroupId = OfferTopics.FEED_LOADER_GROUP;
    private final Map<String, String> producerProperties = new HashMap<>();
    private Clock clock = Clock.systemUTC();

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
      return new FeedLoader(this);
    }
  }
}
