package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.embedded.EmbeddedKafka;
import dev.mosaic.embedded.EmbeddedZooKeeper;
import dev.mosaic.format.Database;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Query;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionLayout;
import dev.mosaic.partition.PartitionManifest;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Takeovers under churn on a real KRaft broker and a real ZooKeeper: partners keep changing,
 * removing and adding offers while an indexer is killed in the middle of a rebuild (it never
 * records that version and never leaves the group) and the surviving one takes its partitions over.
 * Afterwards every partition's latest recorded file must hold exactly the partners' offers of that
 * partition, by offer id.
 */
class IndexerTakeoverTest {
  private static final int P = 16;
  private static final int K = 4;
  private static final Duration WAIT = Duration.ofSeconds(90);

  @TempDir Path dir;
  private EmbeddedZooKeeper zk;
  private EmbeddedKafka kafka;
  private CuratorFramework curator;
  private PartitionManifest manifest;
  private FeedLoader loader;
  private final List<IndexerNode> nodes = new ArrayList<>();
  private final List<AutoCloseable> nodeClients = new ArrayList<>();
  private final String topic = "offers";

  @BeforeEach
  void start() throws Exception {
    zk = EmbeddedZooKeeper.builder().build().start();
    kafka = EmbeddedKafka.builder().build().start();
    curator =
        CuratorFrameworkFactory.newClient(zk.connectString(), new ExponentialBackoffRetry(100, 5));
    curator.start();
    manifest = PartitionManifest.inZooKeeper(curator, "/mosaic");
    manifest.start();
    loader = KafkaTestSupport.loaderOn(kafka, topic, P, K).build().start();
  }

  @AfterEach
  void stop() throws Exception {
    nodes.forEach(IndexerNode::close);
    for (AutoCloseable c : nodeClients.reversed()) {
      c.close();
    }
    loader.close();
    manifest.close();
    curator.close();
    kafka.close();
    zk.close();
  }

  /**
   * A node with its own ZooKeeper client and manifest view, as a node in its own process has: its
   * view of the manifest lags the other nodes' writes.
   */
  private IndexerNode startNode(String name, IndexerConfig.Hooks hooks) throws Exception {
    CuratorFramework own =
        CuratorFrameworkFactory.newClient(zk.connectString(), new ExponentialBackoffRetry(100, 5));
    own.start();
    nodeClients.add(own);
    PartitionManifest view = PartitionManifest.inZooKeeper(own, "/mosaic");
    view.start();
    nodeClients.add(view::close);
    IndexerNode node =
        IndexerNode.builder()
            .bootstrapServers(kafka.bootstrapServers())
            .offersTopic(topic)
            .deadLetterTopic(topic + "-dlq")
            .groupId("indexers")
            .partitions(P)
            .schema(CarsSchema.SCHEMA)
            .outputDir(dir.resolve(name))
            .sender(new DirectoryPartitionSender(dir.resolve("dc-" + name)))
            .manifest(view)
            .debounce(Duration.ofMillis(50))
            .maxDelay(Duration.ofMillis(300))
            .rebuildThreads(1)
            .hooks(hooks)
            .consumerProperty("session.timeout.ms", "6000")
            .consumerProperty("heartbeat.interval.ms", "500")
            .build()
            .start();
    nodes.add(node);
    return node;
  }

  /** Partners changing their feeds, and what they hold. Confined to the churn thread. */
  private static final class Partners {
    final CarOfferGenerator generator =
        CarOfferGenerator.builder().seed(19).partners(4).duplicateShare(0).build();
    final Map<String, List<CarOffer>> feeds = new TreeMap<>();
    long snapshotId;
    long added;

    Partners(int offers) {
      for (CarOffer c : generator.next(offers)) {
        feeds.computeIfAbsent(c.getPartnerId(), k -> new ArrayList<>()).add(c);
      }
    }

    FeedSnapshot mutate(String partner) {
      List<CarOffer> own = new ArrayList<>();
      for (CarOffer c : generator.mutate(feeds.get(partner), 0.05, 0.05, 0.05)) {
        own.add(
            c.getPartnerId().equals(partner)
                ? c
                : c.toBuilder().setPartnerId(partner).setOfferId(partner + "-n" + ++added).build());
      }
      feeds.put(partner, own);
      return snapshot(partner);
    }

    FeedSnapshot snapshot(String partner) {
      return CarOffers.snapshotsByPartner(feeds.get(partner), ++snapshotId, 1_000L).getFirst();
    }

