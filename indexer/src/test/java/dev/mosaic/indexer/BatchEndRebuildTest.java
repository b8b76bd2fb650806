package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.embedded.EmbeddedKafka;
import dev.mosaic.partition.PartitionManifest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The loader's end-of-batch markers on a real KRaft broker: a batch's partitions are rebuilt once
 * each as soon as the batch ends, with a debounce far longer than the test, and a batch without a
 * (complete) marker is still rebuilt, by the debounce once the batch expired.
 */
class BatchEndRebuildTest {
  private static final int P = 16;
  private static final int K = 4;
  private static final Duration WAIT = Duration.ofSeconds(60);
  private static final AtomicInteger RUN = new AtomicInteger();
  private static EmbeddedKafka kafka;

  @TempDir Path dir;
  private final List<AutoCloseable> open = new ArrayList<>();
  private final Map<Integer, AtomicInteger> rebuilds = new ConcurrentHashMap<>();
  private final Map<Integer, Long> rebuiltAtNanos = new ConcurrentHashMap<>();
  private String topic;

  @BeforeAll
  static void startKafka() throws Exception {
    kafka = EmbeddedKafka.builder().build().start();
  }

  @AfterAll
  static void stopKafka() throws Exception {
    kafka.close();
  }

  @AfterEach
  void closeAll() throws Exception {
    for (AutoCloseable c : open.reversed()) {
      c.close();
    }
  }

  private FeedLoader startLoader() throws Exception {
    topic = "offers-batch-" + RUN.incrementAndGet();
    FeedLoader loader = KafkaTestSupport.loaderOn(kafka, topic, P, K).build().start();
    open.add(loader);
    return loader;
  }

  /** A node on the topic whose rebuilds are counted per partition; waits until it owns all. */
  private IndexerNode startNode(Duration debounce, Duration maxDelay) throws Exception {
    IndexerNode node =
        IndexerNode.builder()
            .bootstrapServers(kafka.bootstrapServers())
            .offersTopic(topic)
            .deadLetterTopic(topic + "-dlq")
            .groupId(topic + "-indexers")
            .partitions(P)
            .schema(CarsSchema.SCHEMA)
            .outputDir(dir.resolve("node"))
            .sender(new DirectoryPartitionSender(dir.resolve("sent")))
            .manifest(PartitionManifest.inMemory())
            .debounce(debounce)
            .maxDelay(maxDelay)
            .rebuildThreads(2)
            .rebuildListener(
                (id, file, documents) -> {
                  rebuiltAtNanos.put(id.partition(), System.nanoTime());
                  rebuilds
                      .computeIfAbsent(id.partition(), p -> new AtomicInteger())
                      .incrementAndGet();
                })
            .build()
            .start();
    open.add(node);
    await().atMost(WAIT).until(() -> node.ownedPartitions().size() == P && node.isIdle());
    return node;
  }

  private static Set<Integer> partitionsOf(List<CarOffer> cars) {
    return cars.stream()
        .map(c -> OfferKeys.indexPartition(c.getDedupKey(), P))
        .collect(Collectors.toCollection(TreeSet::new));
  }

