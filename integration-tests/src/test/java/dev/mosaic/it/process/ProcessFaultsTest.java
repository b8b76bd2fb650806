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
 * <p>Two searchers are placed for faults: {@code dc-b-1} registers the address of a {@link
 * TcpProxy} standing for the link between the datacenters (so the test can partition dc-b away),
 * and, where user and mount namespaces work, runs on a small tmpfs of its own (so the test can fill
 * its disk for real).
 *
 * <p>On failure every process's console tail is printed; full consoles and logs are under {@code
 * target/process-faults/logs}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProcessFaultsTest {
  private static final Path JAR = Path.of("..", "deploy", "target", "mosaic.jar");
  private static final Duration CONVERGE = Duration.ofSeconds(90);

  /**
   * Deadline for enough answers checked under continuous reopens. A search is checkable only when
   * all 16 partition files of its generation can still be read, and on a fresh clone's CI run 90 s
   * gave 4 checked searches of the 5 asked for (41 counts, nothing wrong): the deadline bounds a
   * sample size, not a latency, so it is generous; the test ends as soon as the sample is complete.
   */
  private static final Duration CHECKS = Duration.ofMinutes(3);

  /** The size of dc-b-1's own file system when it has one (a few times its store's needs). */
  private static final int SMALL_DISK_MIB = 24;

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
    cluster =
        new ProcessCluster(
            root,
            JAR,
            new ProcessCluster.Layout(
                List.of("dc-a", "dc-a", "dc-b"), 2, "dc-b", "dc-b-1", SMALL_DISK_MIB));
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
              receiving.set(ManifestAudit.temporaryFiles(victim.storeSeen()));
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
  void queriesUnderContinuousReopenAnswerTheCountsAndOffersOfTheGenerationTheyRanOn() {
    Map<String, Map<Long, SearcherView.Serving>> generations = new LinkedHashMap<>();
    java.util.Set<String> distinct = new java.util.HashSet<>();
    List<String> wrong = new ArrayList<>();
    java.util.Random random = new java.util.Random(19);
    int[] checked = {0, 0};
    try {
      Awaitility.await("counts and offers checked against the published files across many reopens")
          .atMost(CHECKS)
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                for (ProcessCluster.Searcher s : cluster.searchers().values()) {
                  Map<Long, SearcherView.Serving> mine =
                      generations.computeIfAbsent(s.nodeId(), k -> new LinkedHashMap<>());
                  SearcherView.Serving before = SearcherView.serving(s.http());
                  mine.put(before.generation(), before);
                  SearcherView.Count count = SearcherView.countOn(s.http(), "{}");
                  SearcherView.Serving between = SearcherView.serving(s.http());
                  mine.put(between.generation(), between);
                  List<String> partners = witness.partners();
                  String partner =
                      partners.isEmpty() ? "" : partners.get(random.nextInt(partners.size()));
                  SearcherView.Hits hits =
                      SearcherView.search(
                          s.http(),
                          "{\"filter\": {\"eq\": {\"partner\": \""
                              + partner
                              + "\"}}, \"limit\": 1000}");
                  // what each generation served, seen right before and after each query ran
                  // (reopens are frequent: a generation not seen either time is skipped)
                  SearcherView.Serving serving = SearcherView.serving(s.http());
                  mine.put(serving.generation(), serving);
                  SearcherView.Serving ranOn = mine.get(count.generation());
                  java.util.OptionalLong expected = expectedCount(ranOn);
                  if (expected.isPresent()) {
                    checked[0]++;
                    distinct.add(s.nodeId() + "@" + count.generation());
                    if (count.total() != expected.getAsLong()) {
                      wrong.add(
                          s.nodeId()
                              + " generation "
                              + count.generation()
                              + " counts "
                              + count.total()
                              + ", its partitions' documents "
                              + expected.getAsLong());
                    }
                  }
                  var offers =
                      partner.isEmpty()
                          ? java.util.Optional.<java.util.Set<SearcherView.Hit>>empty()
                          : expectedOffers(s, mine.get(hits.generation()), partner);
                  if (offers.isPresent()) {
                    checked[1]++;
                    distinct.add(s.nodeId() + "@" + hits.generation());
                    var answered = new java.util.HashSet<>(hits.hits());
                    if (hits.total() != offers.get().size()
                        || hits.hits().size() != answered.size()
                        || !answered.equals(offers.get())) {
                      var missing = new java.util.HashSet<>(offers.get());
                      missing.removeAll(answered);
                      answered.removeAll(offers.get());
                      wrong.add(
                          s.nodeId()
                              + " generation "
                              + hits.generation()
                              + " "
                              + partner
                              + ": total "
                              + hits.total()
                              + ", "
                              + hits.hits().size()
                              + " hits, published "
                              + offers.get().size()
                              + "; missing "
                              + missing
                              + ", unexpected "
                              + answered);
                    }
                  }
                }
                // a search is checked only when every partition file of its generation is still
                // in the store (retention deletes superseded ones quickly under this churn), so
                // fewer searches than counts can be checked: each covers all 16 partitions
                return checked[0] >= 30 && checked[1] >= 5 && distinct.size() >= 10;
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          "checked only "
              + checked[0]
              + " counts and "
              + checked[1]
              + " searches over "
              + distinct.size()
              + " generations (partners known: "
              + witness.partners()
              + "); wrong: "
              + wrong,
          e);
    }
    System.out.println(
        "checked "
            + checked[0]
            + " counts and "
            + checked[1]
            + " searches over "
            + distinct.size()
            + " generations");
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

  /**
   * The entry searcher of dc-a is killed while it sends a file it just accepted to its DC peer: the
   * kill lands while the peer holds that file half-received (a temporary file whose published
   * version the entry already holds). The files here are partition files of this small cluster
   * (tens of KiB), so the window is milliseconds; it is found by watching both stores every 5 ms.
   */
  @Test
  @Order(6)
  void entrySearcherKilledWhileRelayingServesNoPartialFileItsPeerConvergesAndItCatchesUp()
      throws Exception {
    ProcessCluster.Searcher entry = cluster.searcher("dc-a-1");
    ProcessCluster.Searcher peer = cluster.searcher("dc-a-2");
    AtomicReference<List<Path>> relayed = new AtomicReference<>(List.of());
    Awaitility.await(entry.nodeId() + " sends " + peer.nodeId() + " a file it holds")
        .atMost(CONVERGE)
        .pollDelay(Duration.ZERO)
        .pollInterval(Duration.ofMillis(5))
        .until(
            () -> {
              relayed.set(filesSentUnderWay(entry, peer));
              return !relayed.get().isEmpty();
            });
    entry.process().kill9();
    System.out.println(
        "killed " + entry.nodeId() + " with -9 while " + peer.nodeId() + " received " + relayed);

    Awaitility.await("the peer drops the half-relayed file")
        .atMost(Duration.ofSeconds(30))
        .until(() -> relayed.get().stream().noneMatch(java.nio.file.Files::exists));
    awaitNotBehind(others(entry), "the peer and the other DC converge without the entry");

    cluster.restartSearcher(entry.nodeId());
    awaitNotBehind(List.of(entry), entry.nodeId() + " catches up while feeds flow");

    assertNothingLost();
  }

  /**
   * dc-b is partitioned away: its searcher is reached from outside dc-b only through a TCP proxy
   * standing for the link between the DCs (it registers the proxy's address), and the proxy closes
   * every connection and refuses new ones. ZooKeeper stays reachable from both sides (so dc-b sees
   * the manifest move on and knows it is behind). The one path the proxy does not carry, dc-b
   * fetching from dc-a, is not taken by design during the cut (cross-DC catch-up waits for {@code
   * catch-up-cross-dc-after}, 2 minutes, for versions this young); the test proves it with dc-b-1's
   * own byte counters: nothing received from another DC while cut off.
   */
  @Test
  @Order(7)
  void datacenterCutOffKeepsServingIsReportedStaleAndBothSidesConvergeAfter() throws Exception {
    ProcessCluster.Searcher cut = cluster.searcher("dc-b-1");
    List<ProcessCluster.Searcher> rest = others(cut);
    assertThat(cluster.linkConnections()).as("dc-b is reached through the link").isPositive();
    cluster.cutLink();
    try {
      Awaitility.await(cut.nodeId() + " reports itself stale (/health DOWN)")
          .atMost(Duration.ofSeconds(60))
          .pollInterval(Duration.ofMillis(500))
          .until(
              () -> {
                SearcherView.Health h = SearcherView.health(cut.http());
                return h.status() == 503 && h.body().contains("stale");
              });
      SearcherView.Serving atStale = SearcherView.serving(cut.http());
      double receivedAtStale = receivedFromOtherDcs(cut);
      assertThat(receivedAtStale)
          .as("bytes %s received from dc-a before", cut.nodeId())
          .isPositive();

      Map<Integer, Long> manifestAtStale = ManifestAudit.versions(cluster.manifest().all());
      Awaitility.await("the manifest moves on while dc-b is cut off")
          .atMost(CONVERGE)
          .until(() -> risenPartitions(manifestAtStale) >= ProcessCluster.PARTITIONS / 2);
      awaitNotBehind(rest, "dc-a keeps converging while dc-b is cut off");
      assertThat(SearcherView.count(cut.http(), "{}"))
          .as("%s answers while cut off", cut.nodeId())
          .isPositive();
      assertThat(servedVersions(SearcherView.serving(cut.http())))
          .as("%s keeps serving what it had", cut.nodeId())
          .isEqualTo(servedVersions(atStale));
      assertThat(receivedFromOtherDcs(cut))
          .as("%s received nothing from another DC while cut off", cut.nodeId())
          .isEqualTo(receivedAtStale);
      assertThat(SearcherView.health(cut.http()).status()).isEqualTo(503);
    } finally {
      cluster.restoreLink();
    }
    Map<Integer, Long> atRestore = ManifestAudit.versions(cluster.manifest().all());
    Awaitility.await("the indexers record new versions of every partition after the cut")
        .atMost(CONVERGE)
        .until(() -> risenPartitions(atRestore) == ProcessCluster.PARTITIONS);
    awaitNotBehind(cluster.searchers().values(), "both sides converge after the cut");
    Awaitility.await(cut.nodeId() + " is healthy again")
        .atMost(CONVERGE)
        .pollInterval(Duration.ofMillis(500))
        .until(() -> SearcherView.health(cut.http()).status() == 200);

    assertNothingLost();
  }

  /**
   * dc-b-1's store is on a tmpfs of {@value #SMALL_DISK_MIB} MiB mounted in its own user and mount
   * namespace ({@code unshare -Urm}), with a free-space reserve of {@value
   * ProcessCluster#SMALL_DISK_RESERVE_MIB} MiB. The test fills that file system for real: a ballast
   * file beside the store, written through {@code /proc/<pid>/root} until the file system answers
   * "no space left" (what another writer on a shared disk does). Deliveries must then be refused
   * before a byte is staged, with the reason in the searcher's log, while the old versions keep
   * serving; deleting the ballast gives the space back, and deliveries resume. Skipped where user
   * and mount namespaces are not available.
   */
  @Test
  @Order(8)
  void searcherWhoseDiskFillsRefusesDeliveriesKeepsServingAndResumesWhenSpaceReturns()
      throws Exception {
    org.junit.jupiter.api.Assumptions.assumeTrue(
        cluster.smallDisk(),
        "needs user and mount namespaces (unshare -Urm) to give a searcher a small disk");
    ProcessCluster.Searcher full = cluster.searcher("dc-b-1");
    java.util.regex.Pattern refusal =
        java.util.regex.Pattern.compile("(refused|rejected) .*not enough disk space");
    int refusalsBefore = full.process().logLinesMatching(refusal).size();
    Path ballast = full.diskSeen().resolve("ballast");
    try {
      long filled = fill(ballast);
      System.out.println(
          "filled " + full.nodeId() + "'s disk with " + filled + " bytes of ballast");

      Awaitility.await("a delivery to " + full.nodeId() + " is refused for lack of disk space")
          .atMost(CONVERGE)
          .pollInterval(Duration.ofMillis(500))
          .until(() -> full.process().logLinesMatching(refusal).size() > refusalsBefore);
      System.out.println(
          "refusal: " + full.process().logLinesMatching(refusal).get(refusalsBefore));
      SearcherView.Serving atRefusal = SearcherView.serving(full.http());
      Map<Integer, Long> manifestAtRefusal = ManifestAudit.versions(cluster.manifest().all());
      Awaitility.await("the manifest moves on while the disk is full")
          .atMost(CONVERGE)
          .until(() -> risenPartitions(manifestAtRefusal) >= ProcessCluster.PARTITIONS / 2);
      assertThat(servedVersions(SearcherView.serving(full.http())))
          .as("%s keeps serving the versions it had", full.nodeId())
          .isEqualTo(servedVersions(atRefusal));
      assertThat(SearcherView.count(full.http(), "{}")).isPositive();
      assertThat(ManifestAudit.temporaryFiles(full.storeSeen()))
          .as("nothing half-written is left in the full store")
          .isEmpty();

    } finally {
      java.nio.file.Files.deleteIfExists(ballast);
    }
    Map<Integer, Long> atSpace = ManifestAudit.versions(cluster.manifest().all());
    Awaitility.await("the indexers record new versions of every partition after space returns")
        .atMost(CONVERGE)
        .until(() -> risenPartitions(atSpace) == ProcessCluster.PARTITIONS);
    awaitNotBehind(List.of(full), full.nodeId() + " receives deliveries again");

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
      if (attempt == 10) {
        throw new AssertionError(
            "documents served everywhere never equalled the partners' offers: " + mismatches);
      }
      FeedStatus seen = paused;
      // let the loader run until it prints a newer status line: pausing again at once would read
      // the same stale line and judge the same half-published snapshot again
      Awaitility.await("the feed loader prints a newer status line")
          .atMost(Duration.ofSeconds(30))
          .pollInterval(Duration.ofMillis(50))
          .until(() -> FeedStatus.last(cluster.feedLoader()).index() > seen.index());
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

  /**
   * Files {@code from} is sending {@code to} right now: {@code to}'s temporary files whose
   * published version {@code from} already holds (an entry relaying to its peer, or serving it
   * catch-up).
   */
  private static List<Path> filesSentUnderWay(
      ProcessCluster.Searcher from, ProcessCluster.Searcher to) throws java.io.IOException {
    List<Path> out = new ArrayList<>();
    Path toStore = to.storeSeen();
    for (Path temp : ManifestAudit.temporaryFiles(toStore)) {
      String name = temp.getFileName().toString();
      int end = name.indexOf(dev.mosaic.partition.PartitionLayout.EXTENSION);
      if (end < 0) {
        continue;
      }
      Path published =
          toStore
              .relativize(temp.getParent())
              .resolve(
                  name.substring(0, end + dev.mosaic.partition.PartitionLayout.EXTENSION.length()));
      if (java.nio.file.Files.exists(from.storeSeen().resolve(published))) {
        out.add(temp);
      }
    }
    return out;
  }

  /** Bytes a searcher received from searchers or indexers of other DCs ({@code /metrics}). */
  private static double receivedFromOtherDcs(ProcessCluster.Searcher s) throws Exception {
    return SearcherView.metric(
        s.http(),
        "mosaic_transport_bytes_total",
        labels ->
            labels.contains("direction=\"received\"")
                && !labels.contains("from_dc=\"" + s.dc() + "\""));
  }

  private static Map<Integer, Long> servedVersions(SearcherView.Serving serving) {
    Map<Integer, Long> out = new java.util.TreeMap<>();
    serving.partitions().forEach((p, served) -> out.put(p, served.version()));
    return out;
  }

  /** Writes {@code ballast} until its file system has no space left; returns the bytes written. */
  private static long fill(Path ballast) throws java.io.IOException {
    byte[] block = new byte[1 << 20];
    long written = 0;
    try (var out = java.nio.file.Files.newOutputStream(ballast)) {
      while (true) {
        out.write(block);
        written += block.length;
      }
    } catch (java.io.IOException e) {
      if (!String.valueOf(e.getMessage()).contains("No space left")) {
        throw e;
      }
    }
    return written;
  }

  /** The documents of a generation's partitions, when the witness saw every version of it. */
  private java.util.OptionalLong expectedCount(SearcherView.Serving ranOn) {
    if (ranOn == null || ranOn.partitions().size() != ProcessCluster.PARTITIONS) {
      return java.util.OptionalLong.empty(); // a generation opened between the two requests
    }
    long expected = 0;
    for (SearcherView.Served p : ranOn.partitions().values()) {
      var d = witness.documents(p.partition(), p.version());
      if (d.isEmpty()) {
        return java.util.OptionalLong.empty();
      }
      expected += d.getAsInt();
    }
    return java.util.OptionalLong.of(expected);
  }

  /**
   * The hits a search for one partner's offers must answer on a generation: (partition, offer) of
   * every offer of that partner in the files of the generation's versions, when the witness read
   * every one of them.
   */
  private java.util.Optional<java.util.Set<SearcherView.Hit>> expectedOffers(
      ProcessCluster.Searcher s, SearcherView.Serving ranOn, String partner) {
    if (ranOn == null || ranOn.partitions().size() != ProcessCluster.PARTITIONS) {
      return java.util.Optional.empty();
    }
    java.util.Set<SearcherView.Hit> out = new java.util.HashSet<>();
    for (SearcherView.Served p : ranOn.partitions().values()) {
      var offers = witness.offers(s, ranOn.schemaVersion(), p.partition(), p.version());
      if (offers.isEmpty()) {
        return java.util.Optional.empty();
      }
      for (PartitionOffers.Offer o : offers.get()) {
        if (o.partner().equals(partner)) {
          out.add(new SearcherView.Hit(p.partition(), o));
        }
      }
    }
    return java.util.Optional.of(out);
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
