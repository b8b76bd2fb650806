package dev.mosaic.format;

import static dev.mosaic.format.query.Condition.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Guards the file format: the bytes written for a fixed input must equal {@code golden-v1.mosaic},
 * and that file must read back with the expected answers. If this fails after an intended format
 * change, bump the format version, document it in FORMAT.md and regenerate the file with {@code
 * -Dtests.writeGolden=<path to src/test/resources/golden-v1.mosaic>}.
 */
class GoldenFileTest {
  static final Schema SCHEMA =
      Schema.builder()
          .version(7)
          .payloadType("golden.Doc")
          .field("tag", FieldType.STRING, FieldRole.FILTERABLE)
          .field("n", FieldType.INT, FieldRole.FULL)
          .field("big", FieldType.LONG, FieldRole.SORTABLE)
          .field("x", FieldType.DOUBLE, FieldRole.FULL)
          .field("ok", FieldType.BOOLEAN, FieldRole.FILTERABLE)
          .field("at", FieldType.TIMESTAMP, FieldRole.FULL)
          .field("raw", FieldType.BYTES, FieldRole.FULL)
          .build();

  static byte[] golden() {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    goldenDocuments().forEach(b::add);
    return b.toByteArray();
  }

  static List<Document> goldenDocuments() {
    List<Document> docs = new ArrayList<>();
    double[] xs = {1.5, -0.0, 0.0, Double.NaN, -2.25, Double.NEGATIVE_INFINITY, 3, 1.5};
    for (int i = 0; i < 8; i++) {
      Document.Builder d =
          Document.builder(SCHEMA)
              .add("n", i % 3 - 1)
              .add("big", i % 2 == 0 ? Long.MIN_VALUE + i : Long.MAX_VALUE - i)
              .add("x", xs[i])
              .add("at", Instant.ofEpochMilli(1_700_000_000_000L + 1000L * (i % 4)))
              .add("raw", new byte[] {(byte) (i * 37), (byte) i});
      for (int t = 0; t < i % 3; t++) {
        d.add("tag", "t" + (i + t) % 4);
      }
      if (i % 4 != 3) {
        d.add("ok", i % 2 == 0);
      }
      if (i != 5) {
        d.payload(("doc " + i).getBytes(StandardCharsets.UTF_8));
      }
      docs.add(d.build());
    }
    return docs;
  }

  @Test
  void bytesWrittenForAFixedInputNeverChangeSilently() throws Exception {
    byte[] actual = golden();
    String target = System.getProperty("tests.writeGolden");
    if (target != null) {
      Files.write(Path.of(target), actual);
    }
    byte[] expected;
    try (InputStream in = GoldenFileTest.class.getResourceAsStream("/golden-v1.mosaic")) {
      assertThat(in).as("golden-v1.mosaic resource").isNotNull();
      expected = in.readAllBytes();
    }
    assertThat(HexFormat.of().formatHex(actual))
        .as(
            "format version 1 changed: bump the format version, update FORMAT.md and"
                + " regenerate golden-v1.mosaic")
        .isEqualTo(HexFormat.of().formatHex(expected));
  }

  @Test
  void goldenFileReadsBackWithTheExpectedAnswers() throws Exception {
    byte[] bytes;
    try (InputStream in = GoldenFileTest.class.getResourceAsStream("/golden-v1.mosaic")) {
      bytes = in.readAllBytes();
    }
    Database db = Database.fromBytes(bytes);
    assertThat(db.schema()).isEqualTo(SCHEMA);
    assertThat(db.formatVersion()).isEqualTo(1);
    assertThat(db.documentCount()).isEqualTo(8);
    assertThat(db.count(Query.where(eq("n", 0)))).isEqualTo(3);
    assertThat(db.count(Query.where(eq("tag", "t2")))).isEqualTo(2);
    assertThat(db.count(Query.where(eq("ok", true)))).isEqualTo(4);
    assertThat(db.count(Query.where(gt("x", 0.0)))).isEqualTo(4);
    assertThat(db.sortableValue(3, "x")).isEqualTo(Double.NaN);
    assertThat(db.sortableValue(1, "big")).isEqualTo(Long.MAX_VALUE - 1);
    assertThat(db.payload(5).byteSize()).isZero();
    List<Integer> order = new ArrayList<>();
    db.execute(
        Query.all().orderBy(Order.asc("x"), Order.desc("big")),
        (doc, d) -> {
          order.add(doc);
          return true;
        });
    // -inf, -2.25, -0.0, 0.0, 1.5 (docs 0 and 7: big desc puts 7 first), 3, NaN
    assertThat(order).containsExactly(5, 4, 1, 2, 7, 0, 6, 3);
  }
}
