package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Zstd payload blocks with dictionaries (format version 3): smaller than LZ4, random reads, merges
 * that copy blocks of inputs with different dictionaries, and precise errors on damaged tables.
 */
class ZstdPayloadBlocksTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  private static final Schema SCHEMA =
      Schema.builder()
          .version(1)
          .payloadType("test.Offer")
          .field("id", FieldType.LONG, FieldRole.FULL)
          .build();

  @TempDir Path dir;

  /** Offer-like payloads: shared vocabulary and structure, a few distinct numbers each. */
  private static List<Document> offers(Random random, int n, int firstId) {
    String[] marks = {"toyota", "bmw", "lada", "kia", "honda", "audi", "skoda"};
    String[] words = {"garage kept", "one owner", "winter tyres", "leather", "navigation", "4x4"};
    List<Document> docs = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      StringBuilder s = new StringBuilder("{\"mark\":\"" + marks[random.nextInt(marks.length)]);
      s.append("\",\"price\":").append(random.nextInt(5_000_000)).append(",\"text\":\"");
      for (int w = 5 + random.nextInt(30); w > 0; w--) {
        s.append(words[random.nextInt(words.length)]).append(' ');
      }
      s.append("\",\"photos\":[");
      for (int p = random.nextInt(10); p > 0; p--) {
        s.append("\"https://img.example/cars/").append(random.nextInt(1000)).append('/');
        s.append(p).append(".jpg\",");
      }
      byte[] payload = s.append("]}").toString().getBytes(StandardCharsets.UTF_8);
      docs.add(Document.builder(SCHEMA).add("id", (long) firstId + i).payload(payload).build());
    }
    return docs;
  }

  private static byte[] build(List<Document> docs, PayloadCompression compression) {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA).payloadCompression(compression);
    docs.forEach(b::add);
    return b.toByteArray();
  }

  @Test
  void theDefaultIsZstdWithOneDictionarySmallerThanLz4AndReadsBackInRandomOrder() throws Exception {
    Random random = new Random(SEED);
    List<Document> docs = offers(random, 1500, 0);
    byte[] zstd = build(docs, PayloadCompression.AUTO);
    byte[] lz4 = build(docs, PayloadCompression.LZ4);
    try (Database db = Database.fromBytes(zstd)) {
      FileLayout layout = db.layout().orElseThrow();
      assertThat(db.formatVersion()).isEqualTo(3);
      assertThat(layout.payloadCodec()).isEqualTo("zstd");
      assertThat(layout.payloadDictionaryBytes()).isPositive();
      assertThat(zstd.length).as("seed %d", SEED).isLessThan(lz4.length * 3 / 4);
      for (int probe = 0; probe < 3000; probe++) {
        int d = random.nextInt(docs.size());
        assertThat(db.payloadBytes(d))
            .as("doc %d seed %d", d, SEED)
            .isEqualTo(docs.get(d).payload());
      }
    }
    try (Database db = Database.fromBytes(lz4)) {
      assertThat(db.formatVersion()).isEqualTo(2);
      assertThat(db.layout().orElseThrow().payloadCodec()).isEqualTo("lz4");
    }
    assertThat(build(docs, PayloadCompression.AUTO)).as("deterministic").isEqualTo(zstd);
  }

  @Test
  void aMergeCopiesBlocksOfInputsWithTheirOwnDictionariesAndSharesEqualOnes() throws Exception {
    Random random = new Random(SEED);
    List<Document> first = offers(random, 700, 0);
    List<Document> second = offers(random, 600, 700);
    Path a = dir.resolve("a.mosaic");
    Path b = dir.resolve("b.mosaic");
    Files.write(a, build(first, PayloadCompression.AUTO));
    Files.write(b, build(second, PayloadCompression.AUTO));
    Path merged = dir.resolve("merged.mosaic");
    DatabaseMerger.Summary summary =
        DatabaseMerger.builder().addAll(List.of(a, b, a)).output(merged).build().merge();
    assertThat(summary.compressedBlocks()).isZero();
    assertThat(summary.copiedBlocks()).isPositive();
    List<Document> all = new ArrayList<>(first);
    all.addAll(second);
    all.addAll(first);
    try (Database db = Database.open(merged, true);
        Database da = Database.open(a);
        Database dbb = Database.open(b)) {
      FileLayout layout = db.layout().orElseThrow();
      assertThat(layout.payloadDictionaryBytes())
          .as("a's dictionary once, b's once")
          .isEqualTo(
              da.layout().orElseThrow().payloadDictionaryBytes()
                  + dbb.layout().orElseThrow().payloadDictionaryBytes());
      for (int probe = 0; probe < 2000; probe++) {
        int d = random.nextInt(all.size());
        assertThat(db.payloadBytes(d))
            .as("doc %d seed %d", d, SEED)
            .isEqualTo(all.get(d).payload());
      }
    }
  }

  @Test
  void aBlockNamingAMissingDictionaryIsRefusedWithItsNumber() throws Exception {
    byte[] bytes = build(offers(new Random(SEED), 400, 0), PayloadCompression.ZSTD);
    long blockDictionaries;
    int blocks;
    try (Database db = Database.fromBytes(bytes)) {
      FileLayout layout = db.layout().orElseThrow();
      FileLayout.Segment payload =
          layout.segments().stream().filter(s -> s.kind().equals("payload")).findFirst().get();
      blocks = layout.payloadBlockCount();
      blockDictionaries = payload.offset() + 16 + 401 * 4 + (blocks + 1) * 12L + 8;
    }
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt((int) blockDictionaries + 4, 7);
    resign(bytes);
    assertThatThrownBy(() -> Database.fromBytes(bytes))
        .isInstanceOf(CorruptDatabaseException.class)
        .hasMessageContaining("payload block 1 names dictionary 7 of 1");
  }

  @Test
  void aVersion2FileWithZstdPayloadFlagsIsRefused() throws Exception {
    byte[] bytes = build(offers(new Random(SEED), 100, 0), PayloadCompression.ZSTD);
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(8, 2);
    resign(bytes);
    assertThatThrownBy(() -> Database.fromBytes(bytes))
        .isInstanceOf(CorruptDatabaseException.class)
        .hasMessageContaining("unknown payload flags 2 for format version 2");
    ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN).putInt(8, 4);
    resign(bytes);
    assertThatThrownBy(() -> Database.fromBytes(bytes))
        .isInstanceOf(CorruptDatabaseException.class)
        .hasMessageContaining("unsupported format version 4 (this reader reads 1 to 3)");
  }

  /** Recomputes the trailer checksum after an edit (the damage under test is structural). */
  private static void resign(byte[] bytes) {
    CRC32C crc = new CRC32C();
    crc.update(bytes, 0, bytes.length - 8);
    ByteBuffer.wrap(bytes)
        .order(ByteOrder.LITTLE_ENDIAN)
        .putInt(bytes.length - 8, (int) crc.getValue());
  }
}