  private Map<Integer, Integer> rebuildCounts() {
    return rebuilds.entrySet().stream()
        .collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().get()));
  }

  private static void publishAsOneBatch(FeedLoader loader, List<FeedSnapshot> snapshots)
      throws Exception {
    try (FeedBatch batch = loader.batch()) {
      for (FeedSnapshot s : snapshots) {
        batch.publish(s);
      }
    }
  }

  @Test
  void aBatchOfSeveralPartnersIsRebuiltOncePerChangedPartitionWithoutWaitingForTheDebounce()
      throws Exception {
    FeedLoader loader = startLoader();
    // only a batch's end can make anything due within the test's wait
    IndexerNode node = startNode(Duration.ofMinutes(10), Duration.ofMinutes(20));
    CarOfferGenerator generator =
        CarOfferGenerator.builder().seed(11).partners(3).duplicateShare(0).build();
    List<CarOffer> cars = generator.next(120);

    publishAsOneBatch(loader, CarOffers.snapshotsByPartner(cars, 1, 1_000L));
    Set<Integer> first = partitionsOf(cars);
    await().atMost(WAIT).until(() -> rebuilds.keySet().containsAll(first) && node.isIdle());
    assertThat(rebuildCounts()).containsOnlyKeys(first).allSatisfy((p, n) -> assertThat(n).isOne());
    assertThat(node.offerCount()).isEqualTo(cars.size());

    // the next cycle changes a few offers of every partner: each changed partition once more
    List<CarOffer> next = generator.mutate(cars, 0.1, 0, 0);
    List<CarOffer> changed = new ArrayList<>();
    for (int i = 0; i < cars.size(); i++) {
      if (!next.get(i).equals(cars.get(i))) {
        changed.add(cars.get(i));
        changed.add(next.get(i));
      }
    }
    assertThat(changed).isNotEmpty();
    Set<Integer> second = partitionsOf(changed);
    Map<Integer, Integer> before = rebuildCounts();
    publishAsOneBatch(loader, CarOffers.snapshotsByPartner(next, 2, 2_000L));
    await()
        .atMost(WAIT)
        .until(
            () ->
                second.stream().allMatch(p -> rebuilds.get(p).get() == before.get(p) + 1)
                    && node.isIdle());
    Map<Integer, Integer> after = rebuildCounts();
    for (int p = 0; p < P; p++) {
      int expected = before.getOrDefault(p, 0) + (second.contains(p) ? 1 : 0);
      assertThat(after.getOrDefault(p, 0)).as("rebuilds of partition %d", p).isEqualTo(expected);
    }
  }

  @Test
  void aSingleSnapshotIsItsOwnBatch() throws Exception {
    FeedLoader loader = startLoader();
    IndexerNode node = startNode(Duration.ofMinutes(10), Duration.ofMinutes(20));
    List<CarOffer> cars = KafkaTestSupport.cars(21, 30);
    loader.publish(KafkaTestSupport.snapshot(cars, 1));
    Set<Integer> touched = partitionsOf(cars);
    await().atMost(WAIT).until(() -> rebuilds.keySet().containsAll(touched) && node.isIdle());
    assertThat(rebuildCounts())
        .containsOnlyKeys(touched)
        .allSatisfy((p, n) -> assertThat(n).isOne());
  }

  @Test
  void aBatchWhoseMarkerNeverArrivesOrCountsMoreRecordsIsRebuiltOnceExpired() throws Exception {
    startLoader();
    Duration debounce = Duration.ofSeconds(3);
    IndexerNode node = startNode(debounce, Duration.ofSeconds(30));
    List<CarOffer> cars = KafkaTestSupport.cars(31, 20);
    long batch = 0x5eedL;
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
      long sent = System.nanoTime();
      int[] perKafkaPartition = sendInBatch(producer, cars, batch);
      // Kafka partition 0 gets a marker claiming one record more than it got; the others none
      producer.send(new BatchEnd(batch, perKafkaPartition[0] + 1, 0).toRecord(topic, 0));
      producer.flush();
      awaitRebuiltOnceEachNoEarlierThan(partitionsOf(cars), sent + debounce.toNanos(), node);
      assertThat(node.offerCount()).isEqualTo(cars.size());
    }
  }

  /** Sends cars as records of {@code batch}; returns the records per Kafka partition. */
  private int[] sendInBatch(
      KafkaProducer<byte[], byte[]> producer, List<CarOffer> cars, long batch) {
    int[] perKafkaPartition = new int[K];
    for (CarOffer car : cars) {
      int p = OfferKeys.indexPartition(car.getDedupKey(), P);
      int k = OfferKeys.kafkaPartition(p, K);
      RecordHeaders headers = new RecordHeaders();
      headers.add(BatchEnd.BATCH_HEADER, BatchEnd.batchHeaderValue(batch));
      perKafkaPartition[k]++;
      producer.send(
          new ProducerRecord<>(
              topic,
              k,
              OfferKeys.recordKey(p, car.getPartnerId(), car.getOfferId()),
              CarOffers.toOffer(car, 1_000L).toByteArray(),
              headers));
    }
    producer.flush();
    return perKafkaPartition;
  }

  @Test
  void aBatchHalfReadByTheRestoreOfARestartedNodeLosesNoChangeAndFallsBackToTheDebounce()
      throws Exception {
    startLoader();
    List<CarOffer> cars = KafkaTestSupport.cars(41, 40);
    List<CarOffer> before = cars.subList(0, 20);
    List<CarOffer> after = cars.subList(20, 40);
    long batch = 0xabcdL;
    Duration debounce = Duration.ofSeconds(3);
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(
            kafka.clientProperties(), new ByteArraySerializer(), new ByteArraySerializer())) {
      // the node (re)starts in the middle of the batch: its restore reads the first half
      int[] first = sendInBatch(producer, before, batch);
      IndexerNode node = startNode(debounce, Duration.ofSeconds(30));
      await()
          .atMost(WAIT)
          .until(() -> rebuilds.keySet().containsAll(partitionsOf(before)) && node.isIdle());
      rebuilds.clear();
      long sent = System.nanoTime();
      int[] second = sendInBatch(producer, after, batch);
      for (int k = 0; k < K; k++) {
        if (first[k] + second[k] > 0) {
          producer.send(new BatchEnd(batch, first[k] + second[k], 0).toRecord(topic, k));
        }
      }
      producer.flush();
      // the marker counts records this node did not see after its restore: the debounce rebuilds
      awaitRebuiltOnceEachNoEarlierThan(partitionsOf(after), sent + debounce.toNanos(), node);
      assertThat(node.offerCount()).isEqualTo(cars.size());
    }
  }

  /** Waits until exactly the touched partitions were rebuilt, once each, none before a moment. */
  private void awaitRebuiltOnceEachNoEarlierThan(
      Set<Integer> touched, long earliestNanos, IndexerNode node) {
    await().atMost(WAIT).until(() -> rebuilds.keySet().containsAll(touched) && node.isIdle());
    assertThat(rebuildCounts())
        .containsOnlyKeys(touched)
        .allSatisfy((p, n) -> assertThat(n).isOne());
    for (int p : touched) {
      assertThat(rebuiltAtNanos.get(p))
          .as("partition %d rebuilt by the debounce, not before", p)
          .isGreaterThanOrEqualTo(earliestNanos);
    }
  }
}
