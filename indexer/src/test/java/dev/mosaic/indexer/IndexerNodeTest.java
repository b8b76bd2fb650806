package dev.mosaic.indexer;

import static dev.mosaic.indexer.KafkaTestSupport.cars;
import static dev.mosaic.indexer.KafkaTestSupport.readAll;
import static dev.mosaic.indexer.KafkaTestSupport.snapshot;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.embedded.EmbeddedKafka;
import dev.mosaic.embedded.EmbeddedZooKeeper;
import dev.mosaic.format.Database;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Query;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.io.TempDir;

/** Indexer nodes on a real KRaft broker and a real ZooKeeper, shared by the tests of this class. */
class IndexerNodeTest {
  private static final int P = 16;
  private static final int K = 4;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static EmbeddedKafka kafka;
  private static EmbeddedZooKeeper zk;
  private static CuratorFramework curator;
  private static final AtomicInteger RUN = new AtomicInteger();

  @TempDir Path dir;
  private String topic;
  private PartitionManifest manifest;
  private FeedLoader loader;
  private final List<IndexerNode> nodes = new ArrayList<>();

  @BeforeAll
  static void startServers() throws Exception {
    zk = EmbeddedZooKeeper.builder().build().start();
    kafka = EmbeddedKafka.builder().build().start();
    curator =
        CuratorFrameworkFactory.newClient(zk.connectString(), new ExponentialBackoffRetry(100, 5));
    curator.start();
  }

  @AfterAll
  static void stopServers() throws Exception {
    curator.close();
    kafka.close();
    zk.close();
  }

  @BeforeEach
  void createTopics(TestInfo info) throws Exception {
    topic = "offers-" + RUN.incrementAndGet();
    try (var admin = kafka.admin()) {
      OfferTopics.create(admin, topic, K, topic + "-dlq", (short) 1);
    }
    manifest = PartitionManifest.inZooKeeper(curator, "/mosaic-" + topic);
    manifest.start();
    loader =
        FeedLoader.builder()
            .bootstrapServers(kafka.bootstrapServers())
            .offersTopic(topic)
            .deadLetterTopic(topic + "-dlq")
            .partitions(P)
            .schema(CarsSchema.SCHEMA)
            .build()
            .start();
  }

  @AfterEach
  void closeAll() {
    nodes.forEach(IndexerNode::close);
    loader.close();
    manifest.close();
  }

  private IndexerNode startNode(String name, DirectoryPartitionSender sender) throws Exception {
    return startNode(name, sender, b -> {});
  }

  private IndexerNode startNode(
      String name, DirectoryPartitionSender sender, Consumer<IndexerNode.Builder> customize)
      throws Exception {
    IndexerNode.Builder builder =
        IndexerNode.builder()
            .bootstrapServers(kafka.bootstrapServers())
            .offersTopic(topic)
            .deadLetterTopic(topic + "-dlq")
            .groupId(topic + "-indexers")
            .partitions(P)
            .schema(CarsSchema.SCHEMA)
            .outputDir(dir.resolve(name))
            .sender(sender)
            .manifest(manifest)
            .debounce(Duration.ofMillis(200))
            .maxDelay(Duration.ofSeconds(2))
            .rebuildThreads(2)
            .consumerProperty("session.timeout.ms", "6000")
            .consumerProperty("heartbeat.interval.ms", "500");
    customize.accept(builder);
    IndexerNode node = builder.build().start();
    nodes.add(node);
    return node;
  }

  private static int partitionOf(CarOffer car) {
    return OfferKeys.indexPartition(car.getDedupKey(), P);
  }

  /** Three offers in three different partitions, and the rest. */
  private static List<CarOffer> carsWithThreeDistinctPartitionsFirst(long seed) {
    List<CarOffer> all = new ArrayList<>(cars(seed, 40));
    List<CarOffer> picked = new ArrayList<>();
    Set<Integer> used = new HashSet<>();
    for (CarOffer c : List.copyOf(all)) {
      if (picked.size() < 3 && used.add(partitionOf(c))) {
        picked.add(c);
        all.remove(c);
      }
    }
    picked.addAll(all);
    return picked;
  }

