package dev.mosaic.format;

import static dev.mosaic.format.query.Condition.and;
import static dev.mosaic.format.query.Condition.eq;
import static dev.mosaic.format.query.Condition.in;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Intersections driven by a rare value whose other parts are posting lists of fields without
 * document→value (each driver document is looked up in them): seeded random databases, every result
 * compared with {@link ReferenceDatabase}. Reproduce a failure with {@code -Dtests.seed=<seed>}.
 */
class ProbedIntersectionTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  @Test
  void intersectionsProbingPostingListsMatchTheReference() throws Exception {
    Random random = new Random(SEED);
    Schema schema =
        Schema.builder()
            .field("rare", FieldType.STRING, FieldRole.FILTERABLE)
            .field("common", FieldType.STRING, FieldRole.FILTERABLE)
            .field("wide", FieldType.STRING, FieldRole.FILTERABLE)
            .field("price", FieldType.LONG, FieldRole.FULL)
            .build();
    for (int round = 0; round < 4; round++) {
      int documents = 2_000 + random.nextInt(8_000);
      List<Document> docs = new ArrayList<>();
      DatabaseBuilder builder = DatabaseBuilder.create(schema);
      for (int i = 0; i < documents; i++) {
        int rare = random.nextInt(300);
        // correlated with the rare value half of the time, so intersections are often not empty
        int common = random.nextBoolean() ? rare % 40 : random.nextInt(40);
        Document d =
            Document.builder(schema)
                .add("rare", "r" + rare)
                .add("common", "c" + common)
                .add("wide", "w" + random.nextInt(4))
                .add("price", (long) random.nextInt(1_000))
                .build();
        docs.add(d);
        builder.add(d);
      }
      Database db = Database.fromBytes(builder.toByteArray());
      ReferenceDatabase reference = new ReferenceDatabase(schema, List.of(docs));
      for (int q = 0; q < 60; q++) {
        int rare = random.nextInt(300);
        String r = "r" + rare;
        String c = "c" + (random.nextBoolean() ? rare % 40 : random.nextInt(40));
        List<Condition> conditions =
            List.of(
                and(eq("rare", r), eq("common", c)),
                and(eq("common", c), eq("rare", r), eq("wide", "w" + random.nextInt(4))),
                and(eq("rare", r), in("common", List.of(c, "c" + random.nextInt(40), "c39"))),
                and(in("rare", List.of(r, "r" + random.nextInt(300))), eq("common", c)),
                and(
                    eq("rare", r),
                    eq("common", c),
                    Condition.between("price", 100L, true, 700L, true)));
        for (Condition condition : conditions) {
          Query unordered = Query.where(condition);
          assertThat(db.count(unordered))
              .as("%s (seed %d)", condition, SEED)
              .isEqualTo(reference.count(unordered));
          assertThat(RandomizedDatabaseTest.run(db, unordered, Map.of(db, 0), Integer.MAX_VALUE))
              .as("%s (seed %d)", condition, SEED)
              .isEqualTo(reference.execute(unordered));
          Query ordered = unordered.orderBy(Order.asc("price")).limit(10);
          assertThat(RandomizedDatabaseTest.run(db, ordered, Map.of(db, 0), Integer.MAX_VALUE))
              .as("%s (seed %d)", ordered, SEED)
              .isEqualTo(reference.execute(ordered));
        }
      }
    }
  }
}
