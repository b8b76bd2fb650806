package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.ReferenceDatabase.Hit;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Builds random databases (random schemas, every type, multi-valued fields, empty partitions,
 * duplicates, extreme values) and checks every query kind against {@link ReferenceDatabase}, on
 * single databases and on composites. Reproduce a failure with {@code -Dtests.seed=<seed>}.
 */
class RandomizedDatabaseTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());
  private static final int ROUNDS = Integer.getInteger("tests.rounds", 40);

  @Test
  void everyQueryKindMatchesTheReferenceOnSingleAndCompositeDatabases() throws Exception {
    Random seeds = new Random(SEED);
    for (int round = 0; round < ROUNDS; round++) {
      long seed = seeds.nextLong();
      try {
        runRound(seed);
      } catch (Throwable t) {
        throw new AssertionError(
            "failed with round seed " + seed + " (tests.seed=" + SEED + "): " + t, t);
      }
    }
  }

  @Test
  void orderedQueriesOnALargeDatabaseAgreeWithTheReferenceWhicheverStrategyRuns() throws Exception {
    Random random = new Random(SEED);
    Schema schema =
        Schema.builder()
            .field("few", FieldType.INT, FieldRole.FULL)
            .field("many", FieldType.LONG, FieldRole.FULL)
            .field("name", FieldType.STRING, FieldRole.FULL)
            .field("tag", FieldType.STRING, FieldRole.FILTERABLE)
            .field("at", FieldType.TIMESTAMP, FieldRole.SORTABLE)
            .build();
    List<Document> docs = new ArrayList<>();
    DatabaseBuilder builder = DatabaseBuilder.create(schema);
    for (int i = 0; i < 8_000; i++) {
      Document d =
          Document.builder(schema)
              .add("few", random.nextInt(7))
              .add("many", random.nextLong() % 50_000)
              .add("name", "n" + random.nextInt(3000))
              .add("tag", "t" + random.nextInt(3))
              .add("at", random.nextLong() % 1_000_000_000L)
              .build();
      docs.add(d);
      builder.add(d);
    }
    Database db = Database.fromBytes(builder.toByteArray());
    ReferenceDatabase reference = new ReferenceDatabase(schema, List.of(docs));
    List<Condition> conditions =
        List.of(
            Condition.all(),
            Condition.eq("tag", "t1"),
            Condition.not(Condition.eq("few", 3)),
            Condition.gte("many", 0L),
            Condition.and(Condition.eq("tag", "t2"), Condition.lt("name", "n5")));
    List<List<Order>> orders =
        List.of(
            List.of(Order.asc("few")),
            List.of(Order.desc("few"), Order.asc("many")),
            List.of(Order.desc("many")),
            List.of(Order.asc("name"), Order.desc("at")),
            List.of(Order.desc("at")));
    List<Facet> facets =
        List.of(
            Facet.top("name", 5),
            Facet.all("few"),
            Facet.all("tag"),
            Facet.values("many", List.of(1L, 2L, 3L)));
    List<Stats> stats =
        List.of(
            Stats.histogram("many", List.of(-20_000L, 0L, 20_000L)),
            Stats.of("at"),
            Stats.histogram("name", List.of("n1", "n5")));
    for (Condition c : conditions) {
      checkAggregation(db, reference, schema, c, facets, stats);
    }
    for (Condition c : conditions) {
      for (List<Order> o : orders) {
        for (int limit : new int[] {1, 10, 500}) {
          Query q = Query.where(c).orderBy(o).skip(limit == 10 ? 3 : 0).limit(limit);
          assertThat(run(db, q, Map.of(db, 0), Integer.MAX_VALUE))
              .as("%s (seed %d)", q, SEED)
              .isEqualTo(reference.execute(q));
        }
      }
    }
  }

  private void runRound(long seed) throws Exception {
    Random random = new Random(seed);
    Values values = new Values(random);
    Schema schema = randomSchema(random);
    int partitionCount = 1 + random.nextInt(4);
    List<List<Document>> docs = new ArrayList<>();
    List<Database> dbs = new ArrayList<>();
    for (int p = 0; p < partitionCount; p++) {
      int n = random.nextInt(5) == 0 ? 0 : random.nextInt(random.nextBoolean() ? 40 : 400);
      List<Document> partition = new ArrayList<>();
      DatabaseBuilder builder =
          DatabaseBuilder.create(schema)
              .payloadCompression(
                  PayloadCompression.values()[random.nextInt(PayloadCompression.values().length)])
              .payloadBlockSize(1 + random.nextInt(2048))
              .autoBloomFilters(random.nextBoolean());
      for (Field f : schema.fields()) {
        if (f.role().isFilterable() && random.nextInt(3) == 0) {
          builder.bloomFilter(f.name());
        }
      }
      for (int i = 0; i < n; i++) {
        Document d = randomDocument(schema, values, random);
        partition.add(d);
        builder.add(d);
      }
      docs.add(partition);
      byte[] bytes = builder.toByteArray();
      assertThat(builder.toByteArray()).as("deterministic bytes").isEqualTo(bytes);
      dbs.add(Database.fromBytes(bytes));
    }
    CompositeDatabase composite = CompositeDatabase.of(schema, dbs);
    ReferenceDatabase reference = new ReferenceDatabase(schema, docs);
    Map<Database, Integer> partitionOf = new IdentityHashMap<>();
    for (int p = 0; p < dbs.size(); p++) {
      partitionOf.put(dbs.get(p), p);
    }
    // Stored values and payloads.
    for (int p = 0; p < dbs.size(); p++) {
      Database db = dbs.get(p);
      for (int d = 0; d < docs.get(p).size(); d++) {
        Document doc = docs.get(p).get(d);
        assertThat(bytes(db.payload(d))).isEqualTo(doc.payload());
        for (Field f : schema.fields()) {
          if (f.role().isSortable()) {
            assertThat(db.sortableBytes(d, f.name())).isEqualTo(doc.values(f.name()).get(0));
          }
        }
      }
    }
    for (int q = 0; q < 10; q++) {
      Condition condition = randomCondition(schema, values, random, 0);
      List<Facet> facets = new ArrayList<>();
      List<Stats> stats = new ArrayList<>();
      for (Field f : schema.fields()) {
        if (f.role().isFilterable() && random.nextBoolean()) {
          facets.add(
              switch (random.nextInt(3)) {
                case 0 -> Facet.top(f.name(), random.nextInt(5));
                case 1 -> Facet.all(f.name());
                default ->
                    Facet.values(f.name(), List.of(values.next(f.type()), values.next(f.type())));
              });
        }
        if (f.role().isSortable() && random.nextBoolean()) {
          java.util.TreeMap<byte[], Object> bounds =
              new java.util.TreeMap<>(Arrays::compareUnsigned);
          int nb = random.nextInt(4);
          for (int i = 0; i < nb; i++) {
            Object v = values.next(f.type());
            bounds.put(f.type().encode(v), v);
          }
          stats.add(Stats.histogram(f.name(), new ArrayList<>(bounds.values())));
        }
      }
      for (int p = 0; p < dbs.size(); p++) {
        checkAggregation(
            dbs.get(p),
            new ReferenceDatabase(schema, List.of(docs.get(p))),
            schema,
            condition,
            facets,
            stats);
      }
      checkAggregation(composite, reference, schema, condition, facets, stats);
    }
    for (int q = 0; q < 40; q++) {
      Query query = randomQuery(schema, values, random);
      String what = "query " + query;
      for (int p = 0; p < dbs.size(); p++) {
        ReferenceDatabase single = new ReferenceDatabase(schema, List.of(docs.get(p)));
        assertThat(dbs.get(p).count(query)).as(what).isEqualTo(single.count(query));
        assertThat(run(dbs.get(p), query, Map.of(dbs.get(p), 0), Integer.MAX_VALUE))
            .as(what)
            .isEqualTo(single.execute(query));
      }
      assertThat(composite.count(query)).as(what).isEqualTo(reference.count(query));
      List<Hit> expected = reference.execute(query);
      assertThat(run(composite, query, partitionOf, Integer.MAX_VALUE))
          .as(what)
          .isEqualTo(expected);
      int stopAfter = random.nextInt(5);
      assertThat(run(composite, query, partitionOf, stopAfter))
          .as(what + " stopping after " + stopAfter)
          .isEqualTo(expected.subList(0, Math.min(stopAfter, expected.size())));
      var pool = java.util.concurrent.ForkJoinPool.commonPool();
      assertThat(composite.count(query, pool))
          .as(what + " parallel")
          .isEqualTo(reference.count(query));
      List<Hit> parallel = new ArrayList<>();
      composite.execute(
          query,
          (doc, db) -> {
            parallel.add(new Hit(partitionOf.get(db), doc));
            return parallel.size() < Math.max(1, stopAfter);
          },
          pool);
      assertThat(parallel)
          .as(what + " parallel stopping after " + stopAfter)
          .isEqualTo(expected.subList(0, Math.min(Math.max(1, stopAfter), expected.size())));
    }
  }

  static void checkAggregation(
      Searchable s,
      ReferenceDatabase reference,
      Schema schema,
      Condition condition,
      List<Facet> facets,
      List<Stats> stats) {
    Aggregation a = s.aggregate(condition, facets, stats);
    String what = "aggregate where " + condition + " facets " + facets + " stats " + stats;
    assertThat(a.count()).as(what).isEqualTo(reference.count(Query.where(condition)));
    for (int i = 0; i < facets.size(); i++) {
      FieldType type = schema.field(facets.get(i).field()).type();
      List<String> actual =
          a.facets().get(i).entries().stream()
              .map(e -> ReferenceDatabase.hex(type.encode(e.value())) + "=" + e.count())
              .toList();
      assertThat(actual).as(what).isEqualTo(reference.facet(condition, facets.get(i)));
    }
    for (int i = 0; i < stats.size(); i++) {
      FieldType type = schema.field(stats.get(i).field()).type();
      Aggregation.FieldStats fs = a.stats().get(i);
      String actual =
          fs.count()
              + " "
              + ReferenceDatabase.hex(fs.min() == null ? null : type.encode(fs.min()))
              + " "
              + ReferenceDatabase.hex(fs.max() == null ? null : type.encode(fs.max()))
              + " "
              + fs.buckets().toString().replace(" ", "").replace(",", ", ");
      assertThat(actual).as(what).isEqualTo(reference.stats(condition, stats.get(i)));
    }
  }

  static List<Hit> run(
      Searchable s, Query query, Map<Database, Integer> partitionOf, int stopAfter) {
    List<Hit> hits = new ArrayList<>();
    if (stopAfter == 0) {
      s.execute(query, (doc, db) -> false);
      return hits;
    }
    s.execute(
        query,
        (doc, db) -> {
          hits.add(new Hit(partitionOf.get(db), doc));
          return hits.size() < stopAfter;
        });
    return hits;
  }

  private static byte[] bytes(java.lang.foreign.MemorySegment s) {
    return s.toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
  }

  static Schema randomSchema(Random random) {
    Schema.Builder b = Schema.builder().version(random.nextInt(5));
    int n = 1 + random.nextInt(5);
    for (int i = 0; i < n; i++) {
      FieldType type = FieldType.values()[random.nextInt(FieldType.values().length)];
      FieldRole role = FieldRole.values()[random.nextInt(FieldRole.values().length)];
      b.field("f" + i + "_" + type.name().toLowerCase(), type, role);
    }
    return b.build();
  }

  static Document randomDocument(Schema schema, Values values, Random random) {
    return randomDocument(schema, values, random, 40);
  }

  /** A random document whose payload (if any) is shorter than {@code maxPayload} bytes. */
  static Document randomDocument(Schema schema, Values values, Random random, int maxPayload) {
    Document.Builder b = Document.builder(schema);
    fill(b, values, random, maxPayload);
    return b.build();
  }

  /**
   * Adds a random document's values and payload to an empty builder: its fields in schema order, or
   * one time in four in a random order (mappers add values as their records list them).
   */
  static void fill(Document.Builder b, Values values, Random random, int maxPayload) {
    List<Field> fields = new ArrayList<>(b.schema().fields());
    if (random.nextInt(4) == 0) {
      Collections.shuffle(fields, random);
    }
    for (Field f : fields) {
      if (f.role().isSortable()) {
        b.add(f.name(), values.next(f.type()));
      } else {
        int count =
            random.nextInt(4) == 0 ? 0 : 1 + (random.nextInt(3) == 0 ? random.nextInt(4) : 0);
        for (int i = 0; i < count; i++) {
          b.add(f.name(), values.next(f.type()));
        }
      }
    }
    if (random.nextInt(3) > 0) {
      byte[] payload = new byte[random.nextInt(maxPayload)];
      if (random.nextBoolean()) {
        random.nextBytes(payload);
      } else {
        for (int i = 0; i < payload.length; i++) {
          payload[i] = (byte) ('a' + i % 3); // compressible
        }
      }
      b.payload(payload);
    }
  }

  static Query randomQuery(Schema schema, Values values, Random random) {
    Query q = Query.where(randomCondition(schema, values, random, 0));
    List<Field> sortable = schema.fields().stream().filter(f -> f.role().isSortable()).toList();
    if (!sortable.isEmpty() && random.nextInt(3) > 0) {
      List<Order> orders = new ArrayList<>();
      int n = 1 + random.nextInt(Math.min(3, sortable.size()));
      for (int i = 0; i < n; i++) {
        Field f = sortable.get(random.nextInt(sortable.size()));
        orders.add(random.nextBoolean() ? Order.asc(f.name()) : Order.desc(f.name()));
      }
      q = q.orderBy(orders);
    }
    if (random.nextBoolean()) {
      q = q.skip(random.nextInt(20));
    }
    if (random.nextBoolean()) {
      q = q.limit(random.nextInt(30));
    }
    return q;
  }

  static Condition randomCondition(Schema schema, Values values, Random random, int depth) {
    List<Field> filterable = schema.fields().stream().filter(f -> f.role().isFilterable()).toList();
    int kind = random.nextInt(depth >= 2 || filterable.isEmpty() ? 1 : 10);
    if (filterable.isEmpty()) {
      return Condition.all();
    }
    Field f = filterable.get(random.nextInt(filterable.size()));
    if (kind == 0 || depth >= 2) {
      kind = 1 + random.nextInt(6);
    }
    return switch (kind) {
      case 1 -> Condition.eq(f.name(), values.next(f.type()));
      case 2 -> {
        List<Object> in = new ArrayList<>();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          in.add(values.next(f.type()));
        }
        yield Condition.in(f.name(), in);
      }
      case 3 -> {
        Object a = values.next(f.type());
        Object b = values.next(f.type());
        if (Arrays.compareUnsigned(f.type().encode(a), f.type().encode(b)) > 0
            && random.nextBoolean()) {
          Object t = a;
          a = b;
          b = t;
        }
        yield Condition.between(f.name(), a, random.nextBoolean(), b, random.nextBoolean());
      }
      case 4 ->
          switch (random.nextInt(4)) {
            case 0 -> Condition.gt(f.name(), values.next(f.type()));
            case 1 -> Condition.gte(f.name(), values.next(f.type()));
            case 2 -> Condition.lt(f.name(), values.next(f.type()));
            default -> Condition.lte(f.name(), values.next(f.type()));
          };
      case 5 -> Condition.all();
      case 6 -> Condition.not(randomCondition(schema, values, random, depth + 1));
      case 7, 8 -> {
        List<Condition> children = new ArrayList<>();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          children.add(randomCondition(schema, values, random, depth + 1));
        }
        yield Condition.and(children);
      }
      default -> {
        List<Condition> children = new ArrayList<>();
        int n = random.nextInt(4);
        for (int i = 0; i < n; i++) {
          children.add(randomCondition(schema, values, random, depth + 1));
        }
        yield Condition.or(children);
      }
    };
  }

  /** Random values per type from small domains (duplicates) mixed with extremes. */
  static final class Values {
    private final Random random;
    private final int domain;

    Values(Random random) {
      this.random = random;
      this.domain = 1 + random.nextInt(random.nextBoolean() ? 5 : 500);
    }

    Object next(FieldType type) {
      boolean extreme = random.nextInt(10) == 0;
      int small = random.nextInt(domain) - domain / 2;
      return switch (type) {
        case INT -> extreme ? pick(Integer.MIN_VALUE, Integer.MAX_VALUE, 0, -1) : (Object) small;
        case LONG ->
            extreme ? pick(Long.MIN_VALUE, Long.MAX_VALUE, 0L, -1L) : (Object) (small * 1_000_003L);
        case DOUBLE ->
            extreme
                ? pick(
                    Double.NaN,
                    -0.0,
                    0.0,
                    Double.NEGATIVE_INFINITY,
                    Double.POSITIVE_INFINITY,
                    Double.MIN_VALUE,
                    -Double.MAX_VALUE)
                : (Object) (small / 4.0);
        case BOOLEAN -> random.nextBoolean();
        case STRING -> extreme ? pick("", "\u0000", "\uffff", "zzzz") : "s" + small;
        case TIMESTAMP ->
            extreme
                ? pick(
                    Instant.ofEpochMilli(Long.MIN_VALUE),
                    Instant.ofEpochMilli(Long.MAX_VALUE),
                    Instant.EPOCH)
                : Instant.ofEpochMilli(1_700_000_000_000L + small * 60_000L);
        case BYTES -> {
          if (extreme) {
            yield pick(new byte[0], new byte[] {(byte) 0xFF}, new byte[] {0, 0});
          }
          yield new byte[] {(byte) small, (byte) (small >> 8)};
        }
      };
    }

    @SafeVarargs
    private <T> T pick(T... options) {
      return options[random.nextInt(options.length)];
    }
  }
}
