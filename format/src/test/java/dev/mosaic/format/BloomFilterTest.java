package dev.mosaic.format;

import static dev.mosaic.format.query.Condition.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.impl.DatabaseReader;
import dev.mosaic.format.query.Query;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Per-partition Bloom filters on equality fields (format version 2). */
class BloomFilterTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  static final Schema SCHEMA =
      Schema.builder()
          .version(1)
          .payloadType("test.Doc")
          .field("id", FieldType.STRING, FieldRole.FILTERABLE)
          .field("color", FieldType.STRING, FieldRole.FILTERABLE)
          .build();

  private static DatabaseBuilder partition(int from, int to) {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    for (int i = from; i < to; i++) {
      b.add(Document.builder(SCHEMA).add("id", "id-" + i).add("color", "c" + i % 5).build());
    }
    return b;
  }

  @Test
  void highCardinalityFieldsGetAFilterAutomaticallyAndLowCardinalityOnesDoNot() throws Exception {
    DatabaseReader db = DatabaseReader.of(Database.fromBytes(partition(0, 1000).toByteArray()));
    assertThat(db.formatVersion()).isEqualTo(2);
    assertThat(db.hasBloomFilter("id")).isTrue();
    assertThat(db.hasBloomFilter("color")).isFalse();
    DatabaseReader off =
        DatabaseReader.of(
            Database.fromBytes(partition(0, 1000).autoBloomFilters(false).toByteArray()));
    assertThat(off.hasBloomFilter("id")).isFalse();
    Database forced =
        Database.fromBytes(
            partition(0, 10).autoBloomFilters(false).bloomFilter("color").toByteArray());
    assertThat(DatabaseReader.of(forced).hasBloomFilter("color")).isTrue();
    assertThat(forced.count(Query.where(eq("color", "c3")))).isEqualTo(2);
    assertThatThrownBy(() -> partition(0, 1).bloomFilter("nope"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("nope");
  }

  @Test
  void filtersNeverRejectAPresentValueAndRejectMostAbsentOnes() throws Exception {
    Random random = new Random(SEED);
    int n = 2000 + random.nextInt(3000);
    DatabaseReader db = DatabaseReader.of(Database.fromBytes(partition(0, n).toByteArray()));
    for (int i = 0; i < n; i++) {
      assertThat(db.mightContain("id", "id-" + i)).as("id-%d seed %d", i, SEED).isTrue();
    }
    int falsePositives = 0;
    int probes = 20_000;
    for (int i = 0; i < probes; i++) {
      if (db.mightContain("id", "id-" + (n + random.nextInt(1_000_000)))) {
        falsePositives++;
      }
    }
    // 10+ bits per value and 7 hashes: about 1% false positives.
    assertThat(falsePositives).as("seed %d", SEED).isLessThan(probes * 3 / 100);
  }

  @Test
  void compositeLookupsAnswerLikeTheReferenceOverManyFilteredPartitions() throws Exception {
    Random random = new Random(SEED);
    List<Database> partitions = new ArrayList<>();
    List<List<Document>> docs = new ArrayList<>();
    int next = 0;
    for (int p = 0; p < 20; p++) {
      int size = 300 + random.nextInt(200);
      DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
      List<Document> partition = new ArrayList<>();
      for (int i = 0; i < size; i++) {
        // Some ids repeat across partitions.
        int id = random.nextInt(10) == 0 ? random.nextInt(next + 1) : next++;
        Document d =
            Document.builder(SCHEMA).add("id", "id-" + id).add("color", "c" + id % 5).build();
        b.add(d);
        partition.add(d);
      }
      partitions.add(Database.fromBytes(b.toByteArray()));
      docs.add(partition);
    }
    CompositeDatabase composite = CompositeDatabase.of(SCHEMA, partitions);
    ReferenceDatabase reference = new ReferenceDatabase(SCHEMA, docs);
    for (int q = 0; q < 300; q++) {
      String a = "id-" + random.nextInt(next + 200);
      String b = "id-" + random.nextInt(next + 200);
      for (Query query :
          List.of(
              Query.where(eq("id", a)),
              Query.where(in("id", List.of(a, b))),
              Query.where(and(eq("id", a), eq("color", "c" + random.nextInt(5)))),
              Query.where(not(eq("id", a))))) {
        assertThat(composite.count(query))
            .as("%s seed %d", query, SEED)
            .isEqualTo(reference.count(query));
      }
    }
  }
}
