package dev.mosaic.inspect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class InspectMainTest {
  static final Schema SCHEMA =
      Schema.builder()
          .version(4)
          .payloadType("test.Car")
          .field("id", FieldType.STRING, FieldRole.FILTERABLE)
          .field("mark", FieldType.STRING, FieldRole.FULL)
          .field("price", FieldType.LONG, FieldRole.FULL)
          .build();

  @TempDir Path dir;
  Path file;
  String out;
  String err;

  @BeforeEach
  void build() throws Exception {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    String[] marks = {"bmw", "audi", "bmw", "lada"};
    for (int i = 0; i < 400; i++) {
      b.add(
          Document.builder(SCHEMA)
              .add("id", "car-" + i)
              .add("mark", marks[i % 4])
              .add("price", 1000L * i)
              .payload(
                  ("{\"car\":" + i + ",\"text\":\"a fine car, a fine car\"}")
                      .getBytes(StandardCharsets.UTF_8))
              .build());
    }
    file = dir.resolve("cars.mosaic");
    b.writeTo(file);
  }

  private int run(String... args) {
    StringWriter o = new StringWriter();
    StringWriter e = new StringWriter();
    int code = InspectMain.run(new PrintWriter(o), new PrintWriter(e), args);
    out = o.toString();
    err = e.toString();
    return code;
  }

  @Test
  void infoPrintsHeaderSchemaAndSegments() {
    assertThat(run("info", file.toString())).isZero();
    assertThat(out)
        .contains("format version: 3")
        .contains("documents: 400")
        .contains("payload type: test.Car")
        .contains("price LONG FULL")
        .contains("payloads: zstd blocks")
        .containsPattern("bloom +id +offset")
        .containsPattern("payload +- +offset");
  }

  @Test
  void fieldsPrintsValueCountsAndTopValues() {
    assertThat(run("fields", "--top", "2", file.toString())).isZero();
    assertThat(out)
        .contains("mark: 3 distinct values, 400 (document, value) pairs")
        .contains("  bmw: 200")
        .contains("id: 400 distinct values, 400 (document, value) pairs, bloom filter");
  }

  @Test
  void verifyReportsOkAndCorruption() throws Exception {
    assertThat(run("verify", file.toString())).isZero();
    assertThat(out).contains("OK " + file);
    byte[] bytes = Files.readAllBytes(file);
    bytes[bytes.length / 2] ^= 1;
    Path bad = dir.resolve("bad.mosaic");
    Files.write(bad, bytes);
    assertThat(run("verify", file.toString(), bad.toString())).isEqualTo(1);
    assertThat(out).contains("CORRUPT " + bad).contains("checksum");
  }

  @Test
  void dumpPrintsDocumentsAsJsonLines() throws Exception {
    assertThat(run("dump", "--from", "5", "--limit", "2", file.toString())).isZero();
    String[] lines = out.strip().split("\n");
    assertThat(lines).hasSize(2);
    var node = InspectMain.JSON.readTree(lines[0]);
    assertThat(node.get("id").asInt()).isEqualTo(5);
    assertThat(node.get("mark").asText()).isEqualTo("audi");
    assertThat(node.get("price").asLong()).isEqualTo(5000);
    assertThat(new String(node.get("payload").binaryValue(), StandardCharsets.UTF_8))
        .startsWith("{\"car\":5,");
  }

  @Test
  void queryRunsJsonWithExplain() {
    String q =
        "{\"filter\":{\"and\":[{\"eq\":{\"mark\":\"bmw\"}},{\"lt\":{\"price\":10000}}]},"
            + "\"orderBy\":[{\"field\":\"price\",\"order\":\"desc\"}],\"limit\":2}";
    assertThat(run("query", "--explain", "-q", q, file.toString())).isZero();
    assertThat(out)
        .contains("count: 5")
        .contains("\"price\":8000")
        .contains("\"price\":6000")
        .contains("explain:")
        .contains("eq(mark = \"bmw\")  matches=200")
        .contains("range(price in (-inf, 10000))  matches=10");
    assertThat(
            run(
                "query",
                "-q",
                "{\"filter\":{\"eq\":{\"id\":\"nope\"}}}",
                "--explain",
                file.toString()))
        .isZero();
    assertThat(out).contains("count: 0").contains("bloom filter rejects");
  }

  @Test
  void queryComputesFacetsOverEveryMatch() {
    assertThat(
            run(
                "query",
                "-q",
                "{\"filter\":{\"lt\":{\"price\":10000}},\"facets\":[\"mark\"]," + "\"limit\":0}",
                file.toString()))
        .isZero();
    assertThat(out)
        .contains("count: 10")
        .contains("aggregation: ")
        .contains("{\"value\":\"bmw\",\"count\":5}");
  }

  @Test
  void aQueryOverSeveralFilesNamesTheFileOfEachHit() throws Exception {
    Path second = dir.resolve("volvo.mosaic");
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    for (int i = 0; i < 3; i++) {
      b.add(
          Document.builder(SCHEMA)
              .add("id", "v" + i)
              .add("mark", "volvo")
              .add("price", -1L)
              .build());
    }
    b.writeTo(second);
    assertThat(
            run(
                "query",
                "-q",
                "{\"filter\":{\"in\":{\"mark\":[\"volvo\",\"bmw\"]}},\"orderBy\":[\"price\"],"
                    + "\"limit\":4,\"payload\":false,\"fields\":[\"mark\"]}",
                file.toString(),
                second.toString()))
        .isZero();
    String[] lines = out.strip().split("\n");
    assertThat(lines[0]).isEqualTo("count: 203");
    for (int i = 1; i <= 3; i++) {
      assertThat(lines[i])
          .contains("\"partition\":\"" + second + "\"")
          .doesNotContain("payload")
          .doesNotContain("price");
    }
    assertThat(lines[4]).contains("\"partition\":\"" + file + "\"").contains("\"mark\":\"bmw\"");
  }

  @Test
  void aBadQueryIsReportedPrecisely() {
    assertThat(run("query", "-q", "{\"filter\":{\"eq\":{\"price\":\"cheap\"}}}", file.toString()))
        .isEqualTo(2);
    assertThat(err)
        .contains(
            "filter.eq.price: field 'price' is LONG and needs a 64-bit integer, got the string"
                + " \"cheap\"");
    assertThat(run("query", "-q", "{\"filter\":{\"near\":{}}}", file.toString())).isEqualTo(2);
    assertThat(err).contains("filter: unknown operator 'near'");
    // the query language is the searcher's: the old "where" spelling is refused, naming "filter"
    assertThat(run("query", "-q", "{\"where\":{\"all\":{}}}", file.toString())).isEqualTo(2);
    assertThat(err)
        .contains("unknown key 'where'; allowed keys are [explain, facets, fields, filter");
  }

  @Test
  void mergeJoinsFilesIntoOneThatAnswersForAllOfThem() throws Exception {
    Path second = dir.resolve("more.mosaic");
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    for (int i = 0; i < 10; i++) {
      b.add(
          Document.builder(SCHEMA)
              .add("id", "more-" + i)
              .add("mark", "volvo")
              .add("price", 7L)
              .payload(("{\"more\":" + i + "}").getBytes(StandardCharsets.UTF_8))
              .build());
    }
    b.writeTo(second);
    Path merged = dir.resolve("merged.mosaic");
    assertThat(run("merge", "--output", merged.toString(), file.toString(), second.toString()))
        .isZero();
    assertThat(out)
        .contains("merged 2 files, 410 documents into " + merged)
        .contains("format version 3")
        .contains("bloom filters: id");
    assertThat(run("verify", merged.toString())).isZero();
    assertThat(run("query", "-q", "{\"filter\":{\"eq\":{\"mark\":\"volvo\"}}}", merged.toString()))
        .isZero();
    assertThat(out).contains("count: 10");
    assertThat(run("dump", "--from", "400", "--limit", "1", merged.toString())).isZero();
    assertThat(out).contains("\"id\":400").contains("\"mark\":\"volvo\"");

    assertThat(run("merge", "-o", merged.toString(), file.toString())).isEqualTo(1);
    assertThat(err).contains("already exists");
    Schema other = Schema.builder().field("x", FieldType.INT, FieldRole.FULL).build();
    Path odd = dir.resolve("odd.mosaic");
    DatabaseBuilder.create(other).writeTo(odd);
    assertThat(
            run("merge", "-o", dir.resolve("x.mosaic").toString(), file.toString(), odd.toString()))
        .isEqualTo(1);
    assertThat(err).contains("input 1 (" + odd + ") has schema");
    assertThat(Files.exists(dir.resolve("x.mosaic"))).isFalse();
  }
}