  private long version(int partition) throws Exception {
    return manifest.latest(CarsSchema.VERSION, partition).map(e -> e.id().version()).orElse(-1L);
  }

  private Map<Integer, Long> versions() throws Exception {
    Map<Integer, Long> v = new HashMap<>();
    for (int p = 0; p < P; p++) {
      v.put(p, version(p));
    }
    return v;
  }

  private static Set<Integer> partitionsDeliveredAfter(DirectoryPartitionSender sender, int from) {
    return sender.delivered().subList(from, sender.delivered().size()).stream()
        .map(PartitionFileId::partition)
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private static long count(Path file, Condition condition) throws Exception {
    try (Database db = Database.open(file, true)) {
      return db.count(Query.where(condition));
    }
  }

  @Test
  void newSnapshotRebuildsExactlyThePartitionsOfChangedAndRemovedOffers() throws Exception {
    List<CarOffer> cars = carsWithThreeDistinctPartitionsFirst(21);
    CarOffer changed = cars.get(0);
    CarOffer removed = cars.get(1);
    CarOffer kept = cars.get(2);
    loader.publish(snapshot(cars, 1));
    DirectoryPartitionSender sender = new DirectoryPartitionSender(dir.resolve("dc"));
    IndexerNode node = startNode("a", sender);
    await().atMost(WAIT).until(node::isIdle);
    Set<Integer> nonEmpty =
        cars.stream().map(IndexerNodeTest::partitionOf).collect(Collectors.toSet());
    assertThat(partitionsDeliveredAfter(sender, 0)).isEqualTo(new TreeSet<>(nonEmpty));
    Map<Integer, Long> before = versions();
    int delivered = sender.delivered().size();

    List<CarOffer> next = new ArrayList<>(cars);
    next.set(0, changed.toBuilder().setPriceRub(changed.getPriceRub() + 12_345).build());
    next.remove(removed);
    loader.publish(snapshot(next, 2));

    int pChanged = partitionOf(changed);
    int pRemoved = partitionOf(removed);
    await()
        .atMost(WAIT)
        .until(
            () ->
                version(pChanged) > before.get(pChanged)
                    && version(pRemoved) > before.get(pRemoved));
    await().atMost(WAIT).until(node::isIdle);

    assertThat(partitionsDeliveredAfter(sender, delivered))
        .containsExactlyInAnyOrder(pChanged, pRemoved);
    Map<Integer, Long> after = versions();
    for (int p = 0; p < P; p++) {
      if (p != pChanged && p != pRemoved) {
        assertThat(after.get(p))
            .as("version of untouched partition %d", p)
            .isEqualTo(before.get(p));
      }
    }
    assertThat(after.get(partitionOf(kept))).isEqualTo(before.get(partitionOf(kept)));

    Path removedFile =
        sender.path(new PartitionFileId(CarsSchema.VERSION, pRemoved, after.get(pRemoved)));
    assertThat(count(removedFile, Condition.eq(CarsSchema.OFFER_ID, removed.getOfferId())))
        .isZero();
    long othersInRemovedPartition = next.stream().filter(c -> partitionOf(c) == pRemoved).count();
    assertThat(count(removedFile, Condition.all())).isEqualTo(othersInRemovedPartition);
    Path changedFile =
        sender.path(new PartitionFileId(CarsSchema.VERSION, pChanged, after.get(pChanged)));
    assertThat(
            count(
                changedFile,
                Condition.and(
                    Condition.eq(CarsSchema.OFFER_ID, changed.getOfferId()),
                    Condition.eq(CarsSchema.PRICE, changed.getPriceRub() + 12_345))))
        .isEqualTo(1);
    // the rebuild by merge keeps its change set beside the published file, where the transport
    // looks for it to ship the change instead of the file
    Path published =
        new dev.mosaic.partition.PartitionLayout(dir.resolve("a"))
            .file(new PartitionFileId(CarsSchema.VERSION, pChanged, after.get(pChanged)));
    assertThat(dev.mosaic.partition.ChangeSetFile.read(published))
        .as("change set beside %s", published)
        .hasValueSatisfying(c -> assertThat(c.baseVersion()).isEqualTo(before.get(pChanged)));
  }

  @Test
  void restartedIndexerRestoresItsStateAndVersionsKeepGoingUp() throws Exception {
    List<CarOffer> cars = carsWithThreeDistinctPartitionsFirst(22);
    loader.publish(snapshot(cars, 1));
    IndexerNode first = startNode("first", new DirectoryPartitionSender(dir.resolve("dc1")));
    await().atMost(WAIT).until(first::isIdle);
    Map<Integer, Long> before = versions();
    first.close();

    DirectoryPartitionSender sender = new DirectoryPartitionSender(dir.resolve("dc2"));
    // The restarted node's clock is far behind: versions must still go up.
    Clock past = Clock.fixed(Instant.parse("2001-01-01T00:00:00Z"), ZoneOffset.UTC);
    IndexerNode second = startNode("second", sender, b -> b.clock(past));
    await().atMost(WAIT).until(second::isIdle);
    assertThat(second.offerCount()).isEqualTo(cars.size());
    assertThat(sender.delivered())
        .as("restored partitions match the manifest: no rebuild")
        .isEmpty();

    CarOffer changed = cars.get(0);
    int p = partitionOf(changed);
    List<CarOffer> next = new ArrayList<>(cars);
    next.set(0, changed.toBuilder().setMileageKm(changed.getMileageKm() + 500).build());
    loader.publish(snapshot(next, 2));
    await().atMost(WAIT).until(() -> version(p) > before.get(p));
    await().atMost(WAIT).until(second::isIdle);
    assertThat(version(p)).isEqualTo(before.get(p) + 1);
    assertThat(partitionsDeliveredAfter(sender, 0)).containsExactly(p);
    Path file = sender.path(sender.delivered().getLast());
    long inPartition = cars.stream().filter(c -> partitionOf(c) == p).count();
    assertThat(count(file, Condition.all()))
        .as("the rebuilt file holds the restored offers too")
        .isEqualTo(inPartition);
  }

  @Test
  void whenOneOfTwoIndexersIsKilledTheOtherTakesOverAndKeepsRebuilding() throws Exception {
    List<CarOffer> cars = cars(23, 60);
    loader.publish(snapshot(cars, 1));
    IndexerNode a = startNode("a", new DirectoryPartitionSender(dir.resolve("dc-a")));
    DirectoryPartitionSender senderB = new DirectoryPartitionSender(dir.resolve("dc-b"));
    IndexerNode b = startNode("b", senderB);
    Set<Integer> all = IntStream.range(0, P).boxed().collect(Collectors.toSet());
    await()
        .atMost(WAIT)
        .until(
            () -> {
              Set<Integer> union = new HashSet<>(a.ownedPartitions());
              union.addAll(b.ownedPartitions());
              return a.isIdle()
                  && b.isIdle()
                  && union.equals(all)
                  && a.ownedPartitions().size() + b.ownedPartitions().size() == P;
            });
    Set<Integer> ofA = Set.copyOf(a.ownedPartitions());
    CarOffer moved =
        cars.stream().filter(c -> ofA.contains(partitionOf(c))).findFirst().orElseThrow();
    int p = partitionOf(moved);
    long before = version(p);
    assertThat(before).isPositive();

    long killedAt = System.nanoTime();
    a.kill(); // no goodbye to the group: b takes over once a's session times out
    await().atMost(WAIT).until(() -> b.ownedPartitions().equals(all) && b.isIdle());
    System.out.printf("takeover after %d ms%n", (System.nanoTime() - killedAt) / 1_000_000);

    List<CarOffer> next = new ArrayList<>(cars);
    next.set(cars.indexOf(moved), moved.toBuilder().setPriceRub(moved.getPriceRub() - 1).build());
    int delivered = senderB.delivered().size();
    loader.publish(snapshot(next, 2));
    await().atMost(WAIT).until(() -> version(p) > before);
    await().atMost(WAIT).until(b::isIdle);
    assertThat(partitionsDeliveredAfter(senderB, delivered)).containsExactly(p);
    long inPartition = cars.stream().filter(c -> partitionOf(c) == p).count();
    assertThat(count(senderB.path(senderB.delivered().getLast()), Condition.all()))
        .isEqualTo(inPartition);
  }

  @Test
  void malformedMessagesLandInTheDeadLetterTopicWithAReasonAndTheIndexerKeepsGoing()
      throws Exception {
    List<CarOffer> cars = cars(24, 3);
    DirectoryPartitionSender sender = new DirectoryPartitionSender(dir.resolve("dc"));
    IndexerNode node = startNode("a", sender);
    await().atMost(WAIT).until(() -> node.ownedPartitions().size() == P && !node.isRestoring());

    CarOffer car = cars.get(0);
    int p = partitionOf(car);
    Offer offer = CarOffers.toOffer(car, 1L);
    byte[] goodKey = OfferKeys.recordKey(p, car.getPartnerId(), car.getOfferId());
    Offer noDedupKey = offer.toBuilder().setDedupKey("").build();
    Offer wrongType =
        offer.toBuilder()
            .addFields(OfferDocuments.fieldValue(CarsSchema.YEAR, FieldType.LONG, 2019L))
            .build();
    int otherPartition = (p + 1) % P;
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
      send(
          producer, p, "no-partition-prefix".getBytes(StandardCharsets.UTF_8), offer.toByteArray());
      send(producer, p, goodKey, new byte[] {(byte) 0xff, 0x01, 0x02});
      send(producer, p, goodKey, noDedupKey.toByteArray());
      send(producer, p, goodKey, wrongType.toByteArray());
      send(
          producer,
          otherPartition,
          OfferKeys.recordKey(otherPartition, car.getPartnerId(), car.getOfferId()),
          offer.toByteArray());
    }
    List<String> reasons =
        readAll(kafka, topic + "-dlq", 5).stream()
            .peek(
                r ->
                    assertThat(FeedLoaderTest.header(r, OfferTopics.STAGE_HEADER))
                        .isEqualTo("indexer"))
            .map(r -> FeedLoaderTest.header(r, OfferTopics.REASON_HEADER))
            .toList();
    assertThat(reasons)
        .hasSize(5)
        .anySatisfy(r -> assertThat(r).contains("does not start with '<index partition>|'"))
        .anySatisfy(r -> assertThat(r).contains("not a mosaic.feed.v1.Offer"))
        .anySatisfy(r -> assertThat(r).contains(car.getOfferId()).contains("no dedup_key"))
        .anySatisfy(r -> assertThat(r).contains("'year'").contains("long_value"))
        .anySatisfy(r -> assertThat(r).contains("keyed to index partition " + otherPartition));
    List<ConsumerRecord<byte[], byte[]>> dlq = readAll(kafka, topic + "-dlq", 5);
    assertThat(FeedLoaderTest.header(dlq.get(0), OfferTopics.SOURCE_HEADER))
        .startsWith(topic + "/");

    loader.publish(snapshot(cars, 1));
    await().atMost(WAIT).until(() -> version(p) > 0 && node.isIdle());
    Path file = sender.path(new PartitionFileId(CarsSchema.VERSION, p, version(p)));
    assertThat(count(file, Condition.eq(CarsSchema.OFFER_ID, car.getOfferId()))).isEqualTo(1);
  }