    /** Offer ids per index partition. */
    Map<Integer, Set<String>> byPartition() {
      Map<Integer, Set<String>> out = new TreeMap<>();
      IntStream.range(0, P).forEach(p -> out.put(p, new java.util.TreeSet<>()));
      feeds.values().stream()
          .flatMap(List::stream)
          .forEach(
              c ->
                  out.get(OfferKeys.indexPartition(c.getDedupKey(), P))
                      .add(c.getPartnerId() + "/" + c.getOfferId()));
      return out;
    }
  }

  @Test
  void afterTakeoversOfKilledRebuildingIndexersEveryPartitionHoldsExactlyThePartnersOffers()
      throws Exception {
    Partners partners = new Partners(1200);
    for (String partner : partners.feeds.keySet()) {
      loader.publish(partners.snapshot(partner));
    }
    IndexerNode survivor = startNode("survivor", IndexerConfig.Hooks.NONE);
    AtomicReference<Throwable> churnFailure = new AtomicReference<>();
    List<String> names = List.copyOf(partners.feeds.keySet());
    AtomicInteger next = new AtomicInteger();
    ScheduledExecutorService churn =
        Executors.newSingleThreadScheduledExecutor(Thread.ofPlatform().name("churn").factory());
    // The simulated feed changes one partner every 40 ms while nodes are killed and take over.
    churn.scheduleWithFixedDelay(
        () -> {
          try {
            synchronized (partners) {
              loader.publish(partners.mutate(names.get(next.getAndIncrement() % names.size())));
            }
          } catch (Throwable t) {
            churnFailure.compareAndSet(null, t);
            throw new IllegalStateException("the simulated feed failed", t);
          }
        },
        0,
        40,
        TimeUnit.MILLISECONDS);
    try {
      for (int round = 1; round <= 3; round++) {
        CountDownLatch rebuilding = new CountDownLatch(1);
        CountDownLatch killed = new CountDownLatch(1);
        AtomicBoolean armed = new AtomicBoolean();
        IndexerNode victim =
            startNode(
                "victim-" + round,
                new IndexerConfig.Hooks(
                    () -> {},
                    id -> {
                      if (armed.get()) {
                        rebuilding.countDown();
                        awaitQuietly(killed);
                      }
                    }));
        await("both own partitions")
            .atMost(WAIT)
            .until(
                () ->
                    !victim.ownedPartitions().isEmpty()
                        && victim.ownedPartitions().size() + survivor.ownedPartitions().size() == P
                        && !victim.isRestoring()
                        && !survivor.isRestoring());
        armed.set(true);
        assertThat(rebuilding.await(WAIT.toSeconds(), TimeUnit.SECONDS))
            .as("the victim rebuilds a partition")
            .isTrue();
        victim.kill();
        killed.countDown();
        await("the survivor takes every partition over")
            .atMost(WAIT)
            .until(() -> survivor.ownedPartitions().size() == P && !survivor.isRestoring());
      }
    } finally {
      churn.shutdown();
      assertThat(churn.awaitTermination(WAIT.toSeconds(), TimeUnit.SECONDS))
          .as("the simulated feed stops")
          .isTrue();
    }
    assertThat(churnFailure.get()).isNull();
    await("the survivor is idle").atMost(WAIT).until(survivor::isIdle);

    Map<Integer, Set<String>> expected = partners.byPartition();
    PartitionLayout layout = new PartitionLayout(dir.resolve("survivor"));
    Map<Integer, String> wrong = new LinkedHashMap<>();
    for (int p = 0; p < P; p++) {
      ManifestRecord r = manifest.latest(CarsSchema.VERSION, p).orElseThrow();
      try (Database db = Database.open(layout.file(r.id()), true)) {
        long total = db.count(Query.where(Condition.all()));
        List<String> missing =
            expected.get(p).stream().filter(id -> count(db, id) != 1).collect(Collectors.toList());
        if (total != expected.get(p).size() || r.documents() != total || !missing.isEmpty()) {
          wrong.put(
              p,
              r.id()
                  + ": "
                  + total
                  + " documents ("
                  + r.documents()
                  + " recorded), partners hold "
                  + expected.get(p).size()
                  + ", missing "
                  + missing);
        }
      }
    }
    assertThat(wrong)
        .as("partitions whose latest file differs from the partners' offers")
        .isEmpty();
  }

  private static long count(Database db, String partnerSlashOffer) {
    int slash = partnerSlashOffer.indexOf('/');
    return db.count(
        Query.where(
            Condition.and(
                Condition.eq(CarsSchema.PARTNER, partnerSlashOffer.substring(0, slash)),
                Condition.eq(CarsSchema.OFFER_ID, partnerSlashOffer.substring(slash + 1)))));
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(60, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
