package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.impl.DatabaseReader;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Query;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** LZ4 payload blocks (format version 2): choice, random access, version 1 compatibility. */
class PayloadCompressionTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  static final Schema SCHEMA =
      Schema.builder()
          .version(3)
          .payloadType("test.Doc")
          .field("id", FieldType.LONG, FieldRole.FULL)
          .build();

  private static List<Document> documents(Random random, int n, boolean compressible) {
    List<Document> docs = new ArrayList<>();
    String[] words = {"red", "sedan", "diesel", "automatic", "berlin", "leather", "4x4"};
    for (int i = 0; i < n; i++) {
      Document.Builder d = Document.builder(SCHEMA).add("id", (long) i);
      int kind = random.nextInt(8);
      if (kind > 0) {
        byte[] payload;
        if (compressible) {
          StringBuilder text = new StringBuilder("{\"id\":" + i);
          for (int w = random.nextInt(60); w > 0; w--) {
            text.append(',').append(words[random.nextInt(words.length)]);
          }
          payload = text.append('}').toString().getBytes(StandardCharsets.UTF_8);
        } else {
          payload = new byte[random.nextInt(kind == 1 ? 5000 : 300)];
          random.nextBytes(payload);
        }
        d.payload(payload);
      }
      docs.add(d.build());
    }
    return docs;
  }

  private static DatabaseBuilder builder(List<Document> docs) {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA).autoBloomFilters(false);
    docs.forEach(b::add);
    return b;
  }

  @Test
  void compressedPayloadsReadBackEqualInRandomOrderWhateverTheBlockSize() throws Exception {
    Random random = new Random(SEED);
    for (int round = 0; round < 20; round++) {
      List<Document> docs = documents(random, random.nextInt(600), random.nextInt(4) > 0);
      int blockSize = 1 + random.nextInt(round % 2 == 0 ? 256 : 64 * 1024);
      byte[] bytes =
          builder(docs)
              .payloadCompression(PayloadCompression.LZ4)
              .payloadBlockSize(blockSize)
              .toByteArray();
      Database db = Database.fromBytes(bytes);
      assertThat(db.formatVersion()).as("seed %d", SEED).isEqualTo(docs.isEmpty() ? 1 : 2);
      for (int probe = 0; probe < 3 * docs.size(); probe++) {
        int d = random.nextInt(docs.size());
        byte[] expected = docs.get(d).payload();
        assertThat(db.payload(d).toArray(ValueLayout.JAVA_BYTE))
            .as("doc %d block size %d seed %d", d, blockSize, SEED)
            .isEqualTo(expected);
        assertThat(db.payloadBytes(d)).isEqualTo(expected);
      }
      assertThat(db.count(Query.where(Condition.gte("id", 0L)))).isEqualTo(docs.size());
    }
  }

  @Test
  void autoCompressesTextButKeepsRandomBytesRawAsVersion1() throws Exception {
    Random random = new Random(SEED);
    DatabaseReader text =
        DatabaseReader.of(Database.fromBytes(builder(documents(random, 500, true)).toByteArray()));
    assertThat(text.payloadsCompressed()).as("seed %d", SEED).isTrue();
    assertThat(text.formatVersion()).isEqualTo(3);
    assertThat(text.payloadBytesStored()).isLessThan(text.payloadBytesUncompressed() * 9 / 10);

    DatabaseReader noise =
        DatabaseReader.of(Database.fromBytes(builder(documents(random, 500, false)).toByteArray()));
    assertThat(noise.payloadsCompressed()).as("seed %d", SEED).isFalse();
    assertThat(noise.formatVersion()).isEqualTo(1);

    List<Document> docs = documents(random, 100, true);
    DatabaseReader never =
        DatabaseReader.of(
            Database.fromBytes(
                builder(docs).payloadCompression(PayloadCompression.NONE).toByteArray()));
    assertThat(never.payloadsCompressed()).isFalse();
    assertThat(never.formatVersion()).isEqualTo(1);
  }

  @Test
  void compressedFilesMapFromDiskAndPayloadCopiesOutliveClose(@TempDir Path dir) throws Exception {
    Random random = new Random(SEED);
    List<Document> docs = documents(random, 300, true);
    Path file = dir.resolve("p.mosaic");
    builder(docs).payloadBlockSize(1024).writeTo(file);
    Database db = Database.open(file, true);
    int d = 0;
    while (docs.get(d).payload().length == 0) {
      d++;
    }
    var copy = db.payload(d);
    db.close();
    assertThat(copy.toArray(ValueLayout.JAVA_BYTE)).isEqualTo(docs.get(d).payload());
    int last = d;
    assertThatThrownBy(() -> db.payload(last)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aCorruptBlockIsReportedByTheChecksumAndByTheDecompressor() throws Exception {
    // A fixed data set, not the run's seed: garbled bytes that fall inside a block's final run of
    // literals decompress to wrong bytes without an error (LZ4 has no checksum of its own; the
    // file's checksum is what always catches them), so whether the decompressor can notice
    // depends on the data. These documents put LZ4 sequence tokens in the garbled range.
    Random random = new Random(42);
    List<Document> docs = documents(random, 200, true);
    byte[] bytes =
        builder(docs)
            .payloadCompression(PayloadCompression.LZ4)
            .payloadBlockSize(512)
            .toByteArray();
    // The block data is last before the trailer: garble the final block's bytes.
    for (int i = bytes.length - 16 - 40; i < bytes.length - 16 - 8; i++) {
      bytes[i] = (byte) 0xFF;
    }
    assertThatThrownBy(() -> Database.fromBytes(bytes))
        .isInstanceOf(CorruptDatabaseException.class)
        .hasMessageContaining("checksum");
    Path file = Files.createTempFile("corrupt", ".mosaic");
    try {
      Files.write(file, bytes);
      try (Database db = Database.open(file, false)) {
        assertThatThrownBy(
                () -> {
                  for (int d = 0; d < docs.size(); d++) {
                    db.payload(d);
                  }
                })
            .isInstanceOf(UncheckedIOException.class)
            .hasCauseInstanceOf(CorruptDatabaseException.class)
            .hasMessageContaining("payload block");
      }
    } finally {
      Files.delete(file);
    }
  }

  static byte[] goldenV2() {
    DatabaseBuilder b =
        DatabaseBuilder.create(GoldenFileTest.SCHEMA)
            .payloadCompression(PayloadCompression.LZ4)
            .payloadBlockSize(12);
    for (Document d : GoldenFileTest.goldenDocuments()) {
      b.add(d);
    }
    return b.toByteArray();
  }

  @Test
  void version2BytesForAFixedInputNeverChangeSilently() throws Exception {
    byte[] actual = goldenV2();
    String target = System.getProperty("tests.writeGoldenV2");
    if (target != null) {
      Files.write(Path.of(target), actual);
    }
    byte[] expected;
    try (InputStream in = getClass().getResourceAsStream("/golden-v2.mosaic")) {
      assertThat(in).as("golden-v2.mosaic resource").isNotNull();
      expected = in.readAllBytes();
    }
    assertThat(HexFormat.of().formatHex(actual))
        .as("format version 2 changed: update FORMAT.md and regenerate golden-v2.mosaic")
        .isEqualTo(HexFormat.of().formatHex(expected));
    Database db = Database.fromBytes(expected);
    assertThat(db.formatVersion()).isEqualTo(2);
    assertThat(DatabaseReader.of(db).payloadBlockCount()).isGreaterThan(1);
    List<Document> docs = GoldenFileTest.goldenDocuments();
    for (int d = 0; d < docs.size(); d++) {
      assertThat(db.payloadBytes(d)).isEqualTo(docs.get(d).payload());
    }
    assertThat(db.count(Query.where(Condition.eq("tag", "t2")))).isEqualTo(2);
  }

  @Test
  void filesWithBlocksCutBySizeAloneStillRead() throws Exception {
    // written before blocks were cut by content (the block rule field is zero there)
    byte[] old;
    try (InputStream in = getClass().getResourceAsStream("/golden-v2-size-blocks.mosaic")) {
      assertThat(in).as("golden-v2-size-blocks.mosaic resource").isNotNull();
      old = in.readAllBytes();
    }
    Database db = Database.fromBytes(old);
    assertThat(DatabaseReader.of(db).payloadBlockCount()).isGreaterThan(1);
    List<Document> docs = GoldenFileTest.goldenDocuments();
    for (int d = 0; d < docs.size(); d++) {
      assertThat(db.payloadBytes(d)).isEqualTo(docs.get(d).payload());
    }
  }
}