  @Test
  void oversizedOffersAbsurdFieldCountsAndInvalidUtf8AreDeadLetteredWithAReason() throws Exception {
    List<CarOffer> cars = cars(24, 3);
    DirectoryPartitionSender sender = new DirectoryPartitionSender(dir.resolve("dc"));
    IndexerNode node = startNode("a", sender);
    await().atMost(WAIT).until(() -> node.ownedPartitions().size() == P && !node.isRestoring());

    CarOffer car = cars.get(0);
    int p = partitionOf(car);
    Offer offer = CarOffers.toOffer(car, 1L);
    byte[] key = OfferKeys.recordKey(p, car.getPartnerId(), car.getOfferId());
    Offer oversized =
        offer.toBuilder()
            .setCar(car.toBuilder().setDescription("x".repeat(600 * 1024)).build())
            .build();
    Offer.Builder manyFields = offer.toBuilder();
    for (int i = 0; i < 300; i++) {
      manyFields.addFields(OfferDocuments.fieldValue(CarsSchema.YEAR, FieldType.INT, 2000 + i));
    }
    // offer_id (field 2) holding bytes that are not UTF-8
    java.io.ByteArrayOutputStream invalid = new java.io.ByteArrayOutputStream();
    com.google.protobuf.CodedOutputStream out =
        com.google.protobuf.CodedOutputStream.newInstance(invalid);
    out.writeString(1, car.getPartnerId());
    out.writeByteArray(2, new byte[] {'o', (byte) 0xC3, (byte) 0x28, (byte) 0xFF});
    out.writeString(3, car.getDedupKey());
    out.flush();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
      send(producer, p, key, oversized.toByteArray());
      send(producer, p, key, manyFields.build().toByteArray());
      send(producer, p, key, invalid.toByteArray());
    }
    List<String> reasons =
        readAll(kafka, topic + "-dlq", 3).stream()
            .map(r -> FeedLoaderTest.header(r, OfferTopics.REASON_HEADER))
            .toList();
    assertThat(reasons)
        .hasSize(3)
        .anySatisfy(r -> assertThat(r).contains("is over the maximum of 524288 bytes"))
        .anySatisfy(
            r ->
                assertThat(r)
                    .contains(car.getOfferId())
                    .contains(" field values, over the maximum of 256"))
        .anySatisfy(r -> assertThat(r).contains("not a mosaic.feed.v1.Offer").contains("UTF-8"));

