package dev.mosaic.format;

import static dev.mosaic.format.query.Condition.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExplainTest {
  @Test
  void eachStepReportsTheCountOfItsOwnConditionPerPartition() throws Exception {
    List<Database> partitions =
        List.of(
            Database.fromBytes(CarsFixture.builder(0, 400).toByteArray()),
            Database.fromBytes(CarsFixture.builder(400, 1000).toByteArray()));
    CompositeDatabase composite = CompositeDatabase.of(CarsFixture.SCHEMA, partitions);
    Condition bmw = eq("mark", "bmw");
    Condition cheap = lt("price", 20_000L);
    Condition notEast = not(eq("region", CarsFixture.REGIONS[0]));
    Query query = Query.where(and(bmw, or(cheap, notEast))).orderBy(Order.desc("price")).limit(7);

    Explanation e = composite.explain(query);
    assertThat(e.matches()).isEqualTo(7);
    assertThat(e.children()).hasSize(3);
    long total = 0;
    for (int p = 0; p < 2; p++) {
      Database db = partitions.get(p);
      Explanation partition = e.children().get(p);
      assertThat(partition.step()).startsWith("partition " + p);
      Explanation and = partition.children().get(0);
      assertThat(and.step()).isEqualTo("and");
      assertThat(and.matches()).isEqualTo(db.count(query));
      assertThat(and.children().get(0).step()).isEqualTo("eq(mark = \"bmw\")");
      assertThat(and.children().get(0).matches()).isEqualTo(db.count(Query.where(bmw)));
      Explanation or = and.children().get(1);
      assertThat(or.children().get(0).matches()).isEqualTo(db.count(Query.where(cheap)));
      assertThat(or.children().get(1).step()).isEqualTo("not");
      assertThat(or.children().get(1).matches()).isEqualTo(db.count(Query.where(notEast)));
      assertThat(partition.children().get(1).matches()).isEqualTo(7);
      total += and.matches();
    }
    assertThat(e.step()).contains("matches " + total);
    assertThat(total).isEqualTo(composite.count(query));
    assertThat(e.toText()).contains("eq(mark = \"bmw\")  matches=");
  }
}
