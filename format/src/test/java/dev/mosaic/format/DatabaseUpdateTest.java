package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Updates random partitions with random change sets (kept documents, deletions by omission, new
 * documents, reorders) and checks that the file is byte for byte a fresh {@link DatabaseBuilder}
 * build of the same documents in the same order, and that it answers like {@link
 * ReferenceDatabase}. Reproduce a failure with {@code -Dtests.seed=<seed>}.
 */
class DatabaseUpdateTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());
  private static final int ROUNDS = Integer.getInteger("tests.rounds", 60);

  @TempDir Path dir;

  @Test
  void anUpdateIsByteIdenticalToAFreshBuildOfTheSameDocuments() throws Exception {
    System.out.println("DatabaseUpdateTest seed " + SEED);
    Random seeds = new Random(SEED);
    for (int round = 0; round < ROUNDS; round++) {
      long seed = seeds.nextLong();
      try {
        runRound(round, seed);
      } catch (Throwable t) {
        throw new AssertionError(
            "failed with round seed " + seed + " (tests.seed=" + SEED + "): " + t, t);
      }
    }
  }

  /** How a round changes its base. */
  private enum Change {
    /** Keeps most documents in order, drops some, inserts new ones anywhere. */
    FEW,
    /** Keeps and adds about as many, interleaved. */
    MANY,
    /** Keeps nothing. */
    ALL_DELETED,
    /** Keeps everything as it is. */
    NONE,
    /** Keeps and adds in an order of their own (a new sort key). */
    REORDER
  }

  private void runRound(int round, long seed) throws Exception {
    Random random = new Random(seed);
    RandomizedDatabaseTest.Values values = new RandomizedDatabaseTest.Values(random);
    Schema schema = RandomizedDatabaseTest.randomSchema(random);
    int maxPayload = random.nextBoolean() ? 40 : 1 + random.nextInt(4000);
    int n =
        switch (random.nextInt(6)) {
          case 0 -> 0;
          case 1 -> random.nextInt(5);
          case 2 -> 300 + random.nextInt(3000);
          default -> random.nextInt(400);
        };
    List<Document> baseDocs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      baseDocs.add(RandomizedDatabaseTest.randomDocument(schema, values, random, maxPayload));
    }
    Database base = openBase(schema, baseDocs, random, dir.resolve("r" + round + "-base.mosaic"));
    Change change = Change.values()[random.nextInt(Change.values().length)];
    DatabaseUpdate update =
        random.nextInt(8) == 0 && n == 0 ? DatabaseUpdate.fresh(schema) : DatabaseUpdate.on(base);
    update.fsync(random.nextBoolean());
    List<Document> expected = new ArrayList<>();
    int kept = 0;
    int added = 0;
    List<Integer> ids = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      ids.add(i);
    }
    if (change == Change.REORDER) {
      Collections.shuffle(ids, random);
    }
    double keepP =
        switch (change) {
          case FEW -> 0.97;
          case MANY, REORDER -> 0.5;
          case ALL_DELETED -> 0;
          case NONE -> 1;
        };
    double addP =
        switch (change) {
          case FEW -> 0.02;
          case MANY, REORDER, ALL_DELETED -> 0.5;
          case NONE -> 0;
        };
    // added as documents or, one update in two, also through one reused builder
    Document.Builder scratch = random.nextBoolean() ? Document.builder(schema) : null;
    for (int id : ids) {
      while (random.nextDouble() < addP) {
        expected.add(add(update, scratch, schema, values, random, maxPayload));
        added++;
      }
      if (random.nextDouble() < keepP) {
        update.keep(id);
        expected.add(baseDocs.get(id));
        kept++;
      }
    }
    int tail = change == Change.NONE ? 0 : random.nextInt(n == 0 ? 30 : 3);
    for (int i = 0; i < tail; i++) {
      expected.add(add(update, scratch, schema, values, random, maxPayload));
      added++;
    }

    Path out = dir.resolve("r" + round + "-next.mosaic");
    DatabaseUpdate.Summary summary = update.writeTo(out);
    assertThat(summary.documents()).isEqualTo(expected.size());
    assertThat(summary.carriedOver()).isEqualTo(kept);
    assertThat(summary.added()).isEqualTo(added);
    assertThat(summary.sizeInBytes()).isEqualTo(Files.size(out));
    assertThat(summary.output()).isEqualTo(out);

    // the update keeps the base's payload dictionary; the fresh build is told to use it too
    DatabaseBuilder fresh = DatabaseBuilder.create(schema).payloadDictionaryOf(base);
    expected.forEach(fresh::add);
    byte[] rebuilt = fresh.toByteArray();
    byte[] written = Files.readAllBytes(out);
    assertThat(written)
        .as(
            "byte-identical to a fresh build (%s, %d base documents); first difference in %s",
            change, n, firstDifference(written, rebuilt))
        .isEqualTo(rebuilt);
    assertThat(leftovers(round)).containsExactlyInAnyOrder("base.mosaic", "next.mosaic");

    try (Database writtenDb = Database.open(out, true);
        Database expectedDb = Database.fromBytes(rebuilt)) {
      DatabaseMergeTest.compare(
          schema,
          writtenDb,
          expectedDb,
          new ReferenceDatabase(schema, List.of(expected)),
          values,
          random);
    }
    base.close();
  }

  /**
   * Adds a random document to the update: built and added, or (with a scratch builder, two times in
   * three) filled into the builder and added from it, which is then cleared for the next one.
   * Returns the document the update holds.
   */
  private static Document add(
      DatabaseUpdate update,
      Document.Builder scratch,
      Schema schema,
      RandomizedDatabaseTest.Values values,
      Random random,
      int maxPayload) {
    if (scratch == null || random.nextInt(3) == 0) {
      Document d = RandomizedDatabaseTest.randomDocument(schema, values, random, maxPayload);
      update.add(d);
      return d;
    }
    RandomizedDatabaseTest.fill(scratch, values, random, maxPayload);
    Document d = scratch.build();
    update.add(scratch);
    scratch.clear();
    return d;
  }

  /** The first segment whose bytes differ, for failure messages. */
  private static String firstDifference(byte[] a, byte[] b) {
    try (var x = dev.mosaic.format.impl.DatabaseReader.of(Database.fromBytes(a));
        var y = dev.mosaic.format.impl.DatabaseReader.of(Database.fromBytes(b))) {
      var sa = x.segments();
      var sb = y.segments();
      for (int i = 0; i < Math.min(sa.size(), sb.size()); i++) {
        var s1 = sa.get(i);
        var s2 = sb.get(i);
        if (!s1.equals(s2)
            || !Arrays.equals(
                a,
                (int) s1.offset(),
                (int) (s1.offset() + s1.length()),
                b,
                (int) s2.offset(),
                (int) (s2.offset() + s2.length()))) {
          return s1 + " / " + s2 + " at byte " + Arrays.mismatch(a, b) + " of the file";
        }
      }
      return sa.size() + " / " + sb.size() + " segments";
    } catch (Exception e) {
      return "unreadable: " + e;
    }
  }

  /** The base as written by a builder with random options, opened from a file or from bytes. */
  private static Database openBase(
      Schema schema, List<Document> documents, Random random, Path file) throws Exception {
    DatabaseBuilder builder = DatabaseBuilder.create(schema);
    if (random.nextBoolean()) {
      builder
          .payloadCompression(
              PayloadCompression.values()[random.nextInt(PayloadCompression.values().length)])
          .payloadBlockSize(1 + random.nextInt(16_384))
          .autoBloomFilters(random.nextBoolean());
      for (Field f : schema.fields()) {
        if (f.role().isFilterable() && random.nextInt(4) == 0) {
          builder.bloomFilter(f.name());
        }
      }
    }
    documents.forEach(builder::add);
    builder.writeTo(file);
    return random.nextBoolean()
        ? Database.open(file, true)
        : Database.fromBytes(Files.readAllBytes(file));
  }

  private List<String> leftovers(int round) throws Exception {
    String prefix = "r" + round + "-";
    try (var files = Files.list(dir)) {
      return files
          .map(p -> p.getFileName().toString())
          .filter(name -> name.contains(prefix))
          .map(name -> name.startsWith(prefix) ? name.substring(prefix.length()) : name)
          .toList();
    }
  }

  @Test
  void crossingTheTwoByteIdLimitInBothDirectionsStaysByteIdentical() throws Exception {
    Schema schema =
        Schema.builder()
            .field("id", FieldType.LONG, FieldRole.FULL)
            .field("color", FieldType.STRING, FieldRole.FILTERABLE)
            .field("price", FieldType.INT, FieldRole.SORTABLE)
            .build();
    Random random = new Random(SEED);
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < 66_000; i++) {
      docs.add(
          Document.builder(schema)
              .add("id", (long) i)
              .add("color", "c" + random.nextInt(i % 2 == 0 ? 3 : 3000))
              .add("price", random.nextInt(100_000))
              .payload(("offer " + i + " of colour " + random.nextInt(50)).getBytes())
              .build());
    }
    // 65,000 -> 66,000 documents (2-byte ids become 4-byte ids), then 66,000 -> 65,000
    Path small = dir.resolve("small.mosaic");
    DatabaseBuilder b = DatabaseBuilder.create(schema);
    docs.subList(0, 65_000).forEach(b::add);
    b.writeTo(small);
    Path big = dir.resolve("big.mosaic");
    try (Database base = Database.open(small)) {
      DatabaseUpdate up = DatabaseUpdate.on(base);
      for (int i = 0; i < 65_000; i++) {
        if (i % 65 == 0) {
          up.add(docs.get(65_000 + i / 65));
        }
        up.keep(i);
      }
      up.writeTo(big);
    }
    List<Document> bigOrder = new ArrayList<>();
    for (int i = 0; i < 65_000; i++) {
      if (i % 65 == 0) {
        bigOrder.add(docs.get(65_000 + i / 65));
      }
      bigOrder.add(docs.get(i));
    }
    assertThat(bigOrder).hasSize(66_000);
    assertIdentical(big, small, schema, bigOrder);

    Path again = dir.resolve("again.mosaic");
    List<Document> smallOrder = new ArrayList<>();
    try (Database base = Database.open(big)) {
      DatabaseUpdate up = DatabaseUpdate.on(base);
      for (int i = 0; i < 66_000; i++) {
        if (i % 66 != 7) {
          up.keep(i);
          smallOrder.add(bigOrder.get(i));
        }
      }
      assertThat(up.writeTo(again).documents()).isEqualTo(65_000);
    }
    assertIdentical(again, big, schema, smallOrder);
  }

  private static void assertIdentical(Path file, Path base, Schema schema, List<Document> docs)
      throws Exception {
    try (Database b = Database.open(base)) {
      assertIdentical(file, b, schema, docs);
    }
  }

  private static void assertIdentical(Path file, Database base, Schema schema, List<Document> docs)
      throws Exception {
    DatabaseBuilder fresh = DatabaseBuilder.create(schema).payloadDictionaryOf(base);
    docs.forEach(fresh::add);
    assertThat(Files.readAllBytes(file)).isEqualTo(fresh.toByteArray());
  }

  /** A feed's partition: unique ids, a few colors, rare multi-valued tags, near-unique prices. */
  private static final Schema FEED_SCHEMA =
      Schema.builder()
          .field("id", FieldType.STRING, FieldRole.FILTERABLE)
          .field("color", FieldType.STRING, FieldRole.FILTERABLE)
          .field("tags", FieldType.STRING, FieldRole.FILTERABLE)
          .field("price", FieldType.LONG, FieldRole.FULL)
          .build();

  /**
   * A partition shaped like a feed's (unique ids, near-unique numbers, a few frequent values, rare
   * multi-valued tags) under a small change: Bloom filters, postings mixing lists and bit sets, and
   * 4-byte value offsets go through the update's value-by-value merge.
   */
  @Test
  void aSmallChangeOfAFeedLikePartitionIsByteIdenticalBloomFiltersIncluded() throws Exception {
    Schema schema = FEED_SCHEMA;
    Random random = new Random(SEED);
    List<Document> baseDocs = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (int i = 0; i < 3000; i++) {
      ids.add(String.format("id-%08d-%s", 10 * i + 5, "x".repeat(20)));
      baseDocs.add(feedDocument(schema, random, ids.get(i)));
    }
    try (Database base = Database.open(written(schema, baseDocs, "feed-base.mosaic"))) {
      DatabaseUpdate up = DatabaseUpdate.on(base);
      List<Document> expected = new ArrayList<>();
      for (int i = 0; i < 3000; i++) {
        if (i % 97 == 0) {
          // a new document in place of the old, with an id sorting anywhere, or the same id
          String id = i % 2 == 0 ? ids.get(i) : String.format("id-%08d", random.nextInt(40_000));
          Document d = feedDocument(schema, random, id);
          up.add(d);
          expected.add(d);
        } else if (i % 101 != 0) {
          up.keep(i);
          expected.add(baseDocs.get(i));
        }
      }
      Document last = feedDocument(schema, random, "zz-after-every-id");
      up.add(last);
      expected.add(last);
      Path out = dir.resolve("feed-next.mosaic");
      up.writeTo(out);
      assertIdentical(out, base, schema, expected);
      try (var next = dev.mosaic.format.impl.DatabaseReader.of(Database.open(out))) {
        assertThat(next.segments().stream().filter(x -> x.kind().equals("bloom")).count())
            .isEqualTo(2); // id and price
      }
    }
  }

  /**
   * A feed cycle that removes nothing: changed offers keep their ids, new ones arrive. The id
   * field's Bloom filter is then the base's bits plus the new ids' (no base value is gone), and
   * must still be the bytes a fresh build writes.
   */
  @Test
  void aChangeThatKeepsEveryIdIsByteIdenticalBloomFiltersIncluded() throws Exception {
    Schema schema = FEED_SCHEMA;
    Random random = new Random(SEED + 1);
    for (int newIds : new int[] {0, 3, 40}) {
      List<Document> baseDocs = new ArrayList<>();
      for (int i = 0; i < 1000; i++) {
        baseDocs.add(feedDocument(schema, random, String.format("id-%08d", 10 * i)));
      }
      try (Database base =
          Database.open(written(schema, baseDocs, "kept-ids-base-" + newIds + ".mosaic"))) {
        DatabaseUpdate up = DatabaseUpdate.on(base);
        List<Document> expected = new ArrayList<>();
        for (int i = 0; i < 1000; i++) {
          if (i % 50 == 7) {
            // the same offer, changed
            Document d = feedDocument(schema, random, String.format("id-%08d", 10 * i));
            up.add(d);
            expected.add(d);
          } else {
            up.keep(i);
            expected.add(baseDocs.get(i));
          }
        }
        for (int k = 0; k < newIds; k++) {
          Document d = feedDocument(schema, random, String.format("id-%08d", 10 * k + 3));
          up.add(d);
          expected.add(d);
        }
        Path out = dir.resolve("kept-ids-next-" + newIds + ".mosaic");
        up.writeTo(out);
        assertIdentical(out, base, schema, expected);
      }
    }
  }

  /** A fresh build of {@code docs} written to {@code name} in the test's directory. */
  private Path written(Schema schema, List<Document> docs, String name) throws IOException {
    Path file = dir.resolve(name);
    DatabaseBuilder b = DatabaseBuilder.create(schema);
    docs.forEach(b::add);
    b.writeTo(file);
    return file;
  }

  private static Document feedDocument(Schema schema, Random random, String id) {
    Document.Builder d =
        Document.builder(schema)
            .add("id", id)
            .add("color", "c" + random.nextInt(5))
            .add("price", random.nextLong(1_000_000_000L));
    for (int t = random.nextInt(3); t >= 0; t--) {
      d.add(
          "tags", random.nextInt(4) == 0 ? "rare" + random.nextInt(2000) : "t" + random.nextInt(8));
    }
    return d.payload(new byte[] {(byte) random.nextInt()}).build();
  }

  @Test
  void blocksAwayFromTheChangesAreCopiedWithoutBeingDecompressed() throws Exception {
    Random random = new Random(SEED);
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < 400; i++) {
      byte[] payload = new byte[200 + random.nextInt(800)];
      for (int b = 0; b < payload.length; b++) {
        payload[b] = (byte) ('a' + random.nextInt(4)); // compressible
      }
      docs.add(Document.builder(SCHEMA).add("name", "v" + i).add("n", i).payload(payload).build());
    }
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    docs.forEach(b::add);
    Path file = dir.resolve("base.mosaic");
    b.writeTo(file);
    byte[] bytes = Files.readAllBytes(file);
    long firstBlock;
    try (var db = dev.mosaic.format.impl.DatabaseReader.of(Database.open(file))) {
      assertThat(db.payloadsCompressed()).isTrue();
      assertThat(db.payloadBlockCount()).isGreaterThan(10);
      var payload =
          db.segments().stream().filter(x -> x.kind().equals("payload")).findFirst().orElseThrow();
      var layout = db.layout().orElseThrow();
      assertThat(layout.payloadCodec()).isEqualTo("zstd");
      int k = db.payloadBlockCount();
      // offsets, block tables, dictionary count, block dictionaries, dictionary offsets, dictionary
      firstBlock =
          payload.offset()
              + 16
              + 401 * 4
              + (k + 1) * 12L
              + 8
              + 4L * k
              + 16
              + layout.payloadDictionaryBytes();
    }
    // the first block no longer decompresses: its frame header is damaged
    Arrays.fill(bytes, (int) firstBlock, (int) firstBlock + 32, (byte) 0xFF);
    Files.write(file, bytes);
    try (Database base = Database.open(file, false)) {
      assertThatThrownBy(() -> base.payloadBytes(0)).hasMessageContaining("payload block 0");
      DatabaseUpdate up = DatabaseUpdate.on(base);
      for (int i = 0; i < 400; i++) {
        if (i == 390) {
          up.add(doc(SCHEMA, 390));
        } else {
          up.keep(i);
        }
      }
      Path out = dir.resolve("out.mosaic");
      up.writeTo(out); // would fail if the damaged block were decompressed
      try (Database next = Database.open(out, true)) {
        assertThatThrownBy(() -> next.payloadBytes(0)).hasMessageContaining("payload block 0");
        assertThat(next.payloadBytes(390)).isEqualTo(doc(SCHEMA, 390).payload());
        assertThat(next.payloadBytes(389)).isEqualTo(docs.get(389).payload());
      }
    }
  }

  // ----- errors --------------------------------------------------------------------------------

  private static final Schema SCHEMA =
      Schema.builder()
          .field("name", FieldType.STRING, FieldRole.FULL)
          .field("n", FieldType.INT, FieldRole.SORTABLE)
          .build();

  private static Document doc(Schema schema, int i) {
    Document.Builder d = Document.builder(schema);
    for (Field f : schema.fields()) {
      d.add(f.name(), f.type() == FieldType.STRING ? "v" + i : (Object) i);
    }
    return d.payload(new byte[] {(byte) i}).build();
  }

  private Database base(int documents) throws Exception {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    for (int i = 0; i < documents; i++) {
      b.add(doc(SCHEMA, i));
    }
    Path file = dir.resolve("base.mosaic");
    b.writeTo(file);
    return Database.open(file);
  }

  @Test
  void keepingAnIdOutsideTheBaseIsRefusedNamingTheRange() throws Exception {
    try (Database base = base(3)) {
      DatabaseUpdate up = DatabaseUpdate.on(base);
      assertThatThrownBy(() -> up.keep(3))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("keep(3): the base has documents 0..2 (3 documents)");
      assertThatThrownBy(() -> up.keep(-1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageStartingWith("keep(-1): the base has documents 0..2");
    }
  }

  @Test
  void keepingADocumentTwiceIsRefused() throws Exception {
    try (Database base = base(3)) {
      DatabaseUpdate up = DatabaseUpdate.on(base).keep(1);
      assertThatThrownBy(() -> up.keep(1))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("keep(1): base document 1 is already kept");
      // the refused call changed nothing
      Path out = dir.resolve("out.mosaic");
      assertThat(up.keep(0).writeTo(out).documents()).isEqualTo(2);
    }
  }

  /** Documents with compressible payloads of their own ({@code tag} varies the text). */
  private static List<Document> compressibleDocuments(Random random, int count, String tag) {
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      StringBuilder payload = new StringBuilder();
      while (payload.length() < 300 + random.nextInt(600)) {
        payload.append(tag).append(random.nextInt(50)).append(" price ").append(random.nextInt(9));
      }
      docs.add(
          Document.builder(SCHEMA)
              .add("name", tag + i)
              .add("n", i)
              .payload(payload.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8))
              .build());
    }
    return docs;
  }

  @Test
  void aFreshBuildWithADonorsDictionaryIsTheBuildersBytesWithThatDictionary() throws Exception {
    Random random = new Random(SEED);
    Path donorFile = written(SCHEMA, compressibleDocuments(random, 400, "sedan"), "donor.mosaic");
    List<Document> docs = compressibleDocuments(random, 300, "wagon");
    try (Database donor = Database.open(donorFile)) {
      DatabaseUpdate update = DatabaseUpdate.fresh(SCHEMA).payloadDictionaryOf(donor);
      docs.forEach(update::add);
      Path out = dir.resolve("borrowed.mosaic");
      update.writeTo(out);

      DatabaseBuilder expected = DatabaseBuilder.create(SCHEMA).payloadDictionaryOf(donor);
      docs.forEach(expected::add);
      assertThat(Files.readAllBytes(out))
          .as("byte for byte the builder's file with the donor's dictionary")
          .isEqualTo(expected.toByteArray());

      DatabaseBuilder trained = DatabaseBuilder.create(SCHEMA);
      docs.forEach(trained::add);
      assertThat(Files.readAllBytes(out))
          .as("not the file of a build that trains its own dictionary")
          .isNotEqualTo(trained.toByteArray());

      try (var written = dev.mosaic.format.impl.DatabaseReader.of(Database.open(out, true));
          var donorReader = dev.mosaic.format.impl.DatabaseReader.of(Database.open(donorFile))) {
        assertThat(written.payloadsCompressed()).isTrue();
        assertThat(written.layout().orElseThrow().payloadDictionaryBytes())
            .isEqualTo(donorReader.layout().orElseThrow().payloadDictionaryBytes())
            .isPositive();
        for (int d = 0; d < docs.size(); d++) {
          assertThat(written.payloadBytes(d)).isEqualTo(docs.get(d).payload());
        }
      }
    }
  }

  @Test
  void anUpdateOnABaseRefusesADonorsDictionary() throws Exception {
    Random random = new Random(SEED);
    Path file = written(SCHEMA, compressibleDocuments(random, 50, "coupe"), "base.mosaic");
    try (Database base = Database.open(file)) {
      assertThatThrownBy(() -> DatabaseUpdate.on(base).payloadDictionaryOf(base))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("keeps the base's payload dictionary");
    }
  }

  @Test
  void aFreshBuildHasNothingToKeep() {
    assertThatThrownBy(() -> DatabaseUpdate.fresh(SCHEMA).keep(0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("keep(0): a fresh build has no base");
  }

  @Test
  void aDocumentOrABuilderOfAnotherSchemaIsRefused() throws Exception {
    Schema other =
        Schema.builder()
            .field("name", FieldType.STRING, FieldRole.FULL)
            .field("n", FieldType.LONG, FieldRole.SORTABLE)
            .build();
    try (Database base = base(2)) {
      DatabaseUpdate update = DatabaseUpdate.on(base);
      assertThatThrownBy(() -> update.add(doc(other, 1)))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("document was built for another schema");
      Document.Builder builder = Document.builder(other).add("name", "x").add("n", 1L);
      assertThatThrownBy(() -> update.add(builder))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("builder was built for another schema");
    }
  }

  @Test
  void aBuilderMissingAValueItNeedsIsRefusedAndNothingIsAdded() throws Exception {
    try (Database base = base(3)) {
      DatabaseUpdate update = DatabaseUpdate.on(base).keep(0);
      Document.Builder builder = Document.builder(SCHEMA).add("name", "no n");
      assertThatThrownBy(() -> update.add(builder))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("field 'n' is SORTABLE and needs a value in every document");
      // the builder completed and reused: one document added, the refused one left no trace
      update.add(builder.add("n", 7)).keep(2);
      builder.clear().add("name", "v8").add("n", 8).payload(new byte[] {8});
      update.add(builder);
      Path out = dir.resolve("out.mosaic");
      DatabaseUpdate.Summary summary = update.writeTo(out);
      assertThat(summary.added()).isEqualTo(2);
      Document seven = Document.builder(SCHEMA).add("name", "no n").add("n", 7).build();
      assertIdentical(
          out, base, SCHEMA, List.of(doc(SCHEMA, 0), seven, doc(SCHEMA, 2), doc(SCHEMA, 8)));
    }
  }

  @Test
  void aClosedBaseIsRefusedAndNoFileIsLeft() throws Exception {
    Database base = base(3);
    DatabaseUpdate up = DatabaseUpdate.on(base).keep(0).add(doc(SCHEMA, 9));
    base.close();
    Path out = dir.resolve("out.mosaic");
    assertThatThrownBy(() -> up.writeTo(out))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is closed");
    assertThat(leftovers()).containsExactly("base.mosaic");
    assertThatThrownBy(() -> DatabaseUpdate.on(base))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("is closed");
  }

  @Test
  void aMissingOutputDirectoryFailsWithoutLeavingAFile() throws Exception {
    try (Database base = base(2)) {
      Path out = dir.resolve("missing").resolve("out.mosaic");
      assertThatThrownBy(() -> DatabaseUpdate.on(base).keep(1).writeTo(out))
          .isInstanceOf(NoSuchFileException.class);
    }
    assertThat(leftovers()).containsExactly("base.mosaic");
  }

  @Test
  void anExistingOutputIsReplacedAtomically() throws Exception {
    try (Database base = base(3)) {
      Path out = dir.resolve("out.mosaic");
      Files.writeString(out, "old version");
      DatabaseUpdate.on(base).keep(2).keep(0).writeTo(out);
      assertIdentical(out, base, SCHEMA, List.of(doc(SCHEMA, 2), doc(SCHEMA, 0)));
    }
    assertThat(leftovers()).containsExactlyInAnyOrder("base.mosaic", "out.mosaic");
  }

  private List<String> leftovers() throws Exception {
    try (var files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).toList();
    }
  }
}
