package dev.mosaic.indexer;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Schema;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionSender;
import dev.mosaic.transport.PartitionManifest;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An indexer node: follows the compacted offers topic as a member of a consumer group, keeps the
 * offers of the index partitions it owns in compact memory, and rebuilds a partition's file when
 * its offers change.
 *
 * <ul>
 *   <li><b>Ownership.</b> The group spreads the topic's Kafka partitions over the nodes; a node
 *       owns the index partitions {@code p ≡ k (mod K)} of every Kafka partition k assigned to it
 *       (see {@link OfferKeys}). A node joining or leaving moves Kafka partitions (cooperative
 *       sticky assignment, so the others keep theirs).
 *   <li><b>Restore, then follow.</b> On assignment the node reads the Kafka partition from the
 *       beginning (the topic is compacted: it holds the latest version of every offer) up to the
 *       end offset seen at assignment, then keeps following it. Offsets are never committed. After
 *       the restore, each index partition whose content fingerprint differs from the manifest's
 *       entry (or has no entry under the current schema version) is dirty; the others are not
 *       rebuilt.
 *   <li><b>Rebuilds.</b> A change makes its partition dirty; a dirty partition is rebuilt once no
 *       change arrived for the debounce (default 1 s), or at the latest after the maximum delay
 *       (default 10 s) since its first change, on up to {@code rebuildThreads} threads (default:
 *       the available cores). A rebuild writes {@code
 *       <outputDir>/v<schema>/<partition>/<version>.mosaic} with the format's {@link
 *       DatabaseBuilder} (documents ordered by key hash: the same offers give the same bytes),
 *       records it in the {@link IndexManifest} and hands it to the {@link PartitionSender}. The
 *       newest {@code retainVersions} files per partition are kept (and any still being sent);
 *       older ones are deleted.
 *   <li><b>Versions only go up.</b> A new version is {@code max(last known version + 1, clock
 *       millis)}, where the last known version comes from the manifest when the partition is taken
 *       over. Recording is a compare-and-set that refuses a version not above the recorded one, so
 *       a node that lost the partition (and raced its successor) cannot record or send an older
 *       version; the clock term keeps versions rising even if a node built a file and died before
 *       recording it.
 *   <li><b>Bad messages</b> (no or malformed key, unparseable value, missing dedup key, a key that
 *       disagrees with the dedup key's partition, values that do not fit the schema) go to the
 *       dead-letter topic with the reason and source, and count as a removal of that key; the
 *       partition keeps going. Dead-lettering is at least once: a restore sees the message again.
 *   <li><b>Schema.</b> {@link #useSchema} switches to a new schema: every owned partition is
 *       rebuilt under the new schema version (its manifest entries are separate).
 * </ul>
 *
 * <p>Metrics (Micrometer): {@code mosaic.indexer.consumer.lag}, {@code
 * mosaic.indexer.partitions.dirty}, {@code mosaic.indexer.rebuild.duration}, {@code
 * mosaic.indexer.partition.documents}, {@code mosaic.indexer.dead.letters} (tag stage), {@code
 * mosaic.indexer.offers}, {@code mosaic.indexer.state.bytes}.
 *
 * <p>Lifecycle: LATENT → STARTED → CLOSED by CAS. Thread safety: safe for concurrent use.
 */
public final class IndexerNode implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(IndexerNode.class);

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final Builder config;
  private final int partitions;
  private final FeedMessageLimits feedLimits;
  private volatile Schema schema;
  private final ConcurrentHashMap<Integer, PartitionState> states = new ConcurrentHashMap<>();
  private final Set<Integer> restoredKafkaPartitions = ConcurrentHashMap.newKeySet();
  private final Map<TopicPartition, Long> restoring = new ConcurrentHashMap<>();
  private final Map<TopicPartition, Long> restoreStarted = new ConcurrentHashMap<>();
  private final DirtyPartitions dirty;
  private final AtomicLongArray lastVersion;
  private final Set<Path> sending = ConcurrentHashMap.newKeySet();
  private final AtomicLong lag = new AtomicLong();
  private final Timer rebuildTimer;
  private final DistributionSummary documentsSummary;
  private volatile int kafkaPartitions;
  private volatile boolean running;
  private volatile boolean leaveGroupOnClose = true;
  private volatile Throwable failure;
  private KafkaConsumer<byte[], byte[]> consumer;
  private KafkaProducer<byte[], byte[]> deadLetterProducer;
  private DeadLetterPublisher deadLetters;
  private Thread consumerThread;
  private ScheduledExecutorService ticker;
  private ExecutorService rebuilders;

  private IndexerNode(Builder builder) {
    this.config = builder;
    this.partitions = builder.partitions;
    this.feedLimits = new FeedMessageLimits(builder.maxOfferBytes, builder.maxOfferFields);
    this.schema = builder.schema;
    this.dirty = new DirtyPartitions(partitions);
    this.lastVersion = new AtomicLongArray(partitions);
    MeterRegistry registry = builder.meterRegistry;
    this.rebuildTimer =
        Timer.builder("mosaic.indexer.rebuild.duration")
            .description("time to rebuild, write and record one partition file")
            .tag("node", builder.nodeName)
            .register(registry);
    this.documentsSummary =
        DistributionSummary.builder("mosaic.indexer.partition.documents")
            .description("documents per rebuilt partition file")
            .tag("node", builder.nodeName)
            .register(registry);
    Gauge.builder("mosaic.indexer.consumer.lag", lag, AtomicLong::get)
        .description("records behind the end of the assigned offers partitions")
        .tag("node", builder.nodeName)
        .register(registry);
    Gauge.builder("mosaic.indexer.partitions.dirty", dirty, DirtyPartitions::pending)
        .description("index partitions waiting for or in a rebuild")
        .tag("node", builder.nodeName)
        .register(registry);
    Gauge.builder("mosaic.indexer.offers", this, IndexerNode::offerCount)
        .description("offers held in the state of the owned partitions")
        .tag("node", builder.nodeName)
        .register(registry);
    Gauge.builder("mosaic.indexer.state.bytes", this, IndexerNode::stateBytes)
        .description("heap bytes of the owned partitions' state")
        .tag("node", builder.nodeName)
        .register(registry);
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
    Files.createDirectories(config.outputDir);
    if (config.createTopicsWithPartitions > 0) {
      Properties ap = new Properties();
      ap.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers);
      try (Admin admin = Admin.create(ap)) {
        OfferTopics.create(
            admin,
            config.offersTopic,
            config.createTopicsWithPartitions,
            config.deadLetterTopic,
            (short) 1);
      }
    }
    Properties cp = new Properties();
    cp.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers);
    cp.put(ConsumerConfig.GROUP_ID_CONFIG, config.groupId);
    cp.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
    cp.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
    cp.put(
        ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG,
        CooperativeStickyAssignor.class.getName());
    cp.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
    cp.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
    cp.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
    cp.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, Integer.toString(16 << 20));
    cp.putAll(config.consumerProperties);
    consumer = new KafkaConsumer<>(cp, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    List<PartitionInfo> infos = consumer.partitionsFor(config.offersTopic);
    if (infos == null || infos.isEmpty()) {
      consumer.close();
      state.set(State.CLOSED);
      throw new IllegalStateException("offers topic '" + config.offersTopic + "' does not exist");
    }
    kafkaPartitions = infos.size();
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrapServers);
    pp.put(ProducerConfig.LINGER_MS_CONFIG, "5");
    pp.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, Integer.toString(16 << 20));
    deadLetterProducer =
        new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer());
    deadLetters =
        new DeadLetterPublisher(
            deadLetterProducer,
            config.deadLetterTopic,
            "indexer",
            config.nodeName,
            config.meterRegistry);
    rebuilders =
        Executors.newFixedThreadPool(
            config.rebuildThreads,
            Thread.ofPlatform().name(config.nodeName + "-rebuild-", 0).factory());
    ticker =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name(config.nodeName + "-ticker").daemon().factory());
    long tick = Math.clamp(config.debounce.toMillis() / 4, 10, 100);
    ticker.scheduleWithFixedDelay(this::scheduleDue, tick, tick, TimeUnit.MILLISECONDS);
    running = true;
    consumerThread = Thread.ofPlatform().name(config.nodeName + "-consumer").start(this::follow);
    LOG.info(
        "indexer started: topic {} ({} Kafka partitions), {} index partitions, schema v{}, group {}",
        config.offersTopic,
        kafkaPartitions,
        partitions,
        schema.version(),
        config.groupId);
    return this;
  }

  // ---------------------------------------------------------------- consumer thread

  private void follow() {
    try {
      consumer.subscribe(List.of(config.offersTopic), new Rebalance());
      while (running) {
        for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
          apply(r);
        }
        finishRestores();
        updateLag();
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
        for (int p = tp.partition(); p < partitions; p += kafkaPartitions) {
          states.put(p, new PartitionState(p));
        }
        restoring.put(tp, ends.getOrDefault(tp, 0L));
        restoreStarted.put(tp, System.nanoTime());
      }
      consumer.seekToBeginning(assigned);
      LOG.info("assigned offers partitions {}; restoring them", kafkaPartitionNumbers(assigned));
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
        restoredKafkaPartitions.remove(tp.partition());
        for (int p = tp.partition(); p < partitions; p += kafkaPartitions) {
          states.remove(p);
          dirty.clear(p);
        }
      }
      LOG.info("offers partitions {} {}; their state is dropped", kafkaPartitionNumbers(tps), why);
    }
  }

  private static List<Integer> kafkaPartitionNumbers(Collection<TopicPartition> tps) {
    return tps.stream().map(TopicPartition::partition).sorted().toList();
  }

  private void apply(ConsumerRecord<byte[], byte[]> r) {
    int k = r.partition();
    byte[] key = r.key();
    int p;
    try {
      p = OfferKeys.partitionOfKey(key);
    } catch (IllegalArgumentException e) {
      deadLetter(r, e.getMessage());
      return;
    }
    if (p >= partitions) {
      deadLetter(r, "key names index partition " + p + " but there are " + partitions);
      return;
    }
    if (p % kafkaPartitions != k) {
      deadLetter(
          r,
          "index partition "
              + p
              + " belongs on offers partition "
              + (p % kafkaPartitions)
              + ", found on "
              + k);
      return;
    }
    PartitionState s = states.get(p);
    if (s == null) {
      return; // revoked meanwhile
    }
    long keyHash = OfferKeys.hash(key, 0, key.length);
    boolean changed;
    if (r.value() == null) {
      changed = s.remove(keyHash);
    } else {
      String reason = check(r.value(), p);
      if (reason != null) {
        deadLetter(r, reason);
        changed = s.remove(keyHash);
      } else {
        changed = s.put(keyHash, r.value());
      }
    }
    if (changed && restoredKafkaPartitions.contains(k)) {
      dirty.mark(p, System.nanoTime());
    }
  }

  /** Why an offer value is bad, or null when it is fine. */
  private String check(byte[] value, int p) {
    String tooLarge = feedLimits.checkSize(value.length);
    if (tooLarge != null) {
      return tooLarge;
    }
    Offer offer;
    try {
      offer = Offer.parseFrom(value);
    } catch (InvalidProtocolBufferException e) {
      return "value is not a mosaic.feed.v1.Offer: " + e.getMessage();
    }
    String overLimits = feedLimits.check(offer);
    if (overLimits != null) {
      return overLimits;
    }
    String id = "offer '" + offer.getPartnerId() + "/" + offer.getOfferId() + "'";
    if (offer.getDedupKey().isEmpty()) {
      return id + " has no dedup_key";
    }
    int expected = OfferKeys.indexPartition(offer.getDedupKey(), partitions);
    if (expected != p) {
      return id + " is keyed to index partition " + p + " but its dedup key hashes to " + expected;
    }
    try {
      OfferDocuments.toDocument(schema, offer);
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    return null;
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
      if (consumer.position(tp) < e.getValue()) {
        continue;
      }
      int k = tp.partition();
      int offers = 0;
      int reconciled = 0;
      for (int p = k; p < partitions; p += kafkaPartitions) {
        PartitionState s = states.get(p);
        if (s != null) {
          s.trim();
          offers += s.size();
          if (reconcile(p, s)) {
            reconciled++;
          }
        }
      }
      restoredKafkaPartitions.add(k);
      restoring.remove(tp);
      Long began = restoreStarted.remove(tp);
      LOG.info(
          "restored offers partition {}: {} offers up to offset {} in {} ms; {} index partitions"
              + " differ from the manifest and will be rebuilt",
          k,
          offers,
          e.getValue(),
          began == null ? -1 : (System.nanoTime() - began) / 1_000_000,
          reconciled);
    }
  }

  /**
   * Learns the partition's last version from the manifest and marks it dirty unless the manifest
   * already holds exactly this content under the current schema version.
   */
  private boolean reconcile(int p, PartitionState s) {
    Schema current = schema;
    learnDeliveredVersion(p, current.version());
    try {
      Optional<IndexManifest.Entry> entry = config.manifest.latest(current.version(), p);
      if (entry.isPresent()) {
        lastVersion.accumulateAndGet(p, entry.get().id().version(), Math::max);
        if (entry.get().fingerprint() == s.fingerprint()) {
          return false;
        }
      } else if (s.size() == 0) {
        return false;
      }
    } catch (IOException e) {
      LOG.error("manifest not readable for partition {}; rebuilding it", p, e);
    }
    dirty.mark(p, System.nanoTime());
    return true;
  }

  /** Raises the partition's last known version to the delivered manifest's, if one is given. */
  private void learnDeliveredVersion(int p, int schemaVersion) {
    if (config.deliveredManifest == null) {
      return;
    }
    try {
      config
          .deliveredManifest
          .latest(schemaVersion, p)
          .ifPresent(r -> lastVersion.accumulateAndGet(p, r.id().version(), Math::max));
    } catch (RuntimeException e) {
      LOG.warn("delivered manifest not readable for partition {}", p, e);
    }
  }

  private void updateLag() {
    long total = 0;
    for (TopicPartition tp : consumer.assignment()) {
      total += consumer.currentLag(tp).orElse(0);
    }
    lag.set(total);
  }

  // ---------------------------------------------------------------- rebuilds

  private void scheduleDue() {
    try {
      int[] due =
          dirty.takeDue(System.nanoTime(), config.debounce.toNanos(), config.maxDelay.toNanos());
      for (int p : due) {
        rebuilders.execute(() -> rebuild(p));
      }
    } catch (RuntimeException e) {
      LOG.error("scheduling rebuilds failed", e);
    }
  }

  private void rebuild(int p) {
    long began = System.nanoTime();
    try {
      PartitionState s = states.get(p);
      if (s == null) {
        return;
      }
      Schema current = schema;
      dirty.readingState(p);
      PartitionState.Snapshot snap = s.snapshot();
      DatabaseBuilder builder = DatabaseBuilder.create(current);
      int skipped = 0;
      for (int i = 0; i < snap.size(); i++) {
        try {
          Offer offer = Offer.parser().parseFrom(snap.slab(), snap.offset(i), snap.length(i));
          builder.add(OfferDocuments.toDocument(current, offer));
        } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
          if (skipped++ == 0) {
            LOG.warn(
                "partition {}: offer left out of schema v{}: {}",
                p,
                current.version(),
                e.getMessage());
          }
        }
      }
      long version = Math.max(lastVersion.get(p) + 1, config.clock.millis());
      PartitionFileId id = new PartitionFileId(current.version(), p, version);
      Path dir = config.outputDir.resolve("v" + current.version()).resolve(Integer.toString(p));
      Files.createDirectories(dir);
      Path tmp = dir.resolve("." + version + ".mosaic.tmp");
      Path file = dir.resolve(version + ".mosaic");
      builder.writeTo(tmp);
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
      if (states.get(p) != s) {
        Files.deleteIfExists(file);
        return; // lost the partition while building
      }
      IndexManifest.Entry entry =
          new IndexManifest.Entry(
              id, snap.fingerprint(), builder.documentCount(), config.clock.millis());
      if (!config.manifest.record(entry)) {
        Files.deleteIfExists(file);
        config
            .manifest
            .latest(current.version(), p)
            .ifPresent(e -> lastVersion.accumulateAndGet(p, e.id().version(), Math::max));
        LOG.warn(
            "partition {}: version {} not recorded, the manifest holds a newer one", p, version);
        return;
      }
      lastVersion.accumulateAndGet(p, version, Math::max);
      rebuildTimer.record(System.nanoTime() - began, TimeUnit.NANOSECONDS);
      documentsSummary.record(builder.documentCount());
      if (skipped > 0) {
        LOG.warn("partition {}: {} offers left out of {}", p, skipped, id);
      }
      LOG.debug("rebuilt {} with {} documents", id, builder.documentCount());
      try {
        config.listener.rebuilt(id, file, builder.documentCount());
      } catch (RuntimeException e) {
        LOG.warn("rebuild listener failed for {}", id, e);
      }
      send(id, file, dir);
    } catch (IOException | RuntimeException e) {
      LOG.error("rebuilding partition {} failed; it stays dirty", p, e);
      if (states.containsKey(p)) {
        dirty.mark(p, System.nanoTime());
      }
    } finally {
      dirty.rebuilt(p);
    }
  }

  private void send(PartitionFileId id, Path file, Path dir) {
    sending.add(file);
    try {
      config
          .sender
          .send(id, file)
          .whenComplete(
              (report, e) -> {
                sending.remove(file);
                if (e != null) {
                  LOG.error("sending {} failed", id, e);
                } else if (!report.acceptedByAny()) {
                  LOG.warn("no datacenter accepted {}: {}", id, report.failed());
                }
                prune(dir);
              });
    } catch (RuntimeException e) {
      sending.remove(file);
      LOG.error("sending {} failed", id, e);
    }
  }

  /** Deletes all but the newest retained versions of a partition, unless still being sent. */
  private void prune(Path dir) {
    SortedSet<Long> versions = new TreeSet<>();
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*.mosaic")) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        try {
          versions.add(Long.parseLong(name.substring(0, name.length() - ".mosaic".length())));
        } catch (NumberFormatException ignored) {
          LOG.debug("not a partition file: {}", f);
        }
      }
      List<Long> old = new ArrayList<>(versions);
      for (int i = 0; i < old.size() - config.retainVersions; i++) {
        Path f = dir.resolve(old.get(i) + ".mosaic");
        if (!sending.contains(f)) {
          Files.deleteIfExists(f);
        }
      }
    } catch (IOException e) {
      LOG.warn("could not prune old versions in {}", dir, e);
    }
  }

  // ---------------------------------------------------------------- public view

  /**
   * Switches to another schema (e.g. a new schema version): every owned partition whose manifest
   * entry under the new schema version does not match is rebuilt under it.
   */
  public void useSchema(Schema newSchema) {
    checkStarted();
    this.schema = Objects.requireNonNull(newSchema, "newSchema");
    for (int k : restoredKafkaPartitions) {
      for (int p = k; p < partitions; p += kafkaPartitions) {
        PartitionState s = states.get(p);
        if (s != null) {
          reconcile(p, s);
        }
      }
    }
    LOG.info("switched to schema v{}", newSchema.version());
  }

  /** The schema offers are currently built with. */
  public Schema schema() {
    return schema;
  }

  /** Index partitions this node owns and has restored, ascending. */
  public SortedSet<Integer> ownedPartitions() {
    SortedSet<Integer> owned = new TreeSet<>();
    for (int k : restoredKafkaPartitions) {
      for (int p = k; p < partitions; p += kafkaPartitions) {
        owned.add(p);
      }
    }
    return owned;
  }

  /** True while some assigned offers partition is still being restored. */
  public boolean isRestoring() {
    return !restoring.isEmpty();
  }

  /** Records behind the end of the assigned offers partitions, as of the last poll. */
  public long consumerLag() {
    return lag.get();
  }

  /** Index partitions waiting for a rebuild or being rebuilt. */
  public int dirtyPartitions() {
    return dirty.pending();
  }

  /**
   * True when the node owns partitions, has restored them, has read everything and has no rebuild
   * pending: every change it has seen is in a recorded file.
   */
  public boolean isIdle() {
    return failure == null
        && !restoredKafkaPartitions.isEmpty()
        && restoring.isEmpty()
        && lag.get() == 0
        && dirty.pending() == 0;
  }

  /** Offers held for the owned partitions. */
  public long offerCount() {
    long n = 0;
    for (PartitionState s : states.values()) {
      n += s.size();
    }
    return n;
  }

  /** Heap bytes of the owned partitions' state (slabs and maps). */
  public long stateBytes() {
    long n = 0;
    for (PartitionState s : states.values()) {
      n += s.heapBytes();
    }
    return n;
  }

  /** Serialized bytes of the offers held (the raw size the state is measured against). */
  public long rawOfferBytes() {
    long n = 0;
    for (PartitionState s : states.values()) {
      n += s.liveBytes();
    }
    return n;
  }

  /** The error that stopped the consumer, if any. */
  public Optional<Throwable> failure() {
    return Optional.ofNullable(failure);
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
    leaveGroupOnClose = false;
    if (rebuilders != null) {
      rebuilders.shutdownNow();
    }
    close();
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
    running = false;
    if (ticker != null) {
      ticker.shutdownNow();
    }
    if (consumer != null) {
      consumer.wakeup();
    }
    if (consumerThread != null) {
      try {
        consumerThread.join(TimeUnit.SECONDS.toMillis(30));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    if (rebuilders != null) {
      rebuilders.shutdown();
      try {
        if (!rebuilders.awaitTermination(30, TimeUnit.SECONDS)) {
          LOG.warn("rebuilds still running after 30 s; abandoning them");
          rebuilders.shutdownNow();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        rebuilders.shutdownNow();
      }
    }
    if (deadLetterProducer != null) {
      deadLetterProducer.close(Duration.ofSeconds(5));
    }
    states.clear();
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
    private IndexManifest manifest;
    private PartitionManifest deliveredManifest;
    private Duration debounce = Duration.ofSeconds(1);
    private Duration maxDelay = Duration.ofSeconds(10);
    private int rebuildThreads = Runtime.getRuntime().availableProcessors();
    private int retainVersions = 2;
    private final Map<String, String> consumerProperties = new HashMap<>();
    private Clock clock = Clock.systemUTC();
    private RebuildListener listener = (id, file, documents) -> {};

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

    /** Where versions are recorded (required; shared by all indexer nodes). */
    public Builder manifest(IndexManifest manifest) {
      this.manifest = Objects.requireNonNull(manifest);
      return this;
    }

    /**
     * The transport's manifest of delivered versions (optional): a partition taken over continues
     * above the newest version recorded there too.
     */
    public Builder deliveredManifest(PartitionManifest manifest) {
      this.deliveredManifest = Objects.requireNonNull(manifest);
      return this;
    }

    /** Quiet time after the last change before a partition is rebuilt (default 1 s). */
    public Builder debounce(Duration debounce) {
      if (debounce.isNegative()) {
        throw new IllegalArgumentException("debounce must be >= 0, got " + debounce);
      }
      this.debounce = debounce;
      return this;
    }

    /** Longest time a changed partition waits for its rebuild (default 10 s). */
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
      return new IndexerNode(this);
    }
  }
}
