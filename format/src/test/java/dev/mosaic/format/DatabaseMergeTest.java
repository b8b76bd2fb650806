package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.ReferenceDatabase.Hit;
import dev.mosaic.format.impl.DatabaseReader;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Merges random partitions (random schemas with every type and role, multi-valued fields, empty
 * partitions, one or many inputs, format version 1 and 2 inputs, raw and LZ4 payloads, Bloom
 * filters) and checks the merged file against a rebuild from the same documents and against {@link
 * ReferenceDatabase}. Reproduce a failure with {@code -Dtests.seed=<seed>}.
 */
class DatabaseMergeTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());
  private static final int ROUNDS = Integer.getInteger("tests.rounds", 30);

  @TempDir Path dir;

  @Test
  void mergedDatabasesAnswerLikeARebuildAndTheReference() throws Exception {
    System.out.println("DatabaseMergeTest seed " + SEED);
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

  private void runRound(int round, long seed) throws Exception {
    Random random = new Random(seed);
    RandomizedDatabaseTest.Values values = new RandomizedDatabaseTest.Values(random);
    Schema schema = RandomizedDatabaseTest.randomSchema(random);
    int inputCount = random.nextInt(4) == 0 ? 1 : 2 + random.nextInt(random.nextBoolean() ? 4 : 12);
    List<Document> all = new ArrayList<>();
    List<Database> toClose = new ArrayList<>();
    DatabaseMerger.Builder merger = DatabaseMerger.builder();
    boolean anyCompressed = false;
    for (int p = 0; p < inputCount; p++) {
      int n = random.nextInt(5) == 0 ? 0 : random.nextInt(random.nextBoolean() ? 40 : 400);
      DatabaseBuilder builder =
          DatabaseBuilder.create(schema)
              .payloadCompression(
                  PayloadCompression.values()[random.nextInt(PayloadCompression.values().length)])
              .payloadBlockSize(1 + random.nextInt(2048))
              .autoBloomFilters(random.nextBoolean());
      for (Field f : schema.fields()) {
        if (f.role().isFilterable() && random.nextInt(4) == 0) {
          builder.bloomFilter(f.name());
        }
      }
      for (int i = 0; i < n; i++) {
        Document d = RandomizedDatabaseTest.randomDocument(schema, values, random);
        all.add(d);
        builder.add(d);
      }
      byte[] bytes = builder.toByteArray();
      Database db = Database.fromBytes(bytes);
      anyCompressed |= DatabaseReader.of(db).payloadsCompressed();
      if (random.nextBoolean()) {
        Path file = dir.resolve("r" + round + "-in" + p + ".mosaic");
        Files.write(file, bytes);
        merger.add(file);
        db.close();
      } else {
        merger.add(db);
        toClose.add(db);
      }
    }
    PayloadCompression compression =
        PayloadCompression.values()[random.nextInt(PayloadCompression.values().length)];
    int blockSize = 1 + random.nextInt(4096);
    boolean copy = random.nextBoolean();
    boolean autoBloom = random.nextBoolean();
    merger
        .payloadCompression(compression)
        .payloadBlockSize(blockSize)
        .copyCompressedBlocks(copy)
        .autoBloomFilters(autoBloom);
    List<Field> filterable = schema.fields().stream().filter(f -> f.role().isFilterable()).toList();
    if (!filterable.isEmpty() && random.nextInt(3) == 0) {
      merger.bloomFilter(filterable.get(random.nextInt(filterable.size())).name());
    }
    Path out = dir.resolve("r" + round + "-merged.mosaic");
    DatabaseMerger.Summary summary = merger.output(out).build().merge();
    assertThat(Database.verify(out)).isEqualTo(schema);
    assertThat(summary.documents()).isEqualTo(all.size());
    assertThat(summary.sizeInBytes()).isEqualTo(Files.size(out));

    // the same merge again gives the same bytes
    Path again = dir.resolve("r" + round + "-again.mosaic");
    merger.output(again).build().merge();
    assertThat(Files.readAllBytes(again)).isEqualTo(Files.readAllBytes(out));
    for (Database db : toClose) {
      db.close();
    }

    DatabaseBuilder rebuild =
        DatabaseBuilder.create(schema)
            .payloadCompression(compression)
            .payloadBlockSize(blockSize)
            .autoBloomFilters(autoBloom);
    summary.bloomFilters().forEach(rebuild::bloomFilter);
    all.forEach(rebuild::add);
    byte[] rebuilt = rebuild.toByteArray();
    if (!copy || !anyCompressed) {
      assertThat(Files.readAllBytes(out)).as("byte-identical to a rebuild").isEqualTo(rebuilt);
    }

    try (Database merged = Database.open(out, true);
        Database expected = Database.fromBytes(rebuilt)) {
      int version =
          summary.payloadsCompressed()
              ? (compression == PayloadCompression.LZ4 ? 2 : 3)
              : (summary.bloomFilters().isEmpty() ? 1 : 2);
      assertThat(merged.formatVersion()).isEqualTo(version);
      for (String f : summary.bloomFilters()) {
        assertThat(DatabaseReader.of(merged).hasBloomFilter(f)).isTrue();
      }
      compare(
          schema, merged, expected, new ReferenceDatabase(schema, List.of(all)), values, random);
    }
  }

  /** Compares a written database with a rebuild and with the reference on random queries. */
  static void compare(
      Schema schema,
      Database merged,
      Database rebuilt,
      ReferenceDatabase reference,
      RandomizedDatabaseTest.Values values,
      Random random) {
    assertThat(merged.documentCount()).isEqualTo(rebuilt.documentCount());
    int n = (int) merged.documentCount();
    for (int d = 0; d < n; d++) {
      assertThat(merged.payloadBytes(d)).isEqualTo(rebuilt.payloadBytes(d));
      for (Field f : schema.fields()) {
        if (f.role().isSortable()) {
          assertThat(merged.sortableBytes(d, f.name()))
              .isEqualTo(rebuilt.sortableBytes(d, f.name()));
        }
      }
    }
    Map<Database, Integer> one = Map.of(merged, 0);
    Map<Database, Integer> other = Map.of(rebuilt, 0);
    for (int q = 0; q < 30; q++) {
      Query query = RandomizedDatabaseTest.randomQuery(schema, values, random);
      String what = "query " + query;
      assertThat(merged.count(query)).as(what).isEqualTo(reference.count(query));
      List<Hit> expected = reference.execute(query);
      assertThat(RandomizedDatabaseTest.run(merged, query, one, Integer.MAX_VALUE))
          .as(what)
          .isEqualTo(expected)
          .isEqualTo(RandomizedDatabaseTest.run(rebuilt, query, other, Integer.MAX_VALUE));
    }
    for (int q = 0; q < 6; q++) {
      Condition condition = RandomizedDatabaseTest.randomCondition(schema, values, random, 0);
      List<Facet> facets = new ArrayList<>();
      List<Stats> stats = new ArrayList<>();
      for (Field f : schema.fields()) {
        if (f.role().isFilterable() && random.nextBoolean()) {
          facets.add(random.nextBoolean() ? Facet.all(f.name()) : Facet.top(f.name(), 3));
        }
        if (f.role().isSortable() && random.nextBoolean()) {
          stats.add(Stats.of(f.name()));
        }
      }
      RandomizedDatabaseTest.checkAggregation(merged, reference, schema, condition, facets, stats);
    }
  }

  @Test
  void mergingPastTheTwoByteIdLimitKeepsListsAndBitSetsRight() throws Exception {
    Random random = new Random(SEED);
    Schema schema =
        Schema.builder()
            .field("id", FieldType.LONG, FieldRole.FULL)
            .field("color", FieldType.STRING, FieldRole.FILTERABLE)
            .field("price", FieldType.INT, FieldRole.SORTABLE)
            .build();
    List<Document> all = new ArrayList<>();
    DatabaseMerger.Builder merger = DatabaseMerger.builder();
    for (int p = 0; p < 3; p++) {
      DatabaseBuilder b = DatabaseBuilder.create(schema);
      for (int i = 0; i < 30_000; i++) {
        Document d =
            Document.builder(schema)
                .add("id", (long) all.size())
                .add("color", "c" + random.nextInt(p == 1 ? 3 : 2000))
                .add("price", random.nextInt(100_000))
                .payload(("offer " + all.size()).getBytes())
                .build();
        all.add(d);
        b.add(d);
      }
      Path file = dir.resolve("big" + p + ".mosaic");
      b.writeTo(file);
      merger.add(file);
    }
    Path out = dir.resolve("big.mosaic");
    merger.output(out).copyCompressedBlocks(false).build().merge();
    DatabaseBuilder rebuild = DatabaseBuilder.create(schema);
    all.forEach(rebuild::add);
    assertThat(Files.readAllBytes(out)).isEqualTo(rebuild.toByteArray());
    ReferenceDatabase reference = new ReferenceDatabase(schema, List.of(all));
    try (Database merged = Database.open(out, true)) {
      for (Query q :
          List.of(
              Query.where(Condition.eq("color", "c1")),
              Query.where(Condition.eq("color", "c1700")).orderBy(Order.desc("price")).limit(20),
              Query.where(Condition.eq("id", 65_600L)),
              Query.where(Condition.gte("id", 65_530L)).orderBy(Order.asc("price")).limit(50))) {
        assertThat(merged.count(q)).as("%s", q).isEqualTo(reference.count(q));
        assertThat(RandomizedDatabaseTest.run(merged, q, Map.of(merged, 0), Integer.MAX_VALUE))
            .as("%s", q)
            .isEqualTo(reference.execute(q));
      }
      assertThat(new String(merged.payloadBytes(70_000))).isEqualTo("offer 70000");
    }
  }

  @Test
  void lz4BlocksOfCompressedInputsAreCopiedAndRawInputsCompressedNextToThem() throws Exception {
    Random random = new Random(SEED);
    RandomizedDatabaseTest.Values values = new RandomizedDatabaseTest.Values(random);
    Schema schema =
        Schema.builder()
            .field("tag", FieldType.STRING, FieldRole.FILTERABLE)
            .field("rank", FieldType.LONG, FieldRole.FULL)
            .field("at", FieldType.TIMESTAMP, FieldRole.SORTABLE)
            .build();
    List<Document> all = new ArrayList<>();
    DatabaseMerger.Builder merger = DatabaseMerger.builder();
    // a format version 1 input (raw payloads, no Bloom filter), two LZ4 inputs, an empty one
    PayloadCompression[] kinds = {
      PayloadCompression.NONE,
      PayloadCompression.LZ4,
      PayloadCompression.LZ4,
      PayloadCompression.LZ4
    };
    int[] sizes = {300, 200, 250, 0};
    int[] versions = new int[kinds.length];
    int inputBlocks = 0;
    for (int p = 0; p < kinds.length; p++) {
      DatabaseBuilder b =
          DatabaseBuilder.create(schema)
              .payloadCompression(kinds[p])
              .payloadBlockSize(256)
              .autoBloomFilters(false);
      for (int i = 0; i < sizes[p]; i++) {
        Document d = RandomizedDatabaseTest.randomDocument(schema, values, random);
        all.add(d);
        b.add(d);
      }
      Path file = dir.resolve("in" + p + ".mosaic");
      b.writeTo(file);
      try (DatabaseReader db = DatabaseReader.of(Database.open(file))) {
        versions[p] = db.formatVersion();
        inputBlocks += db.payloadBlockCount();
      }
      merger.add(file);
    }
    assertThat(versions).containsExactly(1, 2, 2, 1);
    Path out = dir.resolve("out.mosaic");
    DatabaseMerger.Summary s =
        merger
            .output(out)
            .payloadCompression(PayloadCompression.LZ4)
            .payloadBlockSize(512)
            .build()
            .merge();
    assertThat(s.payloadsCompressed()).isTrue();
    assertThat(s.copiedBlocks()).isEqualTo(inputBlocks);
    assertThat(s.compressedBlocks()).isPositive();
    assertThat(s.formatVersion()).isEqualTo(2);
    try (Database merged = Database.open(out, true)) {
      assertThat(DatabaseReader.of(merged).payloadBlockCount())
          .isEqualTo(s.copiedBlocks() + s.compressedBlocks());
      DatabaseBuilder rebuild = DatabaseBuilder.create(schema);
      all.forEach(rebuild::add);
      try (Database rebuilt = Database.fromBytes(rebuild.toByteArray())) {
        compare(
            schema, merged, rebuilt, new ReferenceDatabase(schema, List.of(all)), values, random);
      }
    }
  }

  // ----- errors --------------------------------------------------------------------------------

  private static final Schema SCHEMA =
      Schema.builder()
          .field("name", FieldType.STRING, FieldRole.FULL)
          .field("n", FieldType.INT, FieldRole.SORTABLE)
          .build();

  private Path partition(String name, Schema schema, int documents) throws Exception {
    DatabaseBuilder b = DatabaseBuilder.create(schema);
    for (int i = 0; i < documents; i++) {
      Document.Builder d = Document.builder(schema);
      for (Field f : schema.fields()) {
        d.add(f.name(), f.type() == FieldType.STRING ? "v" + i : (Object) i);
      }
      b.add(d.payload(new byte[] {(byte) i}).build());
    }
    Path file = dir.resolve(name);
    b.writeTo(file);
    return file;
  }

  @Test
  void anEmptyInputListIsRefused() {
    assertThatThrownBy(() -> DatabaseMerger.builder().output(dir.resolve("o.mosaic")).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("no input partition");
  }

  @Test
  void inputsOfDifferentSchemasAreRefusedNamingTheInputAndNothingIsWritten() throws Exception {
    Path a = partition("a.mosaic", SCHEMA, 3);
    Schema other =
        Schema.builder()
            .field("name", FieldType.STRING, FieldRole.FULL)
            .field("n", FieldType.LONG, FieldRole.SORTABLE)
            .build();
    Path b = partition("b.mosaic", other, 3);
    Path out = dir.resolve("out.mosaic");
    assertThatThrownBy(() -> DatabaseMerger.builder().add(a).add(b).output(out).build().merge())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("input 1 (" + b + ") has schema")
        .hasMessageContaining("same schema");
    assertThat(leftovers()).containsExactlyInAnyOrder("a.mosaic", "b.mosaic");
  }

  @Test
  void aCorruptInputIsRefusedNamingItAndNothingIsWritten() throws Exception {
    Path a = partition("a.mosaic", SCHEMA, 50);
    Path b = partition("b.mosaic", SCHEMA, 50);
    byte[] bytes = Files.readAllBytes(b);
    bytes[bytes.length / 2] ^= 0x10;
    Files.write(b, bytes);
    Path out = dir.resolve("out.mosaic");
    assertThatThrownBy(() -> DatabaseMerger.builder().add(a).add(b).output(out).build().merge())
        .isInstanceOf(CorruptDatabaseException.class)
        .hasMessageContaining(b.toString())
        .hasMessageContaining("checksum mismatch");
    assertThat(leftovers()).containsExactlyInAnyOrder("a.mosaic", "b.mosaic");
  }

  @Test
  void aCorruptCompressedBlockFoundWhileReblockingDeletesTheTemporaryFile() throws Exception {
    DatabaseBuilder builder =
        DatabaseBuilder.create(SCHEMA).payloadCompression(PayloadCompression.LZ4);
    for (int i = 0; i < 200; i++) {
      builder.add(
          Document.builder(SCHEMA)
              .add("name", "v" + i)
              .add("n", i)
              .payload(("payload payload payload " + i).getBytes())
              .build());
    }
    Path b = dir.resolve("b.mosaic");
    builder.writeTo(b);
    byte[] bytes = Files.readAllBytes(b);
    long blockData;
    try (DatabaseReader db = DatabaseReader.of(Database.open(b))) {
      var payload =
          db.segments().stream().filter(s -> s.kind().equals("payload")).findFirst().orElseThrow();
      // the first block's token: its literal length no longer matches the block
      blockData = payload.offset() + 16 + 201 * 4 + (db.payloadBlockCount() + 1) * 12L;
    }
    bytes[(int) blockData] = (byte) 0xF0;
    Files.write(b, bytes);
    Path out = dir.resolve("out.mosaic");
    assertThatThrownBy(
            () ->
                DatabaseMerger.builder()
                    .add(b)
                    .verifyChecksums(false)
                    .copyCompressedBlocks(false)
                    .payloadCompression(PayloadCompression.NONE)
                    .output(out)
                    .build()
                    .merge())
        .isInstanceOf(CorruptDatabaseException.class)
        .hasMessageContaining(b.toString())
        .hasMessageContaining("payload block");
    assertThat(leftovers()).containsExactly("b.mosaic");
  }

  @Test
  void anExistingOutputIsNeverOverwritten() throws Exception {
    Path a = partition("a.mosaic", SCHEMA, 3);
    Path out = dir.resolve("out.mosaic");
    Files.writeString(out, "keep me");
    assertThatThrownBy(() -> DatabaseMerger.builder().add(a).output(out).build().merge())
        .isInstanceOf(FileAlreadyExistsException.class)
        .hasMessageContaining(out.toString());
    assertThat(Files.readString(out)).isEqualTo("keep me");
  }

  @Test
  void unknownBloomFieldsAreRefused() throws Exception {
    Path a = partition("a.mosaic", SCHEMA, 3);
    try (Database db = Database.open(a)) {
      assertThatThrownBy(
              () ->
                  DatabaseMerger.builder()
                      .add(db)
                      .bloomFilter("n")
                      .output(dir.resolve("o.mosaic"))
                      .build()
                      .merge())
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("bloom filter on 'n'");
    }
    assertThat(leftovers()).containsExactly("a.mosaic");
  }

  @Test
  void documentsKeepTheInputOrder() throws Exception {
    Path a = partition("a.mosaic", SCHEMA, 2);
    Path b = partition("b.mosaic", SCHEMA, 3);
    Path out = dir.resolve("out.mosaic");
    DatabaseMerger.Summary s = DatabaseMerger.builder().add(b).add(a).output(out).build().merge();
    assertThat(s.documents()).isEqualTo(5);
    assertThat(s.inputs()).isEqualTo(2);
    try (Database db = Database.open(out, true)) {
      List<Object> names = new ArrayList<>();
      for (int d = 0; d < 5; d++) {
        names.add(db.sortableValue(d, "name"));
      }
      assertThat(names).containsExactly("v0", "v1", "v2", "v0", "v1");
      assertThat(Arrays.asList(db.payloadBytes(3)[0], db.payloadBytes(4)[0]))
          .containsExactly((byte) 0, (byte) 1);
    }
  }

  private List<String> leftovers() throws Exception {
    try (var files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).toList();
    }
  }
}
