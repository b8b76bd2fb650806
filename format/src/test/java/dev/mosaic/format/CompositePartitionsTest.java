package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.ReferenceDatabase.Hit;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A composite reads its partitions directly: over engine partitions it answers like the reference
 * and hands the processor the partition object it was given, and a {@link Database} the format did
 * not open (a delegating wrapper, say) is refused with the partition named.
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
  void aDatabaseTheFormatDidNotOpenIsRefusedNamingThePartition() throws Exception {
    Database db = Database.fromBytes(CarsFixture.builder(0, 10).toByteArray());
    Wrapper wrapper = new Wrapper(db);
    assertThatThrownBy(() -> CompositeDatabase.of(CarsFixture.SCHEMA, List.of(db, wrapper)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition " + wrapper)
        .hasMessageContaining("not a database opened by the format");
    CompositeDatabase composite = CompositeDatabase.of(CarsFixture.SCHEMA, List.of(db));
    assertThatThrownBy(() -> composite.withPartitions(List.of(wrapper)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("not a database opened by the format");
  }

  private static int indexOf(List<Database> list, Database db) {
    for (int i = 0; i < list.size(); i++) {
      if (list.get(i) == db) {
        return i;
      }
    }
    return -1;
  }

  /** A database of another implementation: delegates everything, passing itself to processors. */
  record Wrapper(Database inner) implements Database {
    @Override
    public Schema schema() {
      return inner.schema();
    }

    @Override
    public long documentCount() {
      return inner.documentCount();
    }

    @Override
    public CompiledQuery compile(Query query, List<Facet> facets, List<Stats> stats) {
      return inner.compile(query, facets, stats);
    }

    @Override
    public long count(CompiledQuery query) {
      return inner.count(query);
    }

    @Override
    public void execute(CompiledQuery query, DocumentProcessor processor) {
      inner.execute(query, (doc, db) -> processor.process(doc, this));
    }

    @Override
    public Aggregation aggregate(CompiledQuery query) {
      return inner.aggregate(query);
    }

    @Override
    public Page page(CompiledQuery query) {
      throw new UnsupportedOperationException("not needed by the composite");
    }

    @Override
    public Explanation explain(CompiledQuery query) {
      return inner.explain(query);
    }

    @Override
    public MemorySegment payload(int document) {
      return inner.payload(document);
    }

    @Override
    public Object sortableValue(int document, String field) {
      return inner.sortableValue(document, field);
    }

    @Override
    public byte[] sortableBytes(int document, String field) {
      return inner.sortableBytes(document, field);
    }

    @Override
    public long sizeInBytes() {
      return inner.sizeInBytes();
    }

    @Override
    public int formatVersion() {
      return inner.formatVersion();
    }

    @Override
    public void close() {
      inner.close();
    }
  }
}
