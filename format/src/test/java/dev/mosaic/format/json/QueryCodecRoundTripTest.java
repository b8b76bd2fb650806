package dev.mosaic.format.json;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.Field;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random requests built with the Java DSL over every field type: encoding then decoding gives the
 * same request, and the decoded request finds exactly what the DSL-built one finds. Reproduce a
 * failure with {@code -Dtests.seed=<seed>}.
 */
class QueryCodecRoundTripTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  static final Schema SCHEMA =
      Schema.builder()
          .field("n", FieldType.INT, FieldRole.FULL)
          .field("l", FieldType.LONG, FieldRole.FULL)
          .field("d", FieldType.DOUBLE, FieldRole.FULL)
          .field("b", FieldType.BOOLEAN, FieldRole.FILTERABLE)
          .field("s", FieldType.STRING, FieldRole.FULL)
          .field("t", FieldType.TIMESTAMP, FieldRole.FULL)
          .field("x", FieldType.BYTES, FieldRole.FILTERABLE)
          .field("tags", FieldType.STRING, FieldRole.FILTERABLE)
          .field("rank", FieldType.LONG, FieldRole.SORTABLE)
          .build();

  private static final List<Field> FILTERABLE =
      SCHEMA.fields().stream().filter(f -> f.role().isFilterable()).toList();
  private static final List<Field> SORTABLE =
      SCHEMA.fields().stream().filter(f -> f.role().isSortable()).toList();

  @Test
  void encodingThenDecodingGivesTheSameSearchAndCount() {
    Random random = new Random(SEED);
    for (int i = 0; i < 2000; i++) {
      SearchRequest search = search(random);
      SearchRequest decoded =
          QueryCodec.decodeSearch(QueryCodec.encode(search), SCHEMA, RequestLimits.NONE);
      assertThat(comparable(decoded))
          .as("seed %d, request %d", SEED, i)
          .isEqualTo(comparable(search));
      CountRequest count =
          new CountRequest(search.query().condition(), search.facets(), search.stats());
      CountRequest decodedCount =
          QueryCodec.decodeCount(QueryCodec.encode(count), SCHEMA, RequestLimits.NONE);
      assertThat(comparable(decodedCount))
          .as("seed %d, count %d", SEED, i)
          .isEqualTo(comparable(count));
    }
  }

  @Test
  void aDecodedQueryFindsWhatTheSameQueryBuiltWithTheDslFinds() throws Exception {
    Random random = new Random(SEED);
    DatabaseBuilder builder = DatabaseBuilder.create(SCHEMA);
    for (int i = 0; i < 600; i++) {
      builder.add(document(random, i));
    }
    try (Database db = Database.fromBytes(builder.toByteArray())) {
      int nonEmpty = 0;
      for (int i = 0; i < 400; i++) {
        SearchRequest dsl = search(random);
        SearchRequest decoded =
            QueryCodec.decodeSearch(QueryCodec.encode(dsl), SCHEMA, RequestLimits.NONE);
        String why = "seed " + SEED + ", request " + new String(QueryCodec.encode(dsl));
        long count = db.count(dsl.query());
        assertThat(db.count(decoded.query())).as(why).isEqualTo(count);
        assertThat(hits(db, decoded.query())).as(why).isEqualTo(hits(db, dsl.query()));
        Condition c = dsl.query().condition();
        assertThat(
                db.aggregate(decoded.query().condition(), decoded.facets(), decoded.stats())
                    .count())
            .as(why)
            .isEqualTo(db.aggregate(c, dsl.facets(), dsl.stats()).count())
            .isEqualTo(count);
        nonEmpty += count > 0 ? 1 : 0;
      }
      // the generator must produce queries that find something, or the comparison proves little
      assertThat(nonEmpty).as("seed %d", SEED).isGreaterThan(100);
    }
  }

  private static List<Integer> hits(Database db, Query q) {
    List<Integer> out = new ArrayList<>();
    db.execute(q, (doc, part) -> out.add(doc));
    return out;
  }

  private static Document document(Random r, int i) {
    Document.Builder b =
        Document.builder(SCHEMA)
            .add("n", (Integer) value(r, FieldType.INT))
            .add("l", (Long) value(r, FieldType.LONG))
            .add("d", (Double) value(r, FieldType.DOUBLE))
            .add("b", r.nextBoolean())
            .add("s", (String) value(r, FieldType.STRING))
            .add("t", Instant.ofEpochMilli(r.nextInt(20) * 1000L))
            .add("x", (byte[]) value(r, FieldType.BYTES))
            .add("rank", (long) i);
    for (int k = r.nextInt(3); k > 0; k--) {
      b.add("tags", (String) value(r, FieldType.STRING));
    }
    return b.build();
  }

  /** A value of the type, drawn from a small domain so that conditions match some documents. */
  static Object value(Random r, FieldType type) {
    return switch (type) {
      case INT -> r.nextInt(10) - 3;
      case LONG -> r.nextInt(10) == 0 ? Long.MIN_VALUE : (long) r.nextInt(20) - 5;
      case DOUBLE ->
          switch (r.nextInt(8)) {
            case 0 -> -0.0;
            case 1 -> Double.NaN;
            case 2 -> Double.NEGATIVE_INFINITY;
            default -> (r.nextInt(20) - 10) / 4.0;
          };
      case BOOLEAN -> r.nextBoolean();
      case STRING -> List.of("", "a", "b", "été", "z\"q", "a\u0000b").get(r.nextInt(6));
      case TIMESTAMP ->
          r.nextBoolean()
              ? (Object) (r.nextInt(20) * 1000L)
              : Instant.ofEpochMilli(r.nextInt(20) * 1000L);
      case BYTES -> new byte[] {(byte) r.nextInt(3), (byte) (r.nextInt(2) * 255)};
    };
  }

  static Condition condition(Random r, int depth) {
    int kind = r.nextInt(depth > 2 ? 7 : 10);
    Field f = FILTERABLE.get(r.nextInt(FILTERABLE.size()));
    return switch (kind) {
      case 0 -> Condition.eq(f.name(), value(r, f.type()));
      case 1 -> {
        List<Object> values = new ArrayList<>();
        for (int i = r.nextInt(4); i > 0; i--) {
          values.add(value(r, f.type()));
        }
        yield Condition.in(f.name(), values);
      }
      case 2 -> Condition.gt(f.name(), value(r, f.type()));
      case 3 -> Condition.gte(f.name(), value(r, f.type()));
      case 4 -> Condition.lt(f.name(), value(r, f.type()));
      case 5 -> Condition.lte(f.name(), value(r, f.type()));
      case 6 ->
          Condition.between(
              f.name(), value(r, f.type()), r.nextBoolean(), value(r, f.type()), r.nextBoolean());
      case 7 -> Condition.and(conditions(r, depth));
      case 8 -> Condition.or(conditions(r, depth));
      default -> r.nextInt(4) == 0 ? Condition.all() : Condition.not(condition(r, depth + 1));
    };
  }

  private static List<Condition> conditions(Random r, int depth) {
    List<Condition> out = new ArrayList<>();
    for (int i = r.nextInt(4); i > 0; i--) {
      out.add(condition(r, depth + 1));
    }
    return out;
  }

  static SearchRequest search(Random r) {
    List<Field> sortable = new ArrayList<>(SORTABLE);
    Collections.shuffle(sortable, r);
    List<Order> orders = new ArrayList<>();
    for (Field f : sortable.subList(0, r.nextInt(3))) {
      orders.add(r.nextBoolean() ? Order.desc(f.name()) : Order.asc(f.name()));
    }
    Collections.shuffle(sortable, r);
    List<String> fields =
        sortable.subList(0, r.nextInt(sortable.size() + 1)).stream().map(Field::name).toList();
    List<Facet> facets = new ArrayList<>();
    for (int i = r.nextInt(3); i > 0; i--) {
      Field f = FILTERABLE.get(r.nextInt(FILTERABLE.size()));
      facets.add(
          switch (r.nextInt(3)) {
            case 0 -> Facet.top(f.name(), r.nextInt(20));
            case 1 -> Facet.all(f.name());
            default -> Facet.values(f.name(), List.of(value(r, f.type()), value(r, f.type())));
          });
    }
    List<Stats> stats = new ArrayList<>();
    for (int i = r.nextInt(3); i > 0; i--) {
      Field f = SORTABLE.get(r.nextInt(SORTABLE.size()));
      stats.add(r.nextBoolean() ? Stats.of(f.name()) : Stats.histogram(f.name(), bounds(r, f)));
    }
    Query q =
        Query.where(condition(r, 0))
            .orderBy(orders)
            .skip(r.nextInt(4) == 0 ? r.nextInt(50) : 0)
            .limit(r.nextInt(8) == 0 ? Query.UNLIMITED : r.nextInt(30));
    return new SearchRequest(q, fields, r.nextBoolean(), facets, stats, r.nextBoolean());
  }

  private static List<Object> bounds(Random r, Field f) {
    return switch (f.type()) {
      case INT -> List.of(-1, 2, 5);
      case LONG -> List.of(0L, (long) r.nextInt(10) + 1);
      case DOUBLE -> List.of(-1.5, 0.0, 2.25);
      case STRING -> List.of("a", "b");
      case TIMESTAMP -> List.of(Instant.ofEpochMilli(3000), Instant.ofEpochMilli(9000));
      default -> List.of();
    };
  }

  /** The request as a string in which byte arrays compare by content. */
  private static String comparable(Object request) {
    return String.valueOf(normalize(request));
  }

  private static Object normalize(Object v) {
    return switch (v) {
      case byte[] b -> ByteBuffer.wrap(b).toString() + java.util.HexFormat.of().formatHex(b);
      case SearchRequest s ->
          List.of(
              normalize(s.query()),
              s.fields(),
              s.payload(),
              normalize(s.facets()),
              normalize(s.stats()),
              s.explain());
      case CountRequest c ->
          List.of(normalize(c.condition()), normalize(c.facets()), normalize(c.stats()));
      case Query q -> List.of(normalize(q.condition()), q.orders(), q.skip(), q.limit());
      case Condition.Eq e -> List.of("eq", e.field(), normalize(e.value()));
      case Condition.In in -> List.of("in", in.field(), normalize(in.values()));
      case Condition.Range g ->
          List.of(
              "range",
              g.field(),
              normalize(g.from()),
              g.fromInclusive(),
              normalize(g.to()),
              g.toInclusive());
      case Condition.And a -> List.of("and", normalize(a.conditions()));
      case Condition.Or o -> List.of("or", normalize(o.conditions()));
      case Condition.Not n -> List.of("not", normalize(n.condition()));
      case Facet f -> List.of(f.field(), f.kind(), f.top(), normalize(f.values()));
      case Stats s -> List.of(s.field(), normalize(s.bounds()));
      case List<?> l -> l.stream().map(QueryCodecRoundTripTest::normalize).toList();
      case Double d -> "double:" + Double.doubleToRawLongBits(d);
      case null -> "null";
      default -> v.getClass().getSimpleName() + ":" + v;
    };
  }
}
