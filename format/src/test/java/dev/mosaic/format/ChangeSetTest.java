package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Records random updates as change sets, replays them on the base and checks the result is byte for
 * byte the update's file; damaged change sets are refused with a precise error, never half-applied.
 * Reproduce a failure with {@code -Dtests.seed=<seed>}.
 */
class ChangeSetTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());
  private static final int ROUNDS = Integer.getInteger("tests.rounds", 40);

  @TempDir Path dir;

  /** One recorded update: the base file, the update's output, the encoded change set. */
  private record Recorded(Path base, Path output, byte[] changes, Schema schema) {}

  @Test
  void replayingARecordedChangeSetRebuildsTheUpdateByteForByte() throws Exception {
    System.out.println("ChangeSetTest seed " + SEED);
    Random seeds = new Random(SEED);
    for (int round = 0; round < ROUNDS; round++) {
      long seed = seeds.nextLong();
      try {
        Recorded r = record(round, new Random(seed));
        Path replayed = dir.resolve("r" + round + "-replayed.mosaic");
        // odd rounds replay onto a base mapped for this thread only, as receivers do
        try (Database base =
            round % 2 == 0 ? Database.open(r.base()) : Database.openConfined(r.base())) {
          ChangeSet decoded = ChangeSet.decode(base.schema(), r.changes());
          decoded.applyTo(base, replayed, false);
        }
        assertThat(Files.readAllBytes(replayed)).isEqualTo(Files.readAllBytes(r.output()));
      } catch (Throwable t) {
        throw new AssertionError(
            "failed with round seed " + seed + " (tests.seed=" + SEED + "): " + t, t);
      }
    }
  }

  /**
   * Versions v1..vk of a partition, each a random update of the one before: the change sets of
   * v1..vk composed into one and applied to v0 give vk byte for byte (what a sender offers a
   * receiver that missed versions in between), and the composed change set survives encoding. That
   * holds when every version of the chain has v0's payload layout (a merge keeps its base's, and
   * its zstd dictionary); where a version switched layouts (a small raw base grown into compressed
   * blocks) the composed rebuild may differ, which receivers detect (their rebuild is checked
   * against the manifest) and answer with need-full.
   */
  @Test
  void changeSetsComposedAlongAChainRebuildItsLastVersionFromItsFirstBase() throws Exception {
    Random seeds = new Random(SEED);
    int checked = 0;
    for (int round = 0; round < ROUNDS; round++) {
      long seed = seeds.nextLong();
      try {
        Random random = new Random(seed);
        Recorded first = record(round, random);
        RandomizedDatabaseTest.Values values = new RandomizedDatabaseTest.Values(random);
        int maxPayload = random.nextBoolean() ? 40 : 1 + random.nextInt(2000);
        Path latest = first.output();
        List<byte[]> chain = new ArrayList<>(List.of(first.changes()));
        boolean oneLayout = formatVersion(first.output()) == formatVersion(first.base());
        int links = 1 + random.nextInt(4);
        for (int link = 0; link < links; link++) {
          Path next = dir.resolve("r" + round + "-v" + (link + 2) + ".mosaic");
          chain.add(update(latest, first.schema(), values, random, maxPayload, next));
          latest = next;
          oneLayout &= formatVersion(next) == formatVersion(first.base());
        }
        if (!oneLayout) {
          continue;
        }
        checked++;
        ChangeSet composed = ChangeSet.decode(first.schema(), chain.getFirst());
        for (byte[] c : chain.subList(1, chain.size())) {
          composed = composed.then(ChangeSet.decode(first.schema(), c));
        }
        Path replayed = dir.resolve("r" + round + "-composed.mosaic");
        try (Database base = Database.open(first.base())) {
          ChangeSet.decode(base.schema(), composed.encode()).applyTo(base, replayed, false);
        }
        assertThat(Files.readAllBytes(replayed)).isEqualTo(Files.readAllBytes(latest));
      } catch (Throwable t) {
        throw new AssertionError(
            "failed with round seed " + seed + " (tests.seed=" + SEED + "): " + t, t);
      }
    }
    assertThat(checked)
        .as("chains of one payload layout among %d", ROUNDS)
        .isGreaterThan(ROUNDS / 4);
  }

  /** The file's format version (after its 8-byte magic, little-endian): its payload layout. */
  private static int formatVersion(Path file) throws java.io.IOException {
    byte[] head = new byte[12];
    try (var in = Files.newInputStream(file)) {
      in.readNBytes(head, 0, 12);
    }
    return java.nio.ByteBuffer.wrap(head, 8, 4).order(java.nio.ByteOrder.LITTLE_ENDIAN).getInt();
  }

  @Test
  void aChangeSetComposedWithOneForAnotherOutputIsRefusedNamingTheDocumentCounts()
      throws Exception {
    Random random = new Random(SEED ^ 4);
    Recorded a = recordFew(random);
    ChangeSet first = ChangeSet.decode(a.schema(), a.changes());
    RandomizedDatabaseTest.Values values = new RandomizedDatabaseTest.Values(random);
    Path other = dir.resolve("other-output.mosaic");
    DatabaseBuilder b = DatabaseBuilder.create(a.schema());
    for (int i = 0; i <= first.documents(); i++) {
      b.add(RandomizedDatabaseTest.randomDocument(a.schema(), values, random, 40));
    }
    b.writeTo(other);
    byte[] onOther = update(other, a.schema(), values, random, 40, dir.resolve("o2.mosaic"));
    assertThatThrownBy(() -> first.then(ChangeSet.decode(a.schema(), onOther)))
        .isInstanceOf(MalformedChangeSetException.class)
        .hasMessageContaining("applies to a base of " + (first.documents() + 1) + " documents")
        .hasMessageContaining("this one rebuilds " + first.documents());
  }

  @Test
  void aSmallChangeToALargePartitionEncodesToAboutTheSizeOfTheChange() throws Exception {
    Random random = new Random(SEED);
    RandomizedDatabaseTest.Values values = new RandomizedDatabaseTest.Values(random);
    Schema schema = RandomizedDatabaseTest.randomSchema(random);
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      docs.add(RandomizedDatabaseTest.randomDocument(schema, values, random, 500));
    }
    Path basePath = dir.resolve("large.mosaic");
    DatabaseBuilder builder = DatabaseBuilder.create(schema);
    docs.forEach(builder::add);
    builder.writeTo(basePath);
    try (Database base = Database.open(basePath)) {
      ChangeSet.Recorder changes = ChangeSet.recorder(base);
      long addedPayload = 0;
      for (int i = 0; i < docs.size(); i++) {
        if (i % 100 == 50) {
          Document d = RandomizedDatabaseTest.randomDocument(schema, values, random, 500);
          changes.add(d);
          addedPayload += d.payload().length;
        } else {
          changes.keep(i);
        }
      }
      byte[] encoded = changes.encode();
      // 20 replaced documents in 2000: the encoding holds them, not the 1980 kept ones
      assertThat(encoded.length).isLessThan((int) (2 * addedPayload + 2000));
      assertThat(encoded.length).isLessThan((int) (Files.size(basePath) / 10));
    }
  }

  @Test
  void aChangeSetForAnotherBaseIsRefusedNamingTheDocumentCounts() throws Exception {
    Recorded r = recordFew(new Random(SEED ^ 1));
    // another base: one document more than the change set's (a seed's base may hold just one)
    int others = ChangeSet.decode(r.schema(), r.changes()).baseDocuments() + 1;
    Path other = dir.resolve("other.mosaic");
    DatabaseBuilder b = DatabaseBuilder.create(r.schema());
    Random random = new Random(7);
    RandomizedDatabaseTest.Values values = new RandomizedDatabaseTest.Values(random);
    for (int i = 0; i < others; i++) {
      b.add(RandomizedDatabaseTest.randomDocument(r.schema(), values, random, 40));
    }
    b.writeTo(other);
    try (Database base = Database.open(other)) {
      ChangeSet decoded = ChangeSet.decode(base.schema(), r.changes());
      assertThatThrownBy(() -> decoded.applyTo(base, dir.resolve("x.mosaic"), false))
          .isInstanceOf(MalformedChangeSetException.class)
          .hasMessageContaining("the change set applies to a base of " + decoded.baseDocuments())
          .hasMessageContaining("the base file holds " + others);
    }
    assertThat(dir.resolve("x.mosaic")).doesNotExist();
  }

  @Test
  void truncatedOrForeignBytesAreRefusedWithAPreciseReason() throws Exception {
    Recorded r = recordFew(new Random(SEED ^ 2));
    byte[] c = r.changes();
    assertThatThrownBy(() -> ChangeSet.decode(r.schema(), "hello world".getBytes()))
        .isInstanceOf(MalformedChangeSetException.class)
        .hasMessageContaining("not a change set");
    for (int cut = 0; cut < c.length; cut++) {
      byte[] truncated = Arrays.copyOf(c, cut);
      assertThatThrownBy(() -> ChangeSet.decode(r.schema(), truncated))
          .as("cut at %d of %d", cut, c.length)
          .isInstanceOf(MalformedChangeSetException.class)
          .hasMessageStartingWith("malformed change set: ");
    }
  }

  /**
   * A flipped byte is refused with a precise reason, or the change set still decodes: to another
   * valid change set (a value or payload byte), or to the same one (an unused padding bit of the
   * deflate stream). Either way no other exception escapes; the receiver's check of the rebuilt
   * file against the manifest tells the cases apart.
   */
  @Test
  void aFlippedByteIsRefusedWithAPreciseReasonOrStillDecodesNeverAnotherError() throws Exception {
    Random random = new Random(SEED ^ 3);
    Recorded r = recordFew(random);
    int refused = 0;
    for (int i = 0; i < 200; i++) {
      byte[] c = r.changes().clone();
      int at = random.nextInt(c.length);
      c[at] ^= (byte) (1 + random.nextInt(255));
      try (Database base = Database.open(r.base())) {
        ChangeSet.decode(base.schema(), c).applyTo(base, dir.resolve("flip.mosaic"), false);
      } catch (MalformedChangeSetException e) {
        refused++;
        assertThat(e.getMessage()).startsWith("malformed change set: ");
      }
    }
    assertThat(refused).isPositive();
  }

  private Recorded recordFew(Random random) throws Exception {
    for (int attempt = 0; ; attempt++) {
      Recorded r = record(1000 + attempt, random);
      if (r.changes().length > 40) {
        return r;
      }
    }
  }

  /** A random base, a random update of it recorded as a change set, the update's output. */
  private Recorded record(int round, Random random) throws Exception {
    RandomizedDatabaseTest.Values values = new RandomizedDatabaseTest.Values(random);
    Schema schema = RandomizedDatabaseTest.randomSchema(random);
    int maxPayload = random.nextBoolean() ? 40 : 1 + random.nextInt(4000);
    int n = random.nextInt(4) == 0 ? random.nextInt(5) : random.nextInt(1500);
    DatabaseBuilder builder = DatabaseBuilder.create(schema);
    for (int i = 0; i < n; i++) {
      builder.add(RandomizedDatabaseTest.randomDocument(schema, values, random, maxPayload));
    }
    Path basePath = dir.resolve("r" + round + "-base.mosaic");
    builder.writeTo(basePath);
    Path output = dir.resolve("r" + round + "-next.mosaic");
    byte[] changes = update(basePath, schema, values, random, maxPayload, output);
    return new Recorded(basePath, output, changes, schema);
  }

  /** A random update of {@code basePath} written to {@code output}; returns its change set. */
  private static byte[] update(
      Path basePath,
      Schema schema,
      RandomizedDatabaseTest.Values values,
      Random random,
      int maxPayload,
      Path output)
      throws Exception {
    try (Database base = Database.open(basePath)) {
      int n = Math.toIntExact(base.documentCount());
      List<Integer> ids = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        ids.add(i);
      }
      boolean reorder = random.nextInt(5) == 0;
      if (reorder) {
        Collections.shuffle(ids, random);
      }
      double keepP = reorder ? 0.5 : random.nextBoolean() ? 0.99 : random.nextDouble();
      double addP = random.nextBoolean() ? 0.01 : random.nextDouble() * 0.6;
      DatabaseUpdate update = DatabaseUpdate.on(base).fsync(false);
      ChangeSet.Recorder changes = ChangeSet.recorder(base);
      for (int id : ids) {
        while (random.nextDouble() < addP) {
          Document d = RandomizedDatabaseTest.randomDocument(schema, values, random, maxPayload);
          update.add(d);
          changes.add(d);
        }
        if (random.nextDouble() < keepP) {
          update.keep(id);
          changes.keep(id);
        }
      }
      update.writeTo(output);
      return changes.encode();
    }
  }
}
