package dev.mosaic.format.impl;

import static dev.mosaic.format.query.Condition.and;
import static dev.mosaic.format.query.Condition.between;
import static dev.mosaic.format.query.Condition.eq;
import static dev.mosaic.format.query.Condition.in;
import static dev.mosaic.format.query.Condition.not;
import static dev.mosaic.format.query.Condition.or;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A composite with value dictionaries answers exactly as one without (the per-partition search, in
 * turn checked against the reference by {@code RandomizedDatabaseTest}): counts from the totals,
 * ranks resolved from the dictionary, partitions lacking a required value skipped. Many partitions
 * with skewed values, so that most values are missing from most partitions. Reproduce a failure
 * with {@code -Dtests.seed=<seed>}.
 */
class CompositeDictionaryTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  static final Schema SCHEMA =
      Schema.builder()
          .field("color", FieldType.STRING, FieldRole.FILTERABLE)
          .field("tag", FieldType.STRING, FieldRole.FILTERABLE) // 0..3 values per document
          .field("rare", FieldType.STRING, FieldRole.FILTERABLE)
          .field("year", FieldType.INT, FieldRole.FULL)
          .field("price", FieldType.LONG, FieldRole.FULL)
          .build();

  record Hit(int partition, int doc) {}

  @Test
  void compositeWithDictionariesAnswersExactlyAsWithoutAndSkipsPartitionsLackingAValue()
      throws Exception {
    Random random = new Random(SEED);
    for (int round = 0; round < 6; round++) {
      long seed = random.nextLong();
      try {
        runRound(seed);
      } catch (AssertionError | Exception e) {
        throw new AssertionError(
            "failed with round seed " + seed + " (tests.seed=" + SEED + ")", e);
      }
    }
  }

  private static String value(Random random, String prefix, int distinct) {
    // skewed: low indexes are common, high ones rare
    double u = random.nextDouble();
    return prefix + (int) (distinct * u * u * u);
  }

  private void runRound(long seed) throws Exception {
    Random random = new Random(seed);
    int partitionCount = 8 + random.nextInt(40);
    List<Database> partitions = new ArrayList<>();
    for (int p = 0; p < partitionCount; p++) {
      partitions.add(partition(random, p));
    }
    CompositeReader with = new CompositeReader(SCHEMA, partitions);
    CompositeReader without = new CompositeReader(SCHEMA, partitions, 0);
    Map<Database, Integer> partitionOf = new IdentityHashMap<>();
    for (int p = 0; p < partitions.size(); p++) {
      partitionOf.put(partitions.get(p), p);
    }
    for (int q = 0; q < 60; q++) {
      Condition c = condition(random, 0);
      Query query = Query.where(c);
      switch (random.nextInt(4)) {
        case 0 -> query = query.orderBy(Order.desc("year"), Order.asc("price"));
        case 1 -> query = query.orderBy(Order.asc("price"));
        case 2 -> query = query.orderBy(Order.desc("year"));
        default -> {}
      }
      query = query.skip(random.nextInt(3) == 0 ? random.nextInt(30) : 0);
      query = query.limit(random.nextInt(4) == 0 ? 5000 : 1 + random.nextInt(25));
      String what = "query " + query;
      assertThat(with.count(query)).as(what).isEqualTo(without.count(query));
      assertThat(run(with, query, partitionOf))
          .as(what)
          .isEqualTo(run(without, query, partitionOf));
      List<Facet> facets = List.of(Facet.all("color"), Facet.top("tag", 3), Facet.all("year"));
      List<Stats> stats = List.of(Stats.of("price"), Stats.of("year"));
      assertThat(with.aggregate(c, facets, stats))
          .as("aggregate " + what)
          .isEqualTo(without.aggregate(c, facets, stats));
    }
    assertThat(with.dictionaryHeapBytes()).as("dictionaries built").isPositive();
    assertThat(without.dictionaryHeapBytes()).isZero();
  }

  /** A partition of skewed random documents (sometimes empty); payloads name {@code p}. */
  static Database partition(Random random, int p) throws Exception {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA).autoBloomFilters(random.nextBoolean());
    int n = random.nextInt(6) == 0 ? 0 : random.nextInt(120);
    for (int i = 0; i < n; i++) {
      Document.Builder d =
          Document.builder(SCHEMA)
              .add("color", value(random, "c", 12))
              .add("year", 2000 + random.nextInt(25))
              .add("price", (long) random.nextInt(5000))
              .payload(new byte[] {(byte) p, (byte) i});
      for (int t = random.nextInt(4); t > 0; t--) {
        d.add("tag", value(random, "t", 9));
      }
      if (random.nextInt(10) == 0) {
        d.add("rare", value(random, "r", 400));
      }
      b.add(d.build());
    }
    return Database.fromBytes(b.toByteArray());
  }

  static Condition condition(Random random, int depth) {
    int kind = random.nextInt(depth >= 2 ? 4 : 7);
    return switch (kind) {
      case 0 -> eq("color", value(random, "c", 14)); // sometimes absent everywhere
      case 1 ->
          eq(
              random.nextBoolean() ? "tag" : "rare",
              value(random, "t", 10).replace('t', random.nextBoolean() ? 't' : 'r'));
      case 2 ->
          in(
              random.nextBoolean() ? "color" : "tag",
              List.of(value(random, "c", 14), value(random, "t", 10), value(random, "c", 14)));
      case 3 ->
          between(
              "year",
              2000 + random.nextInt(25),
              true,
              2000 + random.nextInt(25),
              random.nextBoolean());
      case 4 ->
          and(
              condition(random, depth + 1),
              condition(random, depth + 1),
              condition(random, depth + 1));
      case 5 -> or(condition(random, depth + 1), condition(random, depth + 1));
      default -> not(condition(random, depth + 1));
    };
  }

  static List<Hit> run(CompositeReader c, Query q, Map<Database, Integer> partitionOf) {
    List<Hit> hits = new ArrayList<>();
    c.execute(
        q,
        (doc, db) -> {
          hits.add(new Hit(partitionOf.get(db), doc));
          return true;
        });
    return hits;
  }

  @Test
  void anEqCountAnsweredFromTheTotalsStillFailsOnAClosedPartition() throws Exception {
    List<Database> partitions = new ArrayList<>();
    for (int p = 0; p < 3; p++) {
      DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
      for (int i = 0; i < 10; i++) {
        b.add(
            Document.builder(SCHEMA)
                .add("color", p == 2 ? "blue" : "red")
                .add("year", 2020)
                .add("price", 10L * i)
                .payload(new byte[] {1})
                .build());
      }
      partitions.add(Database.fromBytes(b.toByteArray()));
    }
    CompositeReader c = new CompositeReader(SCHEMA, partitions);
    assertThat(c.count(Query.where(eq("color", "red")))).isEqualTo(20);
    assertThat(c.count(Query.where(in("color", List.of("red", "blue", "green"))))).isEqualTo(30);
    assertThat(c.count(Query.where(eq("color", "green")))).isZero();
    partitions.get(2).close(); // has no "red": skipped by the walk, yet the query must fail
    assertThatThrownBy(() -> c.count(Query.where(eq("color", "red"))))
        .isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(() -> c.execute(Query.where(eq("color", "red")).limit(3), (doc, db) -> true))
        .isInstanceOf(IllegalStateException.class);
  }
}
