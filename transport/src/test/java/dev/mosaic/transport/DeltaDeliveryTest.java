package dev.mosaic.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.format.ChangeSet;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.DatabaseUpdate;
import dev.mosaic.format.Document;
import dev.mosaic.partition.ChangeSetFile;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionSender;
import io.micrometer.core.instrument.Counter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Delta delivery over real ZooKeeper (curator-test) and TLS: a version built by merge ships as its
 * change set to receivers holding the base, which rebuild it byte for byte; receivers lacking the
 * base, or given a change set that does not rebuild the file, ask for the whole file and get it.
 * Seeded: reproduce with {@code -Dtests.seed=<seed>}.
 */
class DeltaDeliveryTest {
  private static final Duration DEADLINE = Duration.ofSeconds(60);
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());
  private static final int PAYLOAD = 2048;

  @TempDir Path tmp;

  private static TransportSettings settings() {
    return DatacenterDeliveryTest.quick().build();
  }

  /** One searcher, a1 of DC a, and a started sender that sees it. */
  private static TransportSender oneSearcher(TestCluster cluster) throws Exception {
    cluster.searcher("a1", "a");
    TransportSender sender = cluster.sender("indexer-1", "idx");
    await().atMost(DEADLINE).until(() -> sender.discovery().byDc().size() == 1);
    return sender;
  }

  /** A version written by the sender: its file and the raw bytes of the documents it changed. */
  private record Built(PartitionFileId id, Path file, long changedBytes) {}

  private static Document randomDocument(Random random) {
    byte[] payload = new byte[PAYLOAD];
    random.nextBytes(payload);
    return Document.builder(TestFiles.SCHEMA)
        .add("region", "r" + random.nextInt(8))
        .add("price", (long) random.nextInt(1_000_000))
        .payload(payload)
        .build();
  }

  private static long rawBytes(Document d) {
    long n = d.payload().length;
    for (int f = 0; f < TestFiles.SCHEMA.fields().size(); f++) {
      for (byte[] v : d.values(f)) {
        n += v.length;
      }
    }
    return n;
  }

  /** A first version of {@code documents} random documents (no change set: it ships whole). */
  private static Built base(Path out, int partition, int documents, Random random)
      throws IOException {
    PartitionFileId id = new PartitionFileId(1, partition, 1);
    Path file = out.resolve(partition + "").resolve("1.mosaic");
    Files.createDirectories(file.getParent());
    DatabaseBuilder b = DatabaseBuilder.create(TestFiles.SCHEMA);
    for (int i = 0; i < documents; i++) {
      b.add(randomDocument(random));
    }
    b.writeTo(file);
    return new Built(id, file, Files.size(file));
  }

  /**
   * The next version of {@code base}, as the indexer writes it: a merge replacing {@code fraction}
   * of its documents and removing as many, with its change set kept beside it.
   */
  private static Built next(Built base, double fraction, Random random) throws IOException {
    PartitionFileId id = new PartitionFileId(1, base.id().partition(), base.id().version() + 1);
    Path file = base.file().resolveSibling(id.version() + ".mosaic");
    long changed = 0;
    try (Database db = Database.open(base.file())) {
      DatabaseUpdate update = DatabaseUpdate.on(db);
      ChangeSet.Recorder changes = ChangeSet.recorder(db);
      int n = (int) db.documentCount();
      for (int i = 0; i < n; i++) {
        double r = random.nextDouble();
        if (r < fraction) {
          Document d = randomDocument(random);
          update.add(d);
          changes.add(d);
          changed += rawBytes(d);
        } else if (r < 2 * fraction) {
          continue; // removed
        } else {
          update.keep(i);
          changes.keep(i);
        }
      }
      update.writeTo(file);
      ChangeSetFile.write(file, base.id().version(), changes.encode());
    }
    return new Built(id, file, changed);
  }

  private static double sum(TestCluster cluster, String name, Predicate<Counter> filter) {
    return cluster.registry.find(name).counters().stream()
        .filter(filter)
        .mapToDouble(Counter::count)
        .sum();
  }

  private static Predicate<Counter> tag(String key, String value) {
    return c -> value.equals(c.getId().getTag(key));
  }

  private static void send(TransportSender sender, Built b, String... dcs) throws Exception {
    PartitionSender.DeliveryReport report =
        sender.send(b.id(), b.file()).toCompletableFuture().get(60, TimeUnit.SECONDS);
    assertThat(report.failed()).as("seed %d: %s", SEED, report).isEmpty();
    assertThat(report.acceptedBy().keySet()).containsExactlyInAnyOrder(dcs);
  }

  private static void awaitEverywhere(TestCluster cluster, Built b) {
    await()
        .atMost(DEADLINE)
        .untilAsserted(
            () -> {
              for (TestCluster.Searcher s : cluster.searchers.values()) {
                assertThat(s.store.file(b.id())).as("%s on %s", b.id(), s.id).isPresent();
                assertThat(Files.readAllBytes(s.store.file(b.id()).orElseThrow()))
                    .as("%s on %s equals the sender's file", b.id(), s.id)
                    .isEqualTo(Files.readAllBytes(b.file()));
              }
            });
  }

  @Test
  void aOnePercentChangeCrossesEachDcAsItsChangeSetAndIsRelayedAsOneToo() throws Exception {
    System.out.println("DeltaDeliveryTest seed " + SEED);
    Random random = new Random(SEED);
    Path out = tmp.resolve("out");
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings())) {
      for (String dc : List.of("a", "b")) {
        cluster.searcher(dc + 1, dc);
        cluster.searcher(dc + 2, dc);
      }
      TransportSender sender = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> sender.discovery().byDc().size() == 2);
      List<Built> bases = new ArrayList<>();
      long fileBytes = 0;
      for (int p = 0; p < 8; p++) {
        Built b = base(out, p, 500, random);
        bases.add(b);
        fileBytes += Files.size(b.file());
        send(sender, b, "a", "b");
      }
      for (Built b : bases) {
        awaitEverywhere(cluster, b);
      }
      double fullBefore = sum(cluster, "mosaic.transport.bytes.sent", tag("kind", "full"));
      double connectionsBefore = sum(cluster, "mosaic.transport.connections.opened", c -> true);
      List<Built> nexts = new ArrayList<>();
      long changed = 0;
      for (Built b : bases) {
        Built n = next(b, 0.01, random);
        nexts.add(n);
        changed += n.changedBytes();
        send(sender, n, "a", "b");
      }
      for (Built n : nexts) {
        awaitEverywhere(cluster, n);
      }
      assertThat(sum(cluster, "mosaic.transport.bytes.sent", tag("kind", "full")))
          .as("no file sent again")
          .isEqualTo(fullBefore);
      assertThat(sum(cluster, "mosaic.transport.full.fallbacks", c -> true)).isZero();
      // one change set after the other: each sender keeps one connection per searcher it pushes
      // to (the indexer's sender: at most 4 searchers; each searcher: its one peer), kept from the
      // full pushes before, so the change sets need at most one more per searcher pushed to
      assertThat(sum(cluster, "mosaic.transport.connections.opened", c -> true) - connectionsBefore)
          .as("connections opened for 8 change sets, 2 entries and 2 relays each")
          .isLessThanOrEqualTo(8);
      for (String dc : List.of("a", "b")) {
        double intoDc =
            sum(
                cluster,
                "mosaic.transport.bytes.sent",
                tag("kind", "delta").and(tag("to_dc", dc)).and(tag("from_dc", "idx")));
        System.out.printf(
            "DeltaDeliveryTest: into %s %.0f delta bytes for %d changed bytes (%.2f per changed"
                + " byte; the files are %d bytes)%n",
            dc, intoDc, changed, intoDc / changed, fileBytes);
        assertThat(intoDc)
            .as("bytes into %s per changed byte", dc)
            .isLessThanOrEqualTo(3.0 * changed);
        assertThat(intoDc).isPositive();
        assertThat(
                sum(
                    cluster,
                    "mosaic.transport.copies.sent",
                    tag("kind", "delta").and(tag("from_dc", dc)).and(tag("to_dc", dc))))
            .as("relays inside %s forward the change set, one per partition", dc)
            .isEqualTo(8.0);
      }
    }
  }

  @Test
  void aPeerLackingTheBaseGetsTheFileWhetherItIsTheEntryOrTheRelayTarget() throws Exception {
    Random random = new Random(SEED ^ 5);
    Path out = tmp.resolve("out");
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings())) {
      TransportSender sender = oneSearcher(cluster);
      List<Built> bases = new ArrayList<>();
      for (int p = 0; p < 8; p++) {
        Built b = base(out, p, 100, random);
        bases.add(b);
        send(sender, b, "a"); // only a1 is there: a2 never gets the bases
      }
      cluster.searcher("a2", "a");
      await().atMost(DEADLINE).until(() -> sender.discovery().inDc("a").size() == 2);
      List<Built> nexts = new ArrayList<>();
      for (Built b : bases) {
        Built n = next(b, 0.02, random);
        nexts.add(n);
        send(sender, n, "a");
      }
      for (Built n : nexts) {
        awaitEverywhere(cluster, n);
      }
      // entry a1: the change set, relayed to a2, which asks a1 for the file; entry a2: it asks
      // the sender for the file and relays the file to a1. One fallback per version either way.
      assertThat(sum(cluster, "mosaic.transport.full.fallbacks", tag("reason", "base_missing")))
          .isEqualTo(8.0);
      Predicate<Counter> insideA = tag("from_dc", "a").and(tag("to_dc", "a"));
      double relayedDeltas =
          sum(cluster, "mosaic.transport.copies.sent", insideA.and(tag("kind", "delta")));
      double relayedFiles =
          sum(cluster, "mosaic.transport.copies.sent", insideA.and(tag("kind", "full")));
      System.out.printf(
          "DeltaDeliveryTest: %d versions: %.0f relayed as change sets, %.0f relayed files%n",
          nexts.size(), relayedDeltas, relayedFiles);
      // every relayed change set fell back to a file from the relaying peer
      assertThat(relayedFiles).isEqualTo(8.0);
      assertThat(relayedDeltas).isLessThanOrEqualTo(8.0);
    }
  }

  /**
   * Versions 2 and 3 were built while the receiver held version 1, and version 2 was never
   * delivered (superseded first; its file already pruned, its change set kept): version 3's change
   * set does not fit, so the sender composes the change sets of versions 2 and 3 into one from
   * version 1. No file crosses; with version 2's change set gone too, the file does.
   */
  @Test
  void aReceiverThatMissedAVersionGetsTheChangeSetsSinceTheOneItHoldsComposed() throws Exception {
    Random random = new Random(SEED ^ 6);
    Path out = tmp.resolve("out");
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings())) {
      TransportSender sender = oneSearcher(cluster);
      Built v1 = base(out, 0, 300, random);
      send(sender, v1, "a");
      Built v2 = next(v1, 0.02, random);
      Built v3 = next(v2, 0.02, random);
      Files.delete(v2.file()); // pruned; its change set stays beside it
      double fullBefore = sum(cluster, "mosaic.transport.bytes.sent", tag("kind", "full"));
      send(sender, v3, "a");
      awaitEverywhere(cluster, v3);
      assertThat(sum(cluster, "mosaic.transport.chained.deltas", c -> true)).isEqualTo(1.0);
      assertThat(sum(cluster, "mosaic.transport.full.fallbacks", c -> true)).isZero();
      assertThat(sum(cluster, "mosaic.transport.bytes.sent", tag("kind", "full")))
          .as("no file crossed for version 3")
          .isEqualTo(fullBefore);

      Built v4 = next(v3, 0.02, random);
      Built v5 = next(v4, 0.02, random);
      ChangeSetFile.delete(v4.file()); // a missing link: the chain cannot reach version 3
      send(sender, v5, "a");
      awaitEverywhere(cluster, v5);
      assertThat(sum(cluster, "mosaic.transport.chained.deltas", c -> true)).isEqualTo(1.0);
      assertThat(sum(cluster, "mosaic.transport.full.fallbacks", tag("reason", "base_missing")))
          .isEqualTo(1.0);
      assertThat(sum(cluster, "mosaic.transport.bytes.sent", tag("kind", "full")) - fullBefore)
          .isEqualTo((double) Files.size(v5.file()));
    }
  }

  @Test
  void aSearcherWithoutTheBaseAsksForTheFileAndGetsIt() throws Exception {
    Random random = new Random(SEED ^ 1);
    Path out = tmp.resolve("out");
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings())) {
      TransportSender sender = oneSearcher(cluster);
      Built base = base(out, 0, 200, random);
      Built next = next(base, 0.05, random);
      send(sender, next, "a"); // a1 never got the base
      awaitEverywhere(cluster, next);
      assertThat(sum(cluster, "mosaic.transport.full.fallbacks", tag("reason", "base_missing")))
          .isEqualTo(1.0);
      assertThat(sum(cluster, "mosaic.transport.bytes.sent", tag("kind", "full")))
          .isEqualTo((double) Files.size(next.file()));
      assertThat(cluster.searchers.get("a1").store.file(base.id())).isEmpty();
    }
  }

  @Test
  void aDamagedChangeSetIsRefusedAsMalformedAndTheFileThenArrives() throws Exception {
    Random random = new Random(SEED ^ 2);
    Path out = tmp.resolve("out");
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings())) {
      TransportSender sender = oneSearcher(cluster);
      Built base = base(out, 0, 200, random);
      send(sender, base, "a");
      Built next = next(base, 0.05, random);
      ChangeSetFile kept = ChangeSetFile.read(next.file()).orElseThrow();
      byte[] damaged = kept.changes().clone();
      damaged[damaged.length / 2] ^= 0x5A; // inside the deflated body
      ChangeSetFile.write(next.file(), kept.baseVersion(), damaged);
      send(sender, next, "a");
      awaitEverywhere(cluster, next);
      assertThat(sum(cluster, "mosaic.transport.full.fallbacks", c -> true)).isEqualTo(1.0);
      assertThat(
              sum(cluster, "mosaic.transport.full.fallbacks", tag("reason", "malformed"))
                  + sum(
                      cluster,
                      "mosaic.transport.full.fallbacks",
                      tag("reason", "rebuild_mismatch")))
          .as("refused as malformed, or (a flipped value byte) as not matching the manifest")
          .isEqualTo(1.0);
    }
  }

  @Test
  void aRebuildOfTheSameSizeButOtherContentIsRefused() throws Exception {
    Random random = new Random(SEED ^ 4);
    Path out = tmp.resolve("out");
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings())) {
      TransportSender sender = oneSearcher(cluster);
      Built base = base(out, 0, 50, random);
      send(sender, base, "a");
      // two change sets replacing document 7 by documents differing only in their price: files
      // of one size and other content CRC32C
      Document shown = randomDocument(random);
      Document other =
          Document.builder(TestFiles.SCHEMA)
              .add("region", TestFiles.SCHEMA.field("region").type().decode(shown.values(0).get(0)))
              .add(
                  "price",
                  1L + (Long) TestFiles.SCHEMA.field("price").type().decode(shown.values(1).get(0)))
              .payload(shown.payload())
              .build();
      Path file = base.file().resolveSibling("2.mosaic");
      byte[] wrong = replaceSeventh(base, other, file);
      replaceSeventh(base, shown, file);
      ChangeSetFile.write(file, base.id().version(), wrong);
      Built next = new Built(new PartitionFileId(1, 0, 2), file, 0);
      send(sender, next, "a");
      awaitEverywhere(cluster, next);
      assertThat(sum(cluster, "mosaic.transport.full.fallbacks", tag("reason", "rebuild_mismatch")))
          .isEqualTo(1.0);
    }
  }

  /** Writes {@code file}: {@code base} with document 7 replaced; returns its change set. */
  private static byte[] replaceSeventh(Built base, Document replacement, Path file)
      throws IOException {
    try (Database db = Database.open(base.file())) {
      DatabaseUpdate update = DatabaseUpdate.on(db);
      ChangeSet.Recorder changes = ChangeSet.recorder(db);
      for (int i = 0; i < db.documentCount(); i++) {
        if (i == 7) {
          update.add(replacement);
          changes.add(replacement);
        } else {
          update.keep(i);
          changes.keep(i);
        }
      }
      update.writeTo(file);
      return changes.encode();
    }
  }

  @Test
  void aChangeSetThatRebuildsAnotherFileIsRefusedByTheManifestCheck() throws Exception {
    Random random = new Random(SEED ^ 3);
    Path out = tmp.resolve("out");
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings())) {
      TransportSender sender = oneSearcher(cluster);
      Built base = base(out, 0, 200, random);
      send(sender, base, "a");
      // a well-formed change set of the same base that builds different documents
      byte[] other = ChangeSetFile.read(next(base, 0.05, random).file()).orElseThrow().changes();
      Built next = next(base, 0.05, random); // the same version, other documents
      ChangeSetFile.write(next.file(), base.id().version(), other);
      send(sender, next, "a");
      awaitEverywhere(cluster, next);
      assertThat(sum(cluster, "mosaic.transport.full.fallbacks", tag("reason", "rebuild_mismatch")))
          .isEqualTo(1.0);
    }
  }
}
