package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.CompositeDictionaryTest.SCHEMA;
import static dev.mosaic.format.impl.CompositeDictionaryTest.condition;
import static dev.mosaic.format.impl.CompositeDictionaryTest.partition;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.CompiledQuery;
import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Hit;
import dev.mosaic.format.HitProcessor;
import dev.mosaic.format.Page;
import dev.mosaic.format.Schema;
import dev.mosaic.format.Searchable;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * A request is compiled once: the query API compiles each call's request exactly once (a faceted
 * page included), and a {@link CompiledQuery} serves count, execute, aggregate, page and explain
 * without compiling again, with the answers of the query API. Reproduce a failure with {@code
 * -Dtests.seed=<seed>}.
 */
class CompiledQueryTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  private static final List<Facet> FACETS = List.of(Facet.top("color", 3), Facet.all("tag"));
  private static final List<Stats> STATS = List.of(Stats.histogram("price", List.of(1000L, 3000L)));

  @Test
  void aFacetedPageCompilesItsRequestOnceOnEveryKindOfSearchable() throws Exception {
    Random random = new Random(SEED);
    for (Searchable s : searchables(random)) {
      for (int round = 0; round < 20; round++) {
        Query q = query(random);
        assertThat(compilations(() -> s.page(q, FACETS, STATS)))
            .as("faceted page of %s on %s (tests.seed=%d)", q, s, SEED)
            .isEqualTo(1);
        assertThat(compilations(() -> s.page(q)))
            .as("page of %s on %s (tests.seed=%d)", q, s, SEED)
            .isEqualTo(1);
        assertThat(compilations(() -> s.count(q))).isEqualTo(1);
        assertThat(compilations(() -> s.explain(q))).isEqualTo(1);
      }
    }
  }

  @Test
  void aCompiledRequestServesEveryCallWithoutCompilingAgainAndAnswersAsTheQueryApi()
      throws Exception {
    Random random = new Random(SEED);
    for (Searchable s : searchables(random)) {
      for (int round = 0; round < 20; round++) {
        Query q = query(random);
        CompiledQuery compiled = s.compile(q, FACETS, STATS);
        assertThat(compiled.query()).isEqualTo(q);
        assertThat(compiled.facets()).isEqualTo(FACETS);
        assertThat(compiled.stats()).isEqualTo(STATS);
        String as = q + " on " + s + " (tests.seed=" + SEED + ")";

        assertThat(compilations(() -> s.count(compiled))).as(as).isZero();
        assertThat(s.count(compiled)).as(as).isEqualTo(s.count(q));

        assertThat(compilations(() -> hits(s, compiled))).as(as).isZero();
        assertThat(hits(s, compiled)).as(as).isEqualTo(hits(s, s.compile(q)));
        List<Hit> viaQuery = new ArrayList<>();
        s.execute(q, (HitProcessor) (p, d, db) -> viaQuery.add(new Hit(p, d, db)));
        assertThat(hits(s, compiled)).as(as).isEqualTo(viaQuery);

        assertThat(compilations(() -> s.aggregate(compiled))).as(as).isZero();
        assertThat(s.aggregate(compiled))
            .as(as)
            .isEqualTo(s.aggregate(q.condition(), FACETS, STATS));

        assertThat(compilations(() -> s.page(compiled))).as(as).isZero();
        Page page = s.page(compiled);
        assertThat(page).as(as).isEqualTo(s.page(q, FACETS, STATS));
        assertThat(page.hits()).as(as).isEqualTo(viaQuery);

        assertThat(compilations(() -> s.explain(compiled))).as(as).isZero();
        assertThat(s.explain(compiled).matches()).as(as).isEqualTo(viaQuery.size());
      }
    }
  }

  @Test
  void aRequestCompiledForAnotherSchemaOrNotCompiledByTheFormatIsRefused() throws Exception {
    Database db = partition(new Random(SEED), 1);
    Schema other = Schema.builder().field("color", FieldType.STRING, FieldRole.FILTERABLE).build();
    DatabaseBuilder b = DatabaseBuilder.create(other);
    b.add(Document.builder(other).add("color", "red").build());
    Database foreign = Database.fromBytes(b.toByteArray());
    CompiledQuery elsewhere = foreign.compile(Query.all());
    CompositeDatabase composite = CompositeDatabase.of(SCHEMA, List.of(db));
    for (Searchable s : List.of(db, composite)) {
      assertThatThrownBy(() -> s.count(elsewhere))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("query compiled for schema");
      CompiledQuery handMade =
          new CompiledQuery() {
            @Override
            public Schema schema() {
              return SCHEMA;
            }

            @Override
            public Query query() {
              return Query.all();
            }

            @Override
            public List<Facet> facets() {
              return List.of();
            }

            @Override
            public List<Stats> stats() {
              return List.of();
            }
          };
      assertThatThrownBy(() -> s.page(handMade))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("not a query compiled by Searchable.compile");
    }
    assertThatThrownBy(() -> db.compile(Query.all(), List.of(), List.of(Stats.of("color"))))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'color' is FILTERABLE, not sortable");
  }

  private static List<Hit> hits(Searchable s, CompiledQuery compiled) {
    List<Hit> hits = new ArrayList<>();
    s.execute(compiled, (HitProcessor) (p, d, db) -> hits.add(new Hit(p, d, db)));
    return hits;
  }

  /** One partition, a composite with value dictionaries, and one without. */
  private static List<Searchable> searchables(Random random) throws Exception {
    List<Database> partitions = new ArrayList<>();
    for (int p = 0; p < 12; p++) {
      partitions.add(partition(random, p));
    }
    return List.of(
        partitions.get(0),
        new CompositeReader(SCHEMA, partitions),
        new CompositeReader(SCHEMA, partitions, 0));
  }

  private static Query query(Random random) {
    Condition c = random.nextInt(4) == 0 ? Condition.all() : condition(random, 0);
    Query q = Query.where(c).skip(random.nextInt(3)).limit(1 + random.nextInt(20));
    return switch (random.nextInt(3)) {
      case 0 -> q;
      case 1 -> q.orderBy(Order.desc("price"), Order.asc("year"));
      default -> q.orderBy(Order.asc("year"));
    };
  }

  /** Requests compiled on this thread while {@code call} ran. */
  private static long compilations(Supplier<?> call) {
    long before = Plan.compilationsOnThisThread();
    call.get();
    return Plan.compilationsOnThisThread() - before;
  }
}
