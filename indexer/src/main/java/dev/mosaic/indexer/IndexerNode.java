package dev.mosaic.indexer;

import dev.mosaic.format.Schema;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.PartitionSender;
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
import java.util.Optional;
import java.util.Properties;
import java.util.SortedSet;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An indexer node: follows the compacted offers topic as a member of a consumer group, keeps the
 * offers of the index partitions it owns in compact memory, and rebuilds a partition's file when
 * its offers change. It is assembled from single-purpose parts:
 *
 * <ul>
 *   <li><b>Ownership</b> ({@link Ownership}). The group spreads the topic's Kafka partitions over
 *       the nodes; a node owns the index partitions {@code p ≡ k (mod K)} of every Kafka partition
 *       k assigned to it (see {@link OfferKeys}), cooperative sticky assignment. On assignment the
 *       node claims each index partition's ownership epoch in the {@link PartitionManifest}: from
 *       then on a node that lost the partition without noticing (paused, partitioned away) cannot
 *       record versions of it.
 *   <li><b>Restore, then follow</b> ({@link OfferConsumer}). On assignment the node reads the Kafka
 *       partition from the beginning (the topic is compacted) up to the end offset seen at
 *       assignment, then keeps following it. Offsets are never committed. After the restore ({@link
 *       Reconciler}) each index partition whose content fingerprint differs from the manifest's
 *       record under the current schema version is dirty; a matching one whose version some
 *       datacenter is known to lack is sent again.
 *   <li><b>Bad messages</b> ({@link OfferValidator}, {@link DeadLetterPublisher}): no or malformed
 *       key, unparseable value, missing dedup key, a key that disagrees with the dedup key's
 *       partition, values that do not fit the schema go to the dead-letter topic with the reason
 *       and source, and count as a removal of that key.
 *   <li><b>Rebuilds</b> ({@link RebuildScheduler}, {@link PartitionRebuilder}). A change makes its
 *       partition dirty; dirty partitions are rebuilt once the batch ended (the node read up to the
 *       end of its partitions and nothing changed for the debounce, default 1 s), or at the latest
 *       after the maximum delay (default 10 s) since the first change, on up to {@code
 *       rebuildThreads} threads. A rebuild writes {@code
 *       <outputDir>/v<schema>/<partition>/<version>.mosaic} durably, records it in the manifest
 *       (compare-and-set: newer version, same epoch) and hands it on. Versions are {@code max(last
 *       known version + 1, clock millis)}.
 *   <li><b>Delivery</b> ({@link VersionDelivery}). A recorded version is sent, and sent again with
 *       backoff as long as it is the latest and some datacenter did not accept it; the datacenters
 *       that hold it are noted in the manifest. The newest {@code retainVersions} files per
 *       partition are kept (and any still being sent).
 *   <li><b>Schema.</b> {@link #useSchema} switches to a new schema: every owned partition is
 *       rebuilt under the new schema version (its manifest records are separate).
 * </ul>
 *
 * <p>Metrics: see {@link IndexerMetrics}.
 *
 * <p>Lifecycle: LATENT → STARTED → CLOSED by CAS. Thread safety: safe for concurrent use.
 */
public final class IndexerNode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IndexerNode.class);

  /** Rebuild threads unless configured: one per core. */
  public static final int DEFAULT_REBUILD_THREADS = Runtime.getRuntime().availableProcessors();

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final IndexerConfig config;
  private volatile Schema schema;
  private final Ownership ownership;
  private final RebuildScheduler scheduler;
  private final VersionDelivery delivery;
  private final PartitionRebuilder rebuilder;
  private final Reconciler reconciler;
  private final OfferConsumer consumer;
  private KafkaProducer<byte[], byte[]> deadLetterProducer;

  private IndexerNode(IndexerConfig config) {
    this.config = config;
    this.schema = config.schema();
    this.ownership = new Ownership(config.partitions());
    this.scheduler = new RebuildScheduler(config.partitions(), config);
    OfferConsumer[] consumerRef = new OfferConsumer[1];
    PartitionRebuilder[] rebuilderRef = new PartitionRebuilder[1];
    VersionDelivery[] deliveryRef = new VersionDelivery[1];
    IndexerMetrics metrics =
        IndexerMetrics.register(
            config.meterRegistry(),
            config.nodeName(),
            () -> consumerRef[0].lag(),
            scheduler::pending,
            ownership::offers,
            ownership::stateBytes,
            () -> deliveryRef[0].pending());
    this.delivery = new VersionDelivery(config, metrics, id -> rebuilderRef[0].isLatestOwned(id));
    deliveryRef[0] = delivery;
    OfferConsumer[] restorer = consumerRef;
    this.rebuilder =
        new PartitionRebuilder(
            config,
            ownership,
            scheduler,
            delivery,
            metrics,
            this::schema,
            p -> restorer[0].requestRestore(p));
    rebuilderRef[0] = rebuilder;
    this.reconciler = new Reconciler(config.manifest(), rebuilder, scheduler, delivery);
    this.consumer = new OfferConsumer(config, ownership, scheduler, reconciler, this::schema);
    consumerRef[0] = consumer;
  }

  /** A builder; bootstrap servers, schema, output directory, sender and manifest are required. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Creates the topics if asked, joins the consumer group and starts following.
   *
   * @return this
   * @throws IllegalStateException if already started or closed, or the offers topic is missing
   */
  public IndexerNode start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("IndexerNode cannot start: it is " + state.get());
    }
    Files.createDirectories(config.outputDir());
    if (config.createTopicsWithPartitions() > 0) {
      Properties ap = new Properties();
      ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
      try (Admin admin = Admin.create(ap)) {
        OfferTopics.create(
            admin,
            config.offersTopic(),
            config.createTopicsWithPartitions(),
            config.deadLetterTopic(),
            (short) 1);
      }
    }
    KafkaConsumer<byte[], byte[]> kafkaConsumer =
        new KafkaConsumer<>(
            consumerProperties(), new ByteArrayDeserializer(), new ByteArrayDeserializer());
    List<PartitionInfo> infos = kafkaConsumer.partitionsFor(config.offersTopic());
    if (infos == null || infos.isEmpty()) {
      kafkaConsumer.close();
      state.set(State.CLOSED);
      throw new IllegalStateException("offers topic '" + config.offersTopic() + "' does not exist");
    }
    ownership.kafkaPartitions(infos.size());
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    pp.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    pp.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(16 << 20));
    deadLetterProducer =
        new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer());
    DeadLetterPublisher deadLetters =
        new DeadLetterPublisher(
            deadLetterProducer,
            config.deadLetterTopic(),
            "indexer",
            config.nodeName(),
            config.meterRegistry());
    scheduler.start(consumer::caughtUp, rebuilder::rebuild);
    consumer.start(kafkaConsumer, deadLetters);
    LOG.info(
        "indexer started: topic {} ({} Kafka partitions), {} index partitions, schema v{}, group {}",
        config.offersTopic(),
        infos.size(),
        config.partitions(),
        schema.version(),
        config.groupId());
    return this;
  }

  private Properties consumerProperties() {
    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers());
    cp.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId());
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    cp.put(
        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        CooperativeStickyAssignor.class.getName());
    cp.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
    cp.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
    cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    cp.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(16 << 20));
    cp.putAll(config.consumerProperties());
    return cp;
  }

  // ---------------------------------------------------------------- public view

  /**
   * Switches to another schema (e.g. a new schema version): the owned Kafka partitions are restored
   * again (the state holds no offer bytes), then every owned partition whose manifest record under
   * the new schema version does not match is built under it.
   */
  public void useSchema(Schema newSchema) {
    checkStarted();
    this.schema = Objects.requireNonNull(newSchema, "newSchema");
    consumer.requestRestoreAll();
    LOG.info(
        "switched to schema v{}; restoring the offers to build them under it", newSchema.version());
  }

  /** The schema offers are currently built with. */
  public Schema schema() {
    return schema;
  }

  /** Index partitions this node owns and has restored, ascending. */
  public SortedSet<Integer> ownedPartitions() {
    return ownership.restoredPartitions();
  }

  /** True while some assigned offers partition is still being restored. */
  public boolean isRestoring() {
    return consumer.isRestoring();
  }

  /** Records behind the end of the assigned offers partitions, as of the last poll. */
  public long consumerLag() {
    return consumer.lag();
  }

  /** Index partitions waiting for a rebuild or being rebuilt. */
  public int dirtyPartitions() {
    return scheduler.pending();
  }

  /** Recorded versions not yet accepted by every datacenter the sender tried. */
  public int pendingDeliveries() {
    return delivery.pending();
  }

  /**
   * True when the node owns partitions, has restored them, has read everything, has no rebuild
   * pending and every recorded version was accepted: every change it has seen is delivered.
   */
  public boolean isIdle() {
    return consumer.failure() == null
        && ownership.anyRestored()
        && !consumer.isRestoring()
        && consumer.lag() == 0
        && scheduler.pending() == 0
        && delivery.pending() == 0;
  }

  /** Offers held for the owned partitions. */
  public long offerCount() {
    return ownership.offers();
  }

  /** Heap bytes of the owned partitions' state (slabs and maps). */
  public long stateBytes() {
    return ownership.stateBytes();
  }

  /** Serialized bytes of the offers held (the raw size the state is measured against). */
  public long rawOfferBytes() {
    return ownership.rawOfferBytes();
  }

  /** The error that stopped the consumer, if any. */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(consumer.failure());
  }

  private void checkStarted() {
    if (state.get() != State.STARTED) {
      throw new IllegalStateException("IndexerNode is " + state.get() + ", not STARTED");
    }
  }

  /**
   * Simulates a crash, for tests: stops without leaving the consumer group (the group notices only
   * when the session times out), abandoning running rebuilds.
   */
  void kill() {
    if (state.getAndSet(State.CLOSED) != State.STARTED) {
      return;
    }
    scheduler.abandon();
    rebuilder.abandon();
    shutDown(false);
  }

  /**
   * Leaves the group (its partitions move to the other nodes), waits for running rebuilds (up to 30
   * s) and releases everything; idempotent. Files already written stay in the output directory.
   */
  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) != State.STARTED) {
      return;
    }
    shutDown(true);
  }

  private void shutDown(boolean leaveGroup) {
    consumer.stop(leaveGroup);
    scheduler.close();
    rebuilder.close();
    delivery.close();
    if (deadLetterProducer != null) {
      deadLetterProducer.close(Duration.ofSeconds(5));
    }
    ownership.clear();
    LOG.info("indexer closed");
  }

  /** Configures an {@link IndexerNode}. Not thread safe. */
  public static final class Builder extends OfferPipelineBuilder<Builder> {
    private String nodeName = "indexer";
    private String groupId = OfferTopics.INDEXER_GROUP;
    private int maxOfferBytes = FeedMessageLimits.DEFAULT.maxOfferBytes();
    private int maxOfferFields = FeedMessageLimits.DEFAULT.maxFields();
    private int createTopicsWithPartitions;
    private Path outputDir;
    private PartitionSender sender;
    private PartitionManifest manifest;
    private Duration debounce = Duration.ofSeconds(1);
    private Duration maxDelay = Duration.ofSeconds(10);
    private int rebuildThreads = DEFAULT_REBUILD_THREADS;
    private int retainVersions = 2;
    private final Map<String, String> consumerProperties = new HashMap<>();
    private Clock clock = Clock.systemUTC();
    private RebuildListener listener = (id, file, documents) -> {};
    private Duration deliveryBackoffMin = Duration.ofSeconds(1);
    private Duration deliveryBackoffMax = Duration.ofSeconds(60);
    private IndexerConfig.Hooks hooks = IndexerConfig.Hooks.NONE;

    private Builder() {}

    @Override
    Builder self() {
      return this;
    }

    /**
     * The node's name (default {@code indexer}): the {@code node} tag of its meters, so several
     * nodes can share one registry, and part of its thread names.
     */
    public Builder nodeName(String name) {
      this.nodeName = Objects.requireNonNull(name);
      return this;
    }

    /**
     * Largest serialized offer indexed (default 512 KiB); a larger one is dead-lettered with the
     * reason.
     */
    public Builder maxOfferBytes(int maxOfferBytes) {
      this.maxOfferBytes = maxOfferBytes;
      return this;
    }

    /**
     * Most field values of one offer, and most entries of one repeated car list (default 256); more
     * is dead-lettered with the reason.
     */
    public Builder maxOfferFields(int maxOfferFields) {
      this.maxOfferFields = maxOfferFields;
      return this;
    }

    /** The consumer group (default {@value OfferTopics#INDEXER_GROUP}). */
    public Builder groupId(String groupId) {
      this.groupId = Objects.requireNonNull(groupId);
      return this;
    }

    /**
     * Creates the offers topic with this many Kafka partitions (and the dead-letter topic) at start
     * if missing, with replication factor 1 (for local use; production creates topics up front).
     */
    public Builder createTopics(int kafkaPartitions) {
      if (kafkaPartitions < 1) {
        throw new IllegalArgumentException("kafka partitions must be >= 1, got " + kafkaPartitions);
      }
      this.createTopicsWithPartitions = kafkaPartitions;
      return this;
    }

    /** Where partition files are written (required). */
    public Builder outputDir(Path dir) {
      this.outputDir = Objects.requireNonNull(dir);
      return this;
    }

    /** Where new files are handed for delivery (required). */
    public Builder sender(PartitionSender sender) {
      this.sender = Objects.requireNonNull(sender);
      return this;
    }

    /**
     * Where versions are recorded, fenced and their deliveries noted (required; the one manifest
     * shared by all indexer nodes, the transport and the searchers).
     */
    public Builder manifest(PartitionManifest manifest) {
      this.manifest = Objects.requireNonNull(manifest);
      return this;
    }

    /**
     * Backoff between re-sends of a version some datacenter did not accept (default 1 s doubling up
     * to 60 s); re-sends go on as long as the version is the partition's latest.
     */
    public Builder deliveryBackoff(Duration min, Duration max) {
      if (min.isNegative() || min.isZero() || max.compareTo(min) < 0) {
        throw new IllegalArgumentException(
            "delivery backoff needs 0 < min <= max, got " + min + " and " + max);
      }
      this.deliveryBackoffMin = min;
      this.deliveryBackoffMax = max;
      return this;
    }

    /** Test hooks (see {@link IndexerConfig.Hooks}). */
    Builder hooks(IndexerConfig.Hooks hooks) {
      this.hooks = Objects.requireNonNull(hooks);
      return this;
    }

    /**
     * Quiet time that ends a batch (default 1 s): dirty partitions are rebuilt once the node has
     * read up to the end of its partitions and no partition changed for this long.
     */
    public Builder debounce(Duration debounce) {
      if (debounce.isNegative()) {
        throw new IllegalArgumentException("debounce must be >= 0, got " + debounce);
      }
      this.debounce = debounce;
      return this;
    }

    /**
     * Longest time a changed partition waits for its rebuild (default 10 s), unless a loader's
     * batch is still open on it: that waits for the batch's end or its expiry (twice the debounce
     * without a record of it, at least 1 s).
     */
    public Builder maxDelay(Duration maxDelay) {
      if (maxDelay.isNegative()) {
        throw new IllegalArgumentException("max delay must be >= 0, got " + maxDelay);
      }
      this.maxDelay = maxDelay;
      return this;
    }

    /** Rebuilds running in parallel (default: available processors). */
    public Builder rebuildThreads(int threads) {
      if (threads < 1) {
        throw new IllegalArgumentException("rebuild threads must be >= 1, got " + threads);
      }
      this.rebuildThreads = threads;
      return this;
    }

    /** Newest files kept per partition in the output directory (default 2). */
    public Builder retainVersions(int versions) {
      if (versions < 1) {
        throw new IllegalArgumentException("retained versions must be >= 1, got " + versions);
      }
      this.retainVersions = versions;
      return this;
    }

    /** Overrides one Kafka consumer property. */
    public Builder consumerProperty(String key, String value) {
      consumerProperties.put(key, value);
      return this;
    }

    /** The clock versions are derived from (default UTC system clock). */
    public Builder clock(Clock clock) {
      this.clock = Objects.requireNonNull(clock);
      return this;
    }

    /** Told about every recorded file (default: nothing). */
    public Builder rebuildListener(RebuildListener listener) {
      this.listener = Objects.requireNonNull(listener);
      return this;
    }

    /** A LATENT node; call {@link IndexerNode#start()}. */
    public IndexerNode build() {
      List<String> missing = new ArrayList<>();
      if (bootstrapServers == null) missing.add("bootstrapServers");
      if (schema == null) missing.add("schema");
      if (outputDir == null) missing.add("outputDir");
      if (sender == null) missing.add("sender");
      if (manifest == null) missing.add("manifest");
      if (!missing.isEmpty()) {
        throw new IllegalStateException("IndexerNode needs " + missing);
      }
      return new IndexerNode(
          new IndexerConfig(
              nodeName,
              groupId,
              bootstrapServers,
              offersTopic,
              deadLetterTopic,
              partitions,
              schema,
              meterRegistry,
              new FeedMessageLimits(maxOfferBytes, maxOfferFields),
              createTopicsWithPartitions,
              outputDir,
              sender,
              manifest,
              debounce,
              maxDelay,
              rebuildThreads,
              retainVersions,
              consumerProperties,
              clock,
              listener,
              deliveryBackoffMin,
              deliveryBackoffMax,
              hooks));
    }
  }
}
