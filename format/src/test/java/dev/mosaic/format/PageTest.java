package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * {@link Searchable#page} answers in one call what {@code count}, {@code aggregate} and {@code
 * execute} answer in three, and every hit (of a page or of {@link Searchable#execute(Query,
 * HitProcessor)}) carries the index of its partition; checked against {@link ReferenceDatabase} on
 * random queries over composites that mix engine partitions with wrapped ones, and on single
 * databases. Reproduce a failure with {@code -Dtests.seed=<seed>}.
 */
class PageTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  @Test
  void aPageHasTheTotalTheHitsAndTheAggregationOfSeparateCallsWithPartitionIndexes()
      throws Exception {
    Random random = new Random(SEED);
    List<List<Document>> docs = new ArrayList<>();
    List<Database> direct = new ArrayList<>();
    for (int p = 0; p < 6; p++) {
      List<Document> part = new ArrayList<>();
      DatabaseBuilder b = DatabaseBuilder.create(CarsFixture.SCHEMA);
      int size = p == 3 ? 0 : 20 + random.nextInt(60);
      for (int i = 0; i < size; i++) {
        part.add(CarsFixture.car(random.nextInt(500)));
        b.add(part.get(i));
      }
      docs.add(part);
      Database db = Database.fromBytes(b.toByteArray());
      direct.add(db);
    }
    ReferenceDatabase reference = new ReferenceDatabase(CarsFixture.SCHEMA, docs);
    List<CompositeDatabase> composites =
        List.of(
            CompositeDatabase.of(CarsFixture.SCHEMA, direct),
            // a successor, inheriting the first one's value dictionaries
            CompositeDatabase.of(CarsFixture.SCHEMA, direct).withPartitions(direct));
    int nonEmpty = 0;
    for (int round = 0; round < 300; round++) {
      Query q = query(random);
      List<Facet> facets =
          random.nextBoolean()
              ? List.of()
              : List.of(Facet.top("mark", 2), Facet.values("tags", List.of("even", "five")));
      List<Stats> stats =
          random.nextBoolean() ? List.of() : List.of(Stats.histogram("price", List.of(20_000L)));
      String why = "seed " + SEED + ", " + q;
      List<ReferenceDatabase.Hit> expected = reference.execute(q);
      for (CompositeDatabase composite : composites) {
        Page page = composite.page(q, facets, stats);
        assertThat(page.total()).as(why).isEqualTo(reference.count(q));
        assertThat(page.aggregation())
            .as(why)
            .isEqualTo(composite.aggregate(q.condition(), facets, stats));
        assertThat(page.hits().stream().map(PageTest::reference).toList())
            .as(why)
            .isEqualTo(expected);
        for (Hit h : page.hits()) {
          assertThat(h.database()).as(why).isSameAs(composite.partitions().get(h.partition()));
        }
        List<ReferenceDatabase.Hit> executed = new ArrayList<>();
        composite.execute(
            q,
            (int partition, int document, Database database) -> {
              assertThat(database).isSameAs(composite.partitions().get(partition));
              return executed.add(new ReferenceDatabase.Hit(partition, document));
            });
        assertThat(executed).as(why).isEqualTo(expected);
      }
      Database single = direct.get(round % direct.size());
      Page page = single.page(q, facets, stats);
      assertThat(page.total()).as(why).isEqualTo(single.count(q));
      assertThat(page.aggregation())
          .as(why)
          .isEqualTo(single.aggregate(q.condition(), facets, stats));
      List<Integer> ids = new ArrayList<>();
      single.execute(q, (doc, db) -> ids.add(doc));
      assertThat(page.hits().stream().map(Hit::document).toList()).as(why).isEqualTo(ids);
      assertThat(page.hits()).allMatch(h -> h.partition() == 0 && h.database() == single);
      nonEmpty += expected.isEmpty() ? 0 : 1;
    }
    assertThat(nonEmpty).as("seed %d: queries that find something", SEED).isGreaterThan(100);
  }

  @Test
  void smallOrderedPagesWithRangeFiltersOverManyPartitionsMatchTheReference() throws Exception {
    // many partitions and small pages: the bounded top is full after a few partitions, so most
    // partitions are judged against the k-th kept document; range filters leave the total to be
    // counted partition by partition (the value dictionaries do not know it)
    Random random = new Random(SEED + 1);
    List<List<Document>> docs = new ArrayList<>();
    List<Database> parts = new ArrayList<>();
    for (int p = 0; p < 40; p++) {
      List<Document> part = new ArrayList<>();
      DatabaseBuilder b = DatabaseBuilder.create(CarsFixture.SCHEMA);
      int size = p % 13 == 5 ? 0 : 5 + random.nextInt(25);
      for (int i = 0; i < size; i++) {
        part.add(CarsFixture.car(random.nextInt(2000)));
        b.add(part.get(i));
      }
      docs.add(part);
      parts.add(Database.fromBytes(b.toByteArray()));
    }
    ReferenceDatabase reference = new ReferenceDatabase(CarsFixture.SCHEMA, docs);
    CompositeDatabase composite = CompositeDatabase.of(CarsFixture.SCHEMA, parts);
    int found = 0;
    for (int round = 0; round < 300; round++) {
      long low = 1000L * random.nextInt(45);
      Condition range =
          random.nextBoolean()
              ? Condition.between("price", low, true, low + 1000L * random.nextInt(20), false)
              : Condition.lt("year", 2001 + random.nextInt(19));
      Condition c =
          random.nextBoolean()
              ? range
              : Condition.and(Condition.eq("mark", CarsFixture.MARKS[random.nextInt(4)]), range);
      List<Order> orders =
          switch (random.nextInt(3)) {
            case 0 -> List.of(Order.asc("price"));
            case 1 -> List.of(Order.desc("published"));
            default -> List.of(Order.asc("mark"), Order.desc("price"));
          };
      Query q =
          Query.where(c)
              .orderBy(orders)
              .skip(random.nextInt(4) == 0 ? random.nextInt(15) : 0)
              .limit(1 + random.nextInt(12));
      String why = "seed " + SEED + ", " + q;
      List<ReferenceDatabase.Hit> expected = reference.execute(q);
      Page page = composite.page(q, List.of(), List.of());
      assertThat(page.total()).as(why).isEqualTo(reference.count(q));
      assertThat(page.hits().stream().map(PageTest::reference).toList())
          .as(why)
          .isEqualTo(expected);
      found += expected.isEmpty() ? 0 : 1;
    }
    assertThat(found).as("seed %d: queries that find something", SEED).isGreaterThan(150);
  }

  private static ReferenceDatabase.Hit reference(Hit h) {
    return new ReferenceDatabase.Hit(h.partition(), h.document());
  }

  private static Query query(Random r) {
    Condition c =
        switch (r.nextInt(6)) {
          case 0 -> Condition.all();
          case 1 -> Condition.eq("mark", CarsFixture.MARKS[r.nextInt(4)]);
          case 2 -> Condition.gte("price", 1000L * r.nextInt(50));
          case 3 ->
              Condition.and(
                  Condition.eq("region", CarsFixture.REGIONS[r.nextInt(3)]),
                  Condition.not(Condition.eq("tags", "even")));
          case 4 -> Condition.or(Condition.eq("tags", "five"), Condition.lt("year", 2005));
          default -> Condition.eq("region", "nowhere");
        };
    List<Order> orders = new ArrayList<>();
    switch (r.nextInt(4)) {
      case 0 -> {}
      case 1 -> orders.add(Order.desc("price"));
      case 2 -> {
        orders.add(Order.asc("mark"));
        orders.add(Order.desc("published"));
      }
      default -> orders.add(Order.asc("published"));
    }
    return Query.where(c)
        .orderBy(orders)
        .skip(r.nextInt(3) == 0 ? r.nextInt(120) : 0)
        .limit(r.nextInt(10) == 0 ? 0 : 1 + r.nextInt(40));
  }
}
