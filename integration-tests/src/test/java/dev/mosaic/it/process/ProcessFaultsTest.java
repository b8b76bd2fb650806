package dev.mosaic.it.process;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.partition.ManifestRecord;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.zookeeper.data.Stat;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.extension.TestWatcher;

/**
 * Real faults on a pipeline whose every role is its own JVM from the deploy jar (see {@link
 * ProcessCluster}): three searchers in two datacenters ({@code dc-a-1}, {@code dc-a-2}, {@code
 * dc-b-1}), two indexers, the feed loader with simulated partners changing offers all the time,
 * ZooKeeper and a Kafka broker. The scenarios run in order on one cluster (start-up is the
 * expensive part); each ends by proving that nothing was lost: with the feed paused, every searcher
 * serves exactly the manifest's versions, each file's bytes match the manifest's size and CRC32C,
 * and each searcher's count of everything equals the documents the manifest records. A witness
 * thread watches the whole run for a version served or recorded twice with different content.
 *
 * <p>On failure every process's console tail is printed; full consoles and logs are under {@code
 * target/process-faults/logs}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProcessFaultsTest {
  private static final Path JAR = Path.of("..", "deploy", "target", "mosaic.jar");
  private static final Duration CONVERGE = Duration.ofSeconds(90);

  private ProcessCluster cluster;
  private ContentWitness witness;

  @RegisterExtension
  final TestWatcher diagnosis =
      new TestWatcher() {
        @Override
        public void testFailed(ExtensionContext context, Throwable cause) {
          if (cluster != null) {
            System.err.println(
                "==== "
                    + context.getDisplayName()
                    + " failed; process consoles:\n"
                    + cluster.diagnosis());
          }
        }
      };

  @BeforeAll
  void startCluster() throws Exception {
    Path root = Path.of("target", "process-faults").toAbsolutePath();
    deleteTree(root);
    cluster = new ProcessCluster(root, JAR, List.of("dc-a", "dc-a", "dc-b"), 2);
    try {
      cluster.start();
      Awaitility.await("the manifest holds every partition")
          .atMost(CONVERGE)
          .until(
              () ->
                  ManifestAudit.versions(cluster.manifest().all()).size()
                      == ProcessCluster.PARTITIONS);
      awaitNotBehind(cluster.searchers().values(), "every searcher serves every partition");
    } catch (Throwable t) {
      System.err.println("==== process cluster did not start:\n" + cluster.diagnosis());
      throw t;
    }
    witness = new ContentWitness(cluster.manifest(), () -> cluster.searchers().values());
  }

  @AfterAll
  void stopCluster() throws Exception {
    if (witness != null) {
      witness.close();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  @Order(1)
  void searcherKilledMidDeliveryServesNoPartialFileAndCatchesUpUnderChurn() throws Exception {
    ProcessCluster.Searcher victim = cluster.searcher("dc-a-2");
    List<ProcessCluster.Searcher> peers = others(victim);
    AtomicReference<List<Path>> receiving = new AtomicReference<>(List.of());
    Awaitility.await(victim.nodeId() + " is receiving a file")
        .atMost(Duration.ofSeconds(60))
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(5))
        .until(
            () -> {
              receiving.set(ManifestAudit.temporaryFiles(victim.store()));
              return !receiving.get().isEmpty();
            });
    victim.process().kill9();
    System.out.println(
        "killed " + victim.nodeId() + " with -9 while it received " + receiving.get());

    Map<Integer, Long> atKill = ManifestAudit.versions(cluster.manifest().all());
    awaitNotBehind(peers, "the peers of the killed searcher keep converging");

    cluster.restartSearcher(victim.nodeId());
    assertThat(receiving.get())
        .as("the half-received file is discarded at restart, never published")
        .allSatisfy(f -> assertThat(f).doesNotExist());
    Map<Integer, Long> atRestart = ManifestAudit.versions(cluster.manifest().all());
    assertThat(atRestart).isNotEqualTo(atKill); // the feed kept changing partitions meanwhile
    awaitNotBehind(List.of(victim), victim.nodeId() + " catches up while feeds flow");

    assertNothingLost();
  }

  @Test
  @Order(2)
  void indexerKilledWhileRebuildingIsTakenOverAndNoVersionIsServedTwiceWithOtherContent()
      throws Exception {
    ChildProcess victim = cluster.indexer("indexer-2");
    Path output = cluster.indexerOutput("indexer-2");
    boolean midWrite;
    try {
      Awaitility.await("indexer-2 is writing a partition file")
          .atMost(Duration.ofSeconds(20))
          .pollDelay(Duration.ZERO)
          .pollInterval(Duration.ofMillis(5))
          .until(() -> !ManifestAudit.temporaryFiles(output).isEmpty());
      midWrite = true;
    } catch (ConditionTimeoutException e) {
      midWrite = false; // its partitions rebuilt too fast to catch one half-written: kill anyway
    }
    victim.kill9();
    System.out.println(
        "killed indexer-2 with -9" + (midWrite ? " while it wrote a partition file" : ""));
    Map<Integer, Long> atKill = ManifestAudit.versions(cluster.manifest().all());

    Awaitility.await("every partition gets newer versions from the surviving indexer")
        .atMost(CONVERGE)
        .until(() -> risenPartitions(atKill) == ProcessCluster.PARTITIONS);
    awaitNotBehind(cluster.searchers().values(), "the searchers follow the surviving indexer");
    assertThat(witness.violations()).isEmpty();

    assertManifestEqualsTheOffersTopic();
    assertNothingLost();
  }

  /**
   * With the feed paused, waits until every partition's recorded documents equal the live offers
   * the compacted offers topic holds for it: partition by partition, the indexers' input and output
   * agree (no lost offer, no removal left unapplied).
   */
  private void assertManifestEqualsTheOffersTopic() {
    AtomicReference<List<String>> last = new AtomicReference<>(List.of());
    try (FeedPause pause = FeedPause.start(cluster.feedLoader(), cluster.feedPauseFile())) {
      Awaitility.await("with the feed paused the manifest equals the offers topic")
          .atMost(CONVERGE)
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                last.set(
                    OffersTopicAudit.differences(
                        OffersTopicAudit.liveOffers(cluster.bootstrapServers(), "offers"),
                        cluster.manifest().all()));
                return last.get().isEmpty();
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          "the manifest differs from the offers topic: "
              + last.get()
              + "\n"
              + OffersTopicAudit.explain(
                  cluster.bootstrapServers(),
                  "offers",
                  cluster.indexerOutput("indexer-1"),
                  cluster.manifest().all()),
          e);
    }
  }

  @Test
  @Order(3)
  void
      zooKeeperAwayLongerThanTheSessionTimeoutSearchersServeThroughoutReRegisterAndThePipelineResumes()
          throws Exception {
    Map<String, Long> sessions = registrations();
    assertThat(sessions.values()).doesNotContainNull();
    Map<String, Long> countsBefore = new LinkedHashMap<>();
    for (ProcessCluster.Searcher s : cluster.searchers().values()) {
      countsBefore.put(s.nodeId(), SearcherView.count(s.http(), "{}"));
    }

    cluster.zooKeeper().kill9();
    Duration outage = ProcessCluster.SESSION_TIMEOUT.multipliedBy(3);
    long end = System.nanoTime() + outage.toNanos();
    int answered = 0;
    while (System.nanoTime() < end) { // the outage itself: every searcher must answer throughout
      for (ProcessCluster.Searcher s : cluster.searchers().values()) {
        assertThat(SearcherView.count(s.http(), "{}"))
            .as("%s answers with ZooKeeper away", s.nodeId())
            .isPositive();
        answered++;
      }
    }
    System.out.println("ZooKeeper away " + outage + ": " + answered + " counts answered");
    cluster.restartZooKeeper();

    Awaitility.await("every searcher re-registers under a new session")
        .atMost(CONVERGE)
        .ignoreExceptions()
        .untilAsserted(
            () -> {
              Map<String, Long> now = registrations();
              for (var e : sessions.entrySet()) {
                assertThat(now.get(e.getKey()))
                    .as(e.getKey())
                    .isNotNull()
                    .isNotEqualTo(e.getValue());
              }
            });
    Map<Integer, Long> atReturn = ManifestAudit.versions(cluster.manifest().all());
    Awaitility.await("the indexers record new versions of every partition again")
        .atMost(CONVERGE)
        .until(() -> risenPartitions(atReturn) == ProcessCluster.PARTITIONS);
    awaitNotBehind(cluster.searchers().values(), "the searchers receive them");

    assertNothingLost();
  }

  @Test
  @Order(4)
  void queriesUnderContinuousReopenAnswerTheCountOfTheGenerationTheyRanOn() {
    Map<String, Map<Long, SearcherView.Serving>> generations = new LinkedHashMap<>();
    java.util.Set<String> distinct = new java.util.HashSet<>();
    List<String> wrong = new ArrayList<>();
    int[] checked = {0};
    Awaitility.await("counts checked against the published documents across many reopens")
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              for (ProcessCluster.Searcher s : cluster.searchers().values()) {
                Map<Long, SearcherView.Serving> mine =
                    generations.computeIfAbsent(s.nodeId(), k -> new LinkedHashMap<>());
                SearcherView.Serving serving = SearcherView.serving(s.http());
                mine.put(serving.generation(), serving);
                SearcherView.Count count = SearcherView.countOn(s.http(), "{}");
                SearcherView.Serving ranOn = mine.get(count.generation());
                if (ranOn == null || ranOn.partitions().size() != ProcessCluster.PARTITIONS) {
                  continue; // a generation opened between the two requests: nothing to compare with
                }
                long expected = 0;
                boolean known = true;
                for (SearcherView.Served p : ranOn.partitions().values()) {
                  var d = witness.documents(p.partition(), p.version());
                  known &= d.isPresent();
                  expected += d.orElse(0);
                }
                if (!known) {
                  continue;
                }
                checked[0]++;
                distinct.add(s.nodeId() + "@" + count.generation());
                if (count.total() != expected) {
                  wrong.add(
                      s.nodeId()
                          + " generation "
                          + count.generation()
                          + " counts "
                          + count.total()
                          + ", its partitions' documents "
                          + expected);
                }
              }
              return checked[0] >= 60 && distinct.size() >= 15;
            });
    System.out.println(
        "counts checked: " + checked[0] + " answers over " + distinct.size() + " generations");
    assertThat(wrong).isEmpty();
  }

  @Test
  @Order(5)
  void kafkaBrokerKilledWhileFeedsFlowLosesNoOffer() throws Exception {
    cluster.kafka().kill9();
    cluster.restartKafka();
    Map<Integer, Long> atReturn = ManifestAudit.versions(cluster.manifest().all());
    Awaitility.await("the indexers build every partition again from the restarted broker")
        .atMost(CONVERGE)
        .until(() -> risenPartitions(atReturn) == ProcessCluster.PARTITIONS);
    awaitNotBehind(cluster.searchers().values(), "the searchers receive them");

    assertNothingLost();
  }

  // ------------------------------------------------------------------ checks

  /**
   * Proves nothing was lost: pauses the feed between two snapshots ({@link FeedPause}) and waits
   * until every searcher serves exactly the manifest, byte for byte, and counts exactly the
   * documents the manifest records; those documents must be every offer the simulated partners
   * hold, as the loader's status line while paused says. Also asserts the witness saw no content
   * conflict.
   */
  private void assertNothingLost() throws Exception {
    List<String> mismatches = new ArrayList<>();
    for (int attempt = 1; ; attempt++) {
      FeedStatus paused;
      long documents;
      try (FeedPause pause = FeedPause.start(cluster.feedLoader(), cluster.feedPauseFile())) {
        paused = pause.status();
        documents = awaitSearchersEqualManifest();
      }
      if (documents == paused.offers()) {
        System.out.printf(
            "nothing lost (pause %d): every searcher equals the manifest, %d documents = offers%n",
            attempt, documents);
        break;
      }
      // a partner whose last snapshot failed to publish (a broker restart) holds offers the topic
      // does not have until its next snapshot: pause again. A lost offer stays lost, so it fails
      // every attempt.
      mismatches.add("served " + documents + " documents, partners held " + paused);
      if (attempt == 5) {
        throw new AssertionError(
            "documents served everywhere never equalled the partners' offers: " + mismatches);
      }
    }
    assertThat(witness.violations()).isEmpty();
    assertThat(witness.servedObservations()).isPositive();
  }

  /**
   * Waits until every searcher serves exactly the manifest, byte for byte, and counts its
   * documents; returns that count.
   */
  private long awaitSearchersEqualManifest() {
    AtomicReference<List<String>> last = new AtomicReference<>(List.of());
    long[] documents = {0};
    try {
      Awaitility.await("with the feed paused every searcher equals the manifest byte for byte")
          .atMost(CONVERGE)
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                Collection<ManifestRecord> records = cluster.manifest().all();
                List<String> diffs = new ArrayList<>();
                if (records.size() != ProcessCluster.PARTITIONS) {
                  diffs.add("manifest holds " + records.size() + " partitions");
                }
                documents[0] = records.stream().mapToLong(ManifestRecord::documents).sum();
                for (ProcessCluster.Searcher s : cluster.searchers().values()) {
                  List<String> d = ManifestAudit.differences(s, records);
                  diffs.addAll(d);
                  if (d.isEmpty()) {
                    long count = SearcherView.count(s.http(), "{}");
                    if (count != documents[0]) {
                      diffs.add(
                          s.nodeId() + " counts " + count + ", manifest documents " + documents[0]);
                    }
                  }
                }
                last.set(diffs);
                return diffs.isEmpty();
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError("searchers differ from the manifest: " + last.get(), e);
    }
    return documents[0];
  }

  private void awaitNotBehind(Collection<ProcessCluster.Searcher> searchers, String what) {
    Map<Integer, Long> floor = ManifestAudit.versions(cluster.manifest().all());
    AtomicReference<String> last = new AtomicReference<>("");
    try {
      Awaitility.await(what)
          .atMost(CONVERGE)
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                Map<String, List<Integer>> behind = new LinkedHashMap<>();
                for (ProcessCluster.Searcher s : searchers) {
                  List<Integer> b;
                  try {
                    b = ManifestAudit.behind(s, floor);
                  } catch (java.io.IOException e) {
                    b = List.copyOf(floor.keySet());
                  }
                  if (!b.isEmpty()) {
                    behind.put(s.nodeId(), b);
                  }
                }
                last.set("behind " + floor + ": " + behind);
                return behind.isEmpty();
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(what + ": " + last.get(), e);
    }
  }

  private int risenPartitions(Map<Integer, Long> floor) {
    Map<Integer, Long> now = ManifestAudit.versions(cluster.manifest().all());
    return (int)
        floor.entrySet().stream()
            .filter(e -> now.getOrDefault(e.getKey(), 0L) > e.getValue())
            .count();
  }

  /** Each searcher's registration znode's session (ephemeral owner), null when not registered. */
  private Map<String, Long> registrations() throws Exception {
    Map<String, Long> out = new LinkedHashMap<>();
    for (ProcessCluster.Searcher s : cluster.searchers().values()) {
      Stat stat =
          cluster
              .curator()
              .checkExists()
              .forPath(ProcessCluster.ZK_ROOT + "/searchers/" + s.dc() + "/" + s.nodeId());
      out.put(s.nodeId(), stat == null ? null : stat.getEphemeralOwner());
    }
    return out;
  }

  private List<ProcessCluster.Searcher> others(ProcessCluster.Searcher victim) {
    return cluster.searchers().values().stream().filter(s -> s != victim).toList();
  }

  private static void deleteTree(Path root) throws java.io.IOException {
    if (!java.nio.file.Files.exists(root)) {
      return;
    }
    try (var files = java.nio.file.Files.walk(root)) {
      for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
        java.nio.file.Files.deleteIfExists(p);
      }
    }
  }
}
