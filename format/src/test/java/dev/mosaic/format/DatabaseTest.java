package dev.mosaic.format;

import static dev.mosaic.format.query.Condition.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import java.io.ByteArrayOutputStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DatabaseTest {
  @TempDir Path dir;

  private static List<Integer> ids(Searchable s, Query q) {
    List<Integer> out = new ArrayList<>();
    s.execute(
        q,
        (doc, db) -> {
          out.add(doc);
          return true;
        });
    return out;
  }

  @Test
  void fileStreamAndBytesGiveTheSameDatabase() throws Exception {
    DatabaseBuilder b = CarsFixture.builder(0, 1000).payloadCompression(PayloadCompression.NONE);
    Path file = dir.resolve("cars.mosaic");
    b.writeTo(file);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    b.writeTo(out);
    byte[] bytes = b.toByteArray();
    assertThat(Files.readAllBytes(file)).isEqualTo(bytes).isEqualTo(out.toByteArray());
    assertThat(Database.verify(file)).isEqualTo(CarsFixture.SCHEMA);
    try (Database db = Database.open(file, true)) {
      assertThat(db.schema()).isEqualTo(CarsFixture.SCHEMA);
      assertThat(db.documentCount()).isEqualTo(1000);
      assertThat(db.sizeInBytes()).isEqualTo(bytes.length);
      assertThat(db.formatVersion()).isEqualTo(1);
      assertThat(db.count(Query.where(eq("mark", "bmw")))).isEqualTo(250);
    }
  }

  @Test
  void payloadIsAZeroCopyReadOnlyViewAndSortableValuesDecode() throws Exception {
    Path file = dir.resolve("cars.mosaic");
    CarsFixture.builder(0, 100).payloadCompression(PayloadCompression.NONE).writeTo(file);
    try (Database db = Database.open(file)) {
      MemorySegment p = db.payload(42);
      assertThat(new String(p.toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8))
          .isEqualTo("car-42");
      assertThat(p.isReadOnly()).isTrue();
      assertThat(p.isMapped()).isTrue();
      assertThat(db.sortableValue(42, "price")).isEqualTo(42_000L);
      assertThat(db.sortableValue(42, "mark")).isEqualTo("ford");
      assertThat(db.sortableValue(42, "published")).isEqualTo(Instant.ofEpochSecond(42 * 60));
      assertThatThrownBy(() -> db.payload(100)).isInstanceOf(IndexOutOfBoundsException.class);
      assertThatThrownBy(() -> db.sortableValue(1, "region"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'region'");
    }
  }

  @Test
  void everyConditionKindFiltersAsSpecified() throws Exception {
    Database db = Database.fromBytes(CarsFixture.builder(0, 200).toByteArray());
    assertThat(db.count(Query.all())).isEqualTo(200);
    assertThat(db.count(Query.where(eq("region", "msk")))).isEqualTo(67);
    assertThat(db.count(Query.where(eq("region", "nowhere")))).isZero();
    assertThat(db.count(Query.where(in("mark", List.of("audi", "lada", "zaz"))))).isEqualTo(100);
    assertThat(db.count(Query.where(gte("price", 45_000L)))).isEqualTo(20);
    assertThat(db.count(Query.where(gt("price", 45_000L)))).isEqualTo(16);
    assertThat(db.count(Query.where(lt("year", 2002)))).isEqualTo(20);
    assertThat(db.count(Query.where(lte("year", 2002)))).isEqualTo(30);
    assertThat(db.count(Query.where(between("price", 1000L, false, 3000L, true)))).isEqualTo(8);
    assertThat(db.count(Query.where(and(eq("region", "msk"), eq("mark", "bmw"))))).isEqualTo(16);
    assertThat(db.count(Query.where(or(eq("tags", "even"), eq("tags", "five"))))).isEqualTo(120);
    assertThat(db.count(Query.where(not(eq("tags", "even"))))).isEqualTo(100);
    assertThat(db.count(Query.where(and()))).isEqualTo(200);
    assertThat(db.count(Query.where(or()))).isZero();
    assertThat(ids(db, Query.where(eq("tags", "five")).limit(3))).containsExactly(0, 5, 10);
  }

  @Test
  void ordersByManyKeysWithSkipLimitAndStopsWhenTheProcessorSaysSo() throws Exception {
    Database db = Database.fromBytes(CarsFixture.builder(0, 200).toByteArray());
    Query q =
        Query.where(eq("region", "spb"))
            .orderBy(Order.desc("price"), Order.asc("published"))
            .skip(1)
            .limit(3);
    // spb: i % 3 == 1; price max 49000 at i % 50 == 49: i = 49 (49%3=1), 199 (199%3=1)...
    List<Integer> expected =
        IntStream.range(0, 200)
            .filter(i -> i % 3 == 1)
            .boxed()
            .sorted(
                (a, b) ->
                    a % 50 != b % 50 ? Integer.compare(b % 50, a % 50) : Integer.compare(a, b))
            .skip(1)
            .limit(3)
            .toList();
    assertThat(ids(db, q)).isEqualTo(expected);
    List<Integer> seen = new ArrayList<>();
    db.execute(
        q.limit(100),
        (doc, d) -> {
          seen.add(doc);
          return seen.size() < 2;
        });
    assertThat(seen).hasSize(2);
  }

  @Test
  void compositeMergesPartitionsBreakingTiesByPartitionThenDocument() throws Exception {
    List<Database> parts = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      parts.add(Database.fromBytes(CarsFixture.builder(p * 50, p * 50 + 50).toByteArray()));
    }
    CompositeDatabase all = CompositeDatabase.of(CarsFixture.SCHEMA, parts);
    assertThat(all.documentCount()).isEqualTo(200);
    assertThat(all.count(Query.where(eq("mark", "audi")))).isEqualTo(50);
    List<String> seen = new ArrayList<>();
    all.execute(
        Query.where(eq("price", 0L)).orderBy(Order.asc("mark")),
        (doc, db) -> {
          seen.add(parts.indexOf(db) + ":" + doc);
          return true;
        });
    // price 0: i % 50 == 0 -> i = 0, 50, 100, 150: doc 0 of every partition, marks audi, lada...
    assertThat(seen).containsExactly("0:0", "2:0", "1:0", "3:0");
    List<String> unordered = new ArrayList<>();
    all.execute(
        Query.where(eq("mark", "bmw")).skip(12).limit(3),
        (doc, db) -> {
          unordered.add(parts.indexOf(db) + ":" + doc);
          return true;
        });
    // bmw: i % 4 == 1 -> 13 in partition 0 (1, 5, ..., 49), then 53, 57 in partition 1
    assertThat(unordered).containsExactly("0:49", "1:3", "1:7");
  }

  @Test
  void badQueriesNameTheField() throws Exception {
    Database db = Database.fromBytes(CarsFixture.builder(0, 10).toByteArray());
    assertThatThrownBy(() -> db.count(Query.where(eq("colour", "red"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'colour'");
    assertThatThrownBy(() -> db.count(Query.where(eq("published", 5L))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'published'")
        .hasMessageContaining("not filterable");
    assertThatThrownBy(() -> db.execute(Query.all().orderBy(Order.asc("region")), (d, x) -> true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'region'")
        .hasMessageContaining("not sortable");
    assertThatThrownBy(() -> db.count(Query.where(eq("price", "cheap"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'price'");
    CompositeDatabase c = CompositeDatabase.of(CarsFixture.SCHEMA, List.of(db));
    assertThatThrownBy(() -> c.count(Query.where(eq("colour", "red"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'colour'");
  }

  @Test
  void aggregationCountsFacetsAndStatsOfTheFilteredSetAcrossPartitions() throws Exception {
    List<Database> parts = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      parts.add(Database.fromBytes(CarsFixture.builder(p * 40, p * 40 + 40).toByteArray()));
    }
    CompositeDatabase all = CompositeDatabase.of(CarsFixture.SCHEMA, parts);
    Aggregation a =
        all.aggregate(
            eq("region", "msk"),
            List.of(
                dev.mosaic.format.query.Facet.top("mark", 2),
                dev.mosaic.format.query.Facet.values("tags", List.of("five", "none"))),
            List.of(dev.mosaic.format.query.Stats.histogram("price", List.of(10_000L, 40_000L))));
    // msk: i % 3 == 0 in [0, 120): 40 documents; marks by i % 4 over i = 0, 3, 6, 9...: 10 each
    assertThat(a.count()).isEqualTo(40);
    assertThat(a.facets().get(0).entries())
        .containsExactly(new Aggregation.Entry("audi", 10), new Aggregation.Entry("bmw", 10));
    // five: i % 15 == 0 -> 0, 15, ..., 105: 8 documents
    assertThat(a.facets().get(1).entries())
        .containsExactly(new Aggregation.Entry("five", 8), new Aggregation.Entry("none", 0));
    Aggregation.FieldStats price = a.stats().get(0);
    assertThat(price.count()).isEqualTo(40);
    assertThat(price.min()).isEqualTo(0L);
    assertThat(price.max()).isEqualTo(49_000L);
    assertThat(price.buckets().stream().mapToLong(Long::longValue).sum()).isEqualTo(40);
    assertThatThrownBy(() -> all.facets(all(), dev.mosaic.format.query.Facet.all("published")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'published'");
    assertThatThrownBy(() -> all.stats(all(), dev.mosaic.format.query.Stats.of("region")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'region'");
    assertThat(all.stats(eq("region", "nowhere"), dev.mosaic.format.query.Stats.of("price")))
        .isEqualTo(new Aggregation.FieldStats("price", 0, null, null, List.of()));
  }

  @Test
  void accessAfterCloseThrowsIllegalState() throws Exception {
    Path file = dir.resolve("cars.mosaic");
    CarsFixture.builder(0, 100).payloadCompression(PayloadCompression.NONE).writeTo(file);
    Database db = Database.open(file);
    MemorySegment payload = db.payload(3);
    db.close();
    db.close();
    assertThatThrownBy(() -> payload.get(ValueLayout.JAVA_BYTE, 0))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> db.count(Query.all())).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> db.payload(3)).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void aConfinedDatabaseAnswersItsOwnThreadOnlyAndUnmapsOnClose() throws Exception {
    Path file = dir.resolve("cars.mosaic");
    CarsFixture.builder(0, 100).payloadCompression(PayloadCompression.NONE).writeTo(file);
    long expected;
    try (Database shared = Database.open(file)) {
      expected = shared.count(Query.all());
    }
    Database db = Database.openConfined(file);
    assertThat(db.count(Query.all())).isEqualTo(expected).isEqualTo(100);
    MemorySegment payload = db.payload(3);
    java.util.concurrent.atomic.AtomicReference<Throwable> other =
        new java.util.concurrent.atomic.AtomicReference<>();
    Thread t =
        Thread.ofPlatform()
            .start(
                () -> {
                  try {
                    payload.get(ValueLayout.JAVA_BYTE, 0);
                  } catch (Throwable e) {
                    other.set(e);
                  }
                });
    t.join();
    assertThat(other.get()).isInstanceOf(WrongThreadException.class);
    db.close();
    assertThatThrownBy(() -> payload.get(ValueLayout.JAVA_BYTE, 0))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> db.count(Query.all())).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void partitionsMappedIntoOneArenaAreUnmappedByClosingIt() throws Exception {
    Path a = dir.resolve("a");
    Path b = dir.resolve("b");
    CarsFixture.builder(0, 10).writeTo(a);
    CarsFixture.builder(10, 20).writeTo(b);
    Arena arena = Arena.ofShared();
    Database da = Database.map(a, arena, false);
    Database db = Database.map(b, arena, true);
    CompositeDatabase c = CompositeDatabase.of(CarsFixture.SCHEMA, List.of(da, db));
    assertThat(c.count(Query.where(eq("mark", "audi")))).isEqualTo(5);
    arena.close();
    assertThatThrownBy(() -> c.count(Query.where(eq("mark", "audi"))))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void emptyDatabaseAnswersEveryQuery() throws Exception {
    Database db = Database.fromBytes(DatabaseBuilder.create(CarsFixture.SCHEMA).toByteArray());
    assertThat(db.documentCount()).isZero();
    assertThat(db.count(Query.where(not(eq("mark", "bmw"))))).isZero();
    assertThat(ids(db, Query.all().orderBy(Order.asc("price")))).isEmpty();
  }
}
