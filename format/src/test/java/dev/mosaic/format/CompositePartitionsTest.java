package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.ReferenceDatabase.Hit;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A composite reads its partitions directly: over engine partitions it answers like the reference
 * and hands the processor the partition object it was given; {@link Database} being sealed, every
 * partition is one the format opened.
 */
class CompositePartitionsTest {
  @Test
  void answersAsTheReferenceAndHandsProcessorsTheListedPartition() throws Exception {
    List<List<Document>> docs = new ArrayList<>();
    List<Database> partitions = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      List<Document> part = new ArrayList<>();
      DatabaseBuilder b = DatabaseBuilder.create(CarsFixture.SCHEMA);
      for (int i = p * 37; i < p * 37 + 37; i++) {
        part.add(CarsFixture.car(i));
        b.add(part.get(part.size() - 1));
      }
      docs.add(part);
      partitions.add(Database.fromBytes(b.toByteArray()));
    }
    CompositeDatabase composite = CompositeDatabase.of(CarsFixture.SCHEMA, partitions);
    ReferenceDatabase reference = new ReferenceDatabase(CarsFixture.SCHEMA, docs);
    List<Query> queries =
        List.of(
            Query.where(Condition.eq("mark", "bmw")).skip(5).limit(20),
            Query.where(Condition.gte("price", 20_000L)).orderBy(Order.desc("price")).limit(15),
            Query.all().orderBy(Order.asc("mark"), Order.desc("published")).skip(30).limit(40),
            Query.where(Condition.eq("region", "nowhere")).orderBy(Order.asc("price")));
    for (Query q : queries) {
      assertThat(composite.count(q)).as("%s", q).isEqualTo(reference.count(q));
      List<Hit> hits = new ArrayList<>();
      composite.execute(
          q,
          (doc, db) -> {
            assertThat(partitions).as("processor gets the listed partition").containsOnlyOnce(db);
            hits.add(new Hit(indexOf(partitions, db), doc));
            return true;
          });
      assertThat(hits).as("%s", q).isEqualTo(reference.execute(q));
    }
    Condition c = Condition.eq("region", "spb");
    List<Facet> facets = List.of(Facet.top("mark", 3), Facet.values("tags", List.of("even")));
    List<Stats> stats = List.of(Stats.histogram("price", List.of(10_000L, 30_000L)));
    Aggregation whole = composite.aggregate(c, facets, stats);
    assertThat(whole.count()).isEqualTo(reference.count(Query.where(c)));
    assertThat(whole.facets().get(1).entries().get(0).count())
        .as("the given value's count sums the partitions'")
        .isEqualTo(
            partitions.stream()
                .mapToLong(
                    p -> p.aggregate(c, facets, stats).facets().get(1).entries().get(0).count())
                .sum());
  }

  @Test
  void everyDatabaseIsOneTheFormatOpenedSoACompositeCanReadItDirectly() throws Exception {
    assertThat(Database.class.isSealed()).isTrue();
    assertThat(Database.class.getPermittedSubclasses())
        .allSatisfy(c -> assertThat(java.lang.reflect.Modifier.isFinal(c.getModifiers())).isTrue());
    Database db = Database.fromBytes(CarsFixture.builder(0, 10).toByteArray());
    assertThat(Database.class.getPermittedSubclasses()).contains(db.getClass());
    CompositeDatabase composite = CompositeDatabase.of(CarsFixture.SCHEMA, List.of(db));
    assertThat(composite.count(Query.all())).isEqualTo(10);
  }

  private static int indexOf(List<Database> list, Database db) {
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i) == db) {
        return i;
      }
    }
    return -1;
  }
}
