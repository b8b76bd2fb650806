package dev.mosaic.searcher.status;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class LagGridTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Instant NOW = Instant.parse("2026-11-24T23:00:00Z");

  /**
   * A {@code /partitions} answer: each partition as {p, held version, served version, versions}.
   */
  private static ObjectNode partitions(int schemaVersion, long[]... rows) {
    ObjectNode n = JSON.createObjectNode();
    n.put("schemaVersion", schemaVersion);
    n.put("generation", 7);
    ArrayNode arr = n.putArray("partitions");
    for (long[] r : rows) {
      ObjectNode p = arr.addObject();
      p.put("partition", (int) r[0]);
      p.put("version", r[1]);
      if (r[2] < 0) {
        p.putNull("servedVersion");
      } else {
        p.put("servedVersion", r[2]);
      }
      // the held file arrived r[3] seconds before NOW
      p.put("publishedAt", NOW.minusSeconds(r[3]).toString());
      p.put("ageSeconds", (double) r[3]);
      p.put("sizeBytes", 1000);
      p.put("crc32c", "0000abcd");
      p.put("pinned", false);
      p.putArray("versions").add(r[1]);
    }
    return n;
  }

  /** A manifest record of partition p, version v, built {@code secondsAgo} before NOW. */
  private static ManifestRecord built(int p, long v, long secondsAgo) {
    return ManifestRecord.built(
        new PartitionFileId(1, p, v), 1, 0, 0, -1, NOW.minusSeconds(secondsAgo).toEpochMilli(), 0);
  }

  private static LagGrid.Column column(String dc, String address, ObjectNode partitions) {
    return new LagGrid.Column(dc, address, false, "UP", partitions, null);
  }

  private static List<Integer> levels(JsonNode grid, String address) {
    List<Integer> out = new ArrayList<>();
    for (JsonNode dc : grid.path("datacenters")) {
      for (JsonNode s : dc.path("searchers")) {
        if (s.path("address").asText().equals(address)) {
          s.path("cells").forEach(c -> out.add(c.path("level").asInt()));
        }
      }
    }
    return out;
  }

  private static JsonNode cell(JsonNode grid, String address, int partition) {
    for (JsonNode dc : grid.path("datacenters")) {
      for (JsonNode s : dc.path("searchers")) {
        if (s.path("address").asText().equals(address)) {
          for (JsonNode c : s.path("cells")) {
            if (c.path("partition").asInt() == partition) {
              return c;
            }
          }
        }
      }
    }
    throw new AssertionError("no cell " + address + " " + partition);
  }

  @Test
  void withoutAManifestLagRunsFromTheArrivalOfTheNewerVersionElsewhere() {
    JsonNode grid =
        LagGrid.build(
            "default",
            List.of(
                column(
                    "a",
                    "s1",
                    partitions(1, new long[] {0, 10, 10, 100}, new long[] {1, 20, 20, 5})),
                column(
                    "a",
                    "s2",
                    partitions(1, new long[] {0, 10, 10, 90}, new long[] {1, 10, 10, 95})),
                column(
                    "b",
                    "s3",
                    partitions(1, new long[] {0, 10, 10, 80}, new long[] {1, 10, 10, 70}))),
            null,
            NOW);
    assertThat(grid.path("reference").asText()).isEqualTo("newest held");
    assertThat(levels(grid, "s1")).containsExactly(0, 0);
    assertThat(levels(grid, "s2")).containsExactly(0, 1);
    JsonNode behind = cell(grid, "s3", 1);
    assertThat(behind.path("versionsBehind").asInt()).isEqualTo(1);
    assertThat(behind.path("secondsBehind").asDouble()).isEqualTo(5.0);
    assertThat(behind.path("newestVersion").asLong()).isEqualTo(20);
    assertThat(grid.path("datacenters").size()).isEqualTo(2);
    assertThat(grid.path("summary").path("current").asInt()).isEqualTo(4);
    assertThat(grid.path("summary").path("behind").asInt()).isEqualTo(2);
    assertThat(grid.path("summary").path("maxSecondsBehind").asDouble()).isEqualTo(5.0);
  }

  @Test
  void theManifestIsTheReferenceAndItsBuildTimeStartsTheLag() {
    List<ManifestRecord> manifest = List.of(built(0, 10, 30), built(1, 30, 300), built(2, 5, 3));
    JsonNode grid =
        LagGrid.build(
            "default",
            List.of(
                column(
                    "a",
                    "s1",
                    partitions(
                        1,
                        new long[] {0, 10, 10, 30},
                        new long[] {1, 20, 20, 5},
                        new long[] {2, 4, 4, 50}))),
            manifest,
            NOW);
    assertThat(grid.path("reference").asText()).isEqualTo("manifest");
    // 0 current; 1 behind v30 built 5 min ago: red; 2 behind v5 built 3 s ago: level 1
    assertThat(levels(grid, "s1")).containsExactly(0, 3, 1);
    assertThat(cell(grid, "s1", 1).path("secondsBehind").asDouble()).isEqualTo(300.0);
    assertThat(cell(grid, "s1", 2).path("secondsBehind").asDouble()).isEqualTo(3.0);
    assertThat(grid.path("partitions").get(1).path("manifestVersion").asLong()).isEqualTo(30);
  }

  @Test
  void aPartitionNotHeldOrNotServedIsRedAndAnUnreachableSearcherHasNoCells() {
    JsonNode grid =
        LagGrid.build(
            "default",
            List.of(
                column(
                    "a", "s1", partitions(1, new long[] {0, 1, 1, 10}, new long[] {1, 1, 1, 10})),
                column("a", "s2", partitions(1, new long[] {0, 1, -1, 10})),
                new LagGrid.Column("b", "s3", false, "UNREACHABLE", null, "connection refused")),
            null,
            NOW);
    assertThat(levels(grid, "s2")).containsExactly(3, 3);
    assertThat(cell(grid, "s2", 0).path("state").asText()).isEqualTo("not served");
    assertThat(cell(grid, "s2", 1).path("state").asText()).isEqualTo("missing");
    JsonNode s3 = grid.path("datacenters").get(1).path("searchers").get(0);
    assertThat(s3.has("cells")).isFalse();
    assertThat(s3.path("error").asText()).isEqualTo("connection refused");
    assertThat(grid.path("summary").path("unreachable").asInt()).isEqualTo(1);
    assertThat(grid.path("summary").path("worst").size()).isEqualTo(2);
  }

  @Test
  void withoutTimesTheNumberOfVersionsBehindPicksTheLevel() {
    ObjectNode newest = partitions(1, new long[] {0, 9, 9, 0});
    ArrayNode held = (ArrayNode) newest.path("partitions").get(0).path("versions");
    for (long v = 2; v <= 8; v++) {
      held.add(v);
    }
    ((ObjectNode) newest.path("partitions").get(0)).remove("publishedAt");
    List<LagGrid.Column> columns = new ArrayList<>();
    columns.add(column("a", "newest", newest));
    for (long v : new long[] {8, 7, 6, 5}) {
      ObjectNode p = partitions(1, new long[] {0, v, v, 0});
      ((ObjectNode) p.path("partitions").get(0)).remove("publishedAt");
      columns.add(column("a", "v" + v, p));
    }
    JsonNode grid = LagGrid.build("default", columns, null, NOW);
    assertThat(levels(grid, "v8")).containsExactly(1);
    assertThat(levels(grid, "v7")).containsExactly(2);
    assertThat(levels(grid, "v6")).containsExactly(2);
    assertThat(levels(grid, "v5")).containsExactly(3);
    assertThat(cell(grid, "v5", 0).path("versionsBehind").asInt()).isEqualTo(4);
    assertThat(cell(grid, "v5", 0).path("secondsBehind").isNull()).isTrue();
  }

  @Test
  void aSearcherOnAnOlderSchemaVersionIsBehindEverywhere() {
    JsonNode grid =
        LagGrid.build(
            "default",
            List.of(
                column("a", "new", partitions(2, new long[] {0, 1, 1, 10})),
                column("a", "old", partitions(1, new long[] {0, 50, 50, 10}))),
            null,
            NOW);
    assertThat(grid.path("schemaVersion").asInt()).isEqualTo(2);
    assertThat(levels(grid, "old")).containsExactly(3);
    assertThat(grid.path("datacenters").get(0).path("searchers").get(1).path("note").asText())
        .contains("schema version 1");
  }

  @Test
  void aVersionThatReadsAsClockMillisDatesItselfWhenNothingElseDoes() {
    long newer = NOW.minusSeconds(45).toEpochMilli();
    long older = NOW.minusSeconds(600).toEpochMilli();
    ObjectNode pinned = partitions(1, new long[] {0, older, older, 0});
    ((ObjectNode) pinned.path("partitions").get(0)).remove("publishedAt");
    ((ArrayNode) pinned.path("partitions").get(0).path("versions")).add(newer);
    ObjectNode behind = partitions(1, new long[] {0, older, older, 0});
    ((ObjectNode) behind.path("partitions").get(0)).remove("publishedAt");
    JsonNode grid =
        LagGrid.build(
            "default",
            List.of(column("a", "pinned", pinned), column("a", "behind", behind)),
            null,
            NOW);
    // the newer version is only held (the first searcher is pinned to the older one): its number
    // is its build time, 45 s ago
    assertThat(cell(grid, "behind", 0).path("secondsBehind").asDouble()).isEqualTo(45.0);
    assertThat(levels(grid, "behind")).containsExactly(2);
    // small numbers are not times
    assertThat(LagGrid.looksLikeBuildTime(2, NOW)).isFalse();
    assertThat(LagGrid.looksLikeBuildTime(NOW.toEpochMilli() + 7_200_000L, NOW)).isFalse();
  }
}
