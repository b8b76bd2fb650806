package dev.mosaic.format;

import static dev.mosaic.format.query.Condition.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.Test;

/** The parallel composite path gives exactly the sequential results, over many partitions. */
class ParallelCompositeTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  record Hit(Database db, int doc) {}

  private static List<Hit> run(List<Hit> into, Query q, CompositeDatabase c, ExecutorService e) {
    DocumentProcessor p =
        (doc, db) -> {
          into.add(new Hit(db, doc));
          return true;
        };
    if (e == null) {
      c.execute(q, p);
    } else {
      c.execute(q, p, e);
    }
    return into;
  }

  @Test
  void parallelCountAndExecuteEqualTheSequentialPathOnRandomQueries() throws Exception {
    Random random = new Random(SEED);
    List<Database> partitions = new ArrayList<>();
    int next = 0;
    for (int p = 0; p < 150; p++) {
      int size = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(60);
      partitions.add(Database.fromBytes(CarsFixture.builder(next, next + size).toByteArray()));
      next += size;
    }
    CompositeDatabase composite = CompositeDatabase.of(CarsFixture.SCHEMA, partitions);
    try (ExecutorService pool = Executors.newFixedThreadPool(3)) {
      for (int round = 0; round < 200; round++) {
        Condition c =
            switch (random.nextInt(4)) {
              case 0 -> eq("mark", CarsFixture.MARKS[random.nextInt(4)]);
              case 1 -> lt("price", 1000L * random.nextInt(50));
              case 2 -> and(eq("tags", "even"), gte("year", 2000 + random.nextInt(20)));
              default -> all();
            };
        Query q = Query.where(c).skip(random.nextInt(3) == 0 ? random.nextInt(100) : 0);
        q = q.limit(random.nextBoolean() ? 1 + random.nextInt(20) : 1 + random.nextInt(5000));
        if (random.nextBoolean()) {
          q = q.orderBy(random.nextBoolean() ? Order.desc("price") : Order.asc("mark"));
        }
        String what = q + " seed " + SEED;
        assertThat(composite.count(q, pool)).as(what).isEqualTo(composite.count(q));
        assertThat(run(new ArrayList<>(), q, composite, pool))
            .as(what)
            .isEqualTo(run(new ArrayList<>(), q, composite, null));
      }
    }
  }
}