    // the indexer keeps going: a good snapshot still gets indexed
    loader.publish(snapshot(cars, 1));
    await().atMost(WAIT).until(() -> version(p) > 0 && node.isIdle());
    Path file = sender.path(new PartitionFileId(CarsSchema.VERSION, p, version(p)));
    assertThat(count(file, Condition.eq(CarsSchema.OFFER_ID, car.getOfferId()))).isEqualTo(1);
  }

  @Test
  void versionsContinueAboveTheManifestsEvenWhenTheClockIsBehind() throws Exception {
    List<CarOffer> cars = carsWithThreeDistinctPartitionsFirst(27);
    int p = partitionOf(cars.get(0));
    long future = System.currentTimeMillis() + 1_000_000_000L;
    // a version some sender recorded, e.g. before this node's clock was set back
    manifest.advance(
        new ManifestRecord(new PartitionFileId(CarsSchema.VERSION, p, future), 1, 0, 1, "n@dc"));
    loader.publish(snapshot(cars, 1));
    IndexerNode node = startNode("a", new DirectoryPartitionSender(dir.resolve("dc")));
    await().atMost(WAIT).until(node::isIdle);
    assertThat(version(p)).isEqualTo(future + 1);
    assertThat(version(partitionOf(cars.get(1)))).isLessThan(future);
  }

  @Test
  void partitionWhoseOffersAllDisappearGetsAnEmptyVersion() throws Exception {
    List<CarOffer> cars = carsWithThreeDistinctPartitionsFirst(26);
    loader.publish(snapshot(cars, 1));
    DirectoryPartitionSender sender = new DirectoryPartitionSender(dir.resolve("dc"));
    IndexerNode node = startNode("a", sender);
    await().atMost(WAIT).until(node::isIdle);
    int p = partitionOf(cars.get(0));
    long before = version(p);
    List<CarOffer> next = cars.stream().filter(c -> partitionOf(c) != p).toList();
    loader.publish(snapshot(next, 2));
    await().atMost(WAIT).until(() -> version(p) > before);
    assertThat(count(sender.path(sender.delivered().getLast()), Condition.all())).isZero();
    assertThat(manifest.latest(CarsSchema.VERSION, p).orElseThrow().documents()).isZero();
  }

  @Test
  void newSchemaVersionRebuildsEveryPartitionUnderIt() throws Exception {
    List<CarOffer> cars = cars(25, 30);
    loader.publish(snapshot(cars, 1));
    DirectoryPartitionSender sender = new DirectoryPartitionSender(dir.resolve("dc"));
    IndexerNode node = startNode("a", sender);
    await().atMost(WAIT).until(node::isIdle);
    Set<Integer> nonEmpty =
        cars.stream().map(IndexerNodeTest::partitionOf).collect(Collectors.toSet());
    int delivered = sender.delivered().size();

    Schema.Builder v2 =
        Schema.builder().version(CarsSchema.VERSION + 1).payloadType(CarsSchema.PAYLOAD_TYPE);
    CarsSchema.SCHEMA.fields().forEach(f -> v2.field(f.name(), f.type(), f.role()));
    v2.field("extra", FieldType.STRING, FieldRole.FILTERABLE);
    node.useSchema(v2.build());
    await()
        .atMost(WAIT)
        .until(() -> sender.delivered().size() - delivered == nonEmpty.size() && node.isIdle());
    assertThat(sender.delivered().subList(delivered, sender.delivered().size()))
        .allSatisfy(id -> assertThat(id.schemaVersion()).isEqualTo(CarsSchema.VERSION + 1))
        .extracting(PartitionFileId::partition)
        .containsExactlyInAnyOrderElementsOf(nonEmpty);
  }

  /** A node that indexed and recorded cars while its one datacenter refuses every delivery. */
  private record Outage(Set<Integer> nonEmpty, DirectoryPartitionSender sender, IndexerNode node) {}

  private Outage indexWhileTheDatacenterIsDown(long seed) throws Exception {
    List<CarOffer> cars = carsWithThreeDistinctPartitionsFirst(seed);
    loader.publish(snapshot(cars, 1));
    DirectoryPartitionSender sender = new DirectoryPartitionSender(dir.resolve("dc"));
    sender.down(true);
    IndexerNode node =
        startNode(
            "a", sender, b -> b.deliveryBackoff(Duration.ofMillis(20), Duration.ofMillis(100)));
    Set<Integer> nonEmpty =
        cars.stream().map(IndexerNodeTest::partitionOf).collect(Collectors.toSet());
    await()
        .atMost(WAIT)
        .until(() -> nonEmpty.stream().allMatch(p -> safeVersion(p) > 0) && sender.refused() > 0);
    return new Outage(nonEmpty, sender, node);
  }

  @Test
  void aDeliveryThatFailsLongerThanTheOldSixTriesArrivesOnceTheDatacenterRecovers()
      throws Exception {
    Outage o = indexWhileTheDatacenterIsDown(31);
    await().atMost(WAIT).until(() -> o.sender().refused() >= 10 * o.nonEmpty().size());
    assertThat(o.node().pendingDeliveries()).isEqualTo(o.nonEmpty().size());
    assertThat(o.node().isIdle()).as("versions not delivered yet").isFalse();

    o.sender().down(false);
    await().atMost(WAIT).until(o.node()::isIdle);
    for (int p : o.nonEmpty()) {
      ManifestRecord r = manifest.latest(CarsSchema.VERSION, p).orElseThrow();
      assertThat(o.sender().delivered()).contains(r.id());
      assertThat(r.delivered()).containsEntry(DirectoryPartitionSender.DC, r.id().version());
      assertThat(r.deliveredEverywhere()).isTrue();
    }
  }

  @Test
  void aRestartedIndexerSendsAgainTheRecordedVersionsADatacenterLacksWithoutRebuilding()
      throws Exception {
    Outage o = indexWhileTheDatacenterIsDown(32);
    Map<Integer, Long> recorded = versions();
    o.node().close();

    DirectoryPartitionSender up = new DirectoryPartitionSender(dir.resolve("dc"));
    IndexerNode second = startNode("a", up);
    await().atMost(WAIT).until(second::isIdle);
    assertThat(versions()).as("nothing rebuilt").isEqualTo(recorded);
    assertThat(up.delivered())
        .extracting(PartitionFileId::partition)
        .containsExactlyInAnyOrderElementsOf(o.nonEmpty());
    assertThat(up.delivered())
        .allSatisfy(id -> assertThat(id.version()).isEqualTo(recorded.get(id.partition())));
  }

  @Test
  void aPausedIndexerThatLostItsPartitionsCannotRecordWhenItWakes() throws Exception {
    List<CarOffer> cars = carsWithThreeDistinctPartitionsFirst(33);
    loader.publish(snapshot(cars, 1));
    CarOffer changed = cars.get(0);
    int p = partitionOf(changed);
    java.util.concurrent.atomic.AtomicBoolean holdRecords =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.atomic.AtomicBoolean pauseConsumer =
        new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.CountDownLatch release = new java.util.concurrent.CountDownLatch(1);
    java.util.concurrent.CompletableFuture<PartitionFileId> held =
        new java.util.concurrent.CompletableFuture<>();
    java.util.concurrent.CountDownLatch consumerPaused = new java.util.concurrent.CountDownLatch(1);
    IndexerConfig.Hooks hooks =
        new IndexerConfig.Hooks(
            () -> {
              if (pauseConsumer.get()) {
                consumerPaused.countDown();
                awaitQuietly(release);
              }
            },
            id -> {
              if (holdRecords.get() && id.partition() == p) {
                held.complete(id);
                awaitQuietly(release);
              }
            });
    // a's clock runs a day ahead: its versions are always above b's, so only the epoch stops it
    Clock ahead = Clock.offset(Clock.systemUTC(), Duration.ofDays(1));
    DirectoryPartitionSender senderA = new DirectoryPartitionSender(dir.resolve("dc-a"));
    IndexerNode a =
        startNode(
            "a",
            senderA,
            b -> b.hooks(hooks).clock(ahead).consumerProperty("max.poll.interval.ms", "3000"));
    try {
      await().atMost(WAIT).until(a::isIdle);
      long before = version(p);
      holdRecords.set(true);
      List<CarOffer> next = new ArrayList<>(cars);
      next.set(0, changed.toBuilder().setPriceRub(changed.getPriceRub() + 7).build());
      loader.publish(snapshot(next, 2));
      PartitionFileId stale = held.get(WAIT.toSeconds(), TimeUnit.SECONDS);
      pauseConsumer.set(true);
      assertThat(consumerPaused.await(WAIT.toSeconds(), TimeUnit.SECONDS)).isTrue();

      DirectoryPartitionSender senderB = new DirectoryPartitionSender(dir.resolve("dc-b"));
      IndexerNode b = startNode("b", senderB);
      await()
          .atMost(WAIT)
          .until(() -> b.ownedPartitions().size() == P && version(p) > before && b.isIdle());
      long ofB = version(p);
      assertThat(stale.version()).as("a's version is above b's").isGreaterThan(ofB);

      release.countDown(); // a wakes up and tries to record its version of p
      Path staleFile = new dev.mosaic.partition.PartitionLayout(dir.resolve("a")).file(stale);
      await().atMost(WAIT).until(() -> !java.nio.file.Files.exists(staleFile));
      assertThat(version(p)).as("a's version was not recorded").isEqualTo(ofB);
      assertThat(senderA.delivered()).doesNotContain(stale);
      assertThat(manifest.latest(CarsSchema.VERSION, p).orElseThrow().id())
          .isEqualTo(senderB.delivered().getLast());
    } finally {
      release.countDown();
    }
  }

  @Test
  void aBurstOfUpsertsToOnePartitionSpreadOverMoreThanTheDebounceYieldsOneVersion()
      throws Exception {
    List<CarOffer> cars = carsWithThreeDistinctPartitionsFirst(34);
    loader.publish(snapshot(cars, 1));
    DirectoryPartitionSender sender = new DirectoryPartitionSender(dir.resolve("dc"));
    IndexerNode node =
        startNode("a", sender, b -> b.debounce(Duration.ofMillis(300)).maxDelay(WAIT));
    await().atMost(WAIT).until(node::isIdle);
    int delivered = sender.delivered().size();
    CarOffer burst = cars.get(0);
    CarOffer other = cars.get(1);
    int p = partitionOf(burst);
    int q = partitionOf(other);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
      // p changes at the start and the end of a batch that lasts 3 debounces; q changes all along,
      // one step every 100 ms
      ScheduledExecutorService pacer = Executors.newSingleThreadScheduledExecutor();
      try {
        List<ScheduledFuture<Void>> steps = new ArrayList<>();
        for (int i = 0; i <= 9; i++) {
          int step = i;
          steps.add(
              pacer.schedule(
                  () -> {
                    if (step == 0 || step == 9) {
                      upsert(
                          producer,
                          burst.toBuilder().setPriceRub(burst.getPriceRub() + step + 1).build());
                    }
                    upsert(
                        producer,
                        other.toBuilder().setPriceRub(other.getPriceRub() + step + 1).build());
                    return null;
                  },
                  100L * i,
                  TimeUnit.MILLISECONDS));
        }
        for (ScheduledFuture<Void> s : steps) {
          s.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
      } finally {
        pacer.shutdownNow();
      }
    }
    await()
        .atMost(WAIT)
        .until(() -> partitionsDeliveredAfter(sender, delivered).containsAll(Set.of(p, q)));
    await().atMost(WAIT).until(node::isIdle);
    List<Integer> rebuilt =
        sender.delivered().subList(delivered, sender.delivered().size()).stream()
            .map(PartitionFileId::partition)
            .toList();
    assertThat(rebuilt).as("one version per changed partition").containsExactlyInAnyOrder(p, q);
    Path file = sender.path(sender.delivered().get(rebuilt.indexOf(p) + delivered));
    assertThat(
            count(
                file,
                Condition.and(
                    Condition.eq(CarsSchema.OFFER_ID, burst.getOfferId()),
                    Condition.eq(CarsSchema.PRICE, burst.getPriceRub() + 10))))
        .as("the one version holds the batch's last change")
        .isEqualTo(1);
  }

  @Test
  void filesWhoseVersionCannotBeRecordedAreNotLeftBehind() throws Exception {
    List<CarOffer> cars = carsWithThreeDistinctPartitionsFirst(35);
    loader.publish(snapshot(cars, 1));
    FailingManifest failing = new FailingManifest(manifest);
    failing.failing(true);
    DirectoryPartitionSender sender = new DirectoryPartitionSender(dir.resolve("dc"));
    IndexerNode node = startNode("a", sender, b -> b.manifest(failing));
    Set<Integer> nonEmpty =
        cars.stream().map(IndexerNodeTest::partitionOf).collect(Collectors.toSet());
    await().atMost(WAIT).until(() -> failing.failedRecords() >= 2 * nonEmpty.size());
    assertThat(filesIn(dir.resolve("a"))).as("nothing written survives a failed record").isEmpty();
    assertThat(sender.delivered()).isEmpty();

    failing.failing(false);
    await().atMost(WAIT).until(node::isIdle);
    List<Path> files = filesIn(dir.resolve("a"));
    assertThat(files).hasSize(nonEmpty.size());
    for (int p : nonEmpty) {
      assertThat(files)
          .contains(
              new dev.mosaic.partition.PartitionLayout(dir.resolve("a"))
                  .file(manifest.latest(CarsSchema.VERSION, p).orElseThrow().id()));
    }
  }

  private static List<Path> filesIn(Path root) throws Exception {
    if (!java.nio.file.Files.exists(root)) {
      return List.of();
    }
    try (var walk = java.nio.file.Files.walk(root)) {
      return walk.filter(java.nio.file.Files::isRegularFile).toList();
    }
  }

  private void upsert(KafkaProducer<byte[], byte[]> producer, CarOffer car) throws Exception {
    int p = partitionOf(car);
    send(
        producer,
        p,
        OfferKeys.recordKey(p, car.getPartnerId(), car.getOfferId()),
        CarOffers.toOffer(car, 1L).toByteArray());
  }

  private long safeVersion(int p) {
    try {
      return version(p);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void awaitQuietly(java.util.concurrent.CountDownLatch latch) {
    try {
      latch.await(2, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void send(
      KafkaProducer<byte[], byte[]> producer, int indexPartition, byte[] key, byte[] value)
      throws Exception {
    producer
        .send(new ProducerRecord<>(topic, OfferKeys.kafkaPartition(indexPartition, K), key, value))
        .get(30, TimeUnit.SECONDS);
  }
}
