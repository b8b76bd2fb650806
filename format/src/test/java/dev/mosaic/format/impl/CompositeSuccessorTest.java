package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.CompositeDictionaryTest.SCHEMA;
import static dev.mosaic.format.impl.CompositeDictionaryTest.condition;
import static dev.mosaic.format.impl.CompositeDictionaryTest.partition;
import static dev.mosaic.format.impl.CompositeDictionaryTest.run;
import static dev.mosaic.format.query.Condition.eq;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.Database;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * A composite made with {@code withPartitions} from its predecessor (inheriting the value
 * dictionaries and patching them for the partitions that changed) answers exactly as a composite
 * without dictionaries over the same partitions, over a chain of generations that replace, add,
 * remove and reorder partitions, and use only some fields between generations (so inherited
 * dictionaries are patched across several generations at once). Reproduce a failure with {@code
 * -Dtests.seed=<seed>}.
 */
class CompositeSuccessorTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  @Test
  void successorAnswersAsAFreshCompositeOverAChainOfReplacedPartitions() throws Exception {
    Random random = new Random(SEED);
    for (int round = 0; round < 4; round++) {
      long seed = random.nextLong();
      try {
        runChain(seed);
      } catch (AssertionError | Exception e) {
        throw new AssertionError(
            "failed with chain seed " + seed + " (tests.seed=" + SEED + ")", e);
      }
    }
  }

  private void runChain(long seed) throws Exception {
    Random random = new Random(seed);
    List<Database> partitions = new ArrayList<>();
    int count = 16 + random.nextInt(40);
    for (int p = 0; p < count; p++) {
      partitions.add(partition(random, p));
    }
    CompositeReader current = new CompositeReader(SCHEMA, partitions);
    int patches = 0;
    for (int generation = 0; generation < 12; generation++) {
      check(random, current, partitions, generation);
      patches += current.dictionaryPatches();
      partitions = new ArrayList<>(partitions);
      switch (random.nextInt(8)) {
        case 0 -> partitions.add(partition(random, 100 + generation)); // a new partition
        case 1 -> partitions.remove(partitions.size() - 1); // the last one gone
        case 2 -> Collections.swap(partitions, 0, partitions.size() - 1); // two moved
        case 3 -> { // many replaced: rebuilt rather than patched
          for (int p = 0; p < partitions.size(); p += 2) {
            partitions.set(p, partition(random, 200 + p));
          }
        }
        default -> { // one to three replaced in place, as a searcher's reopen does
          for (int n = 1 + random.nextInt(3); n > 0; n--) {
            int p = random.nextInt(partitions.size());
            partitions.set(p, partition(random, 300 + generation));
          }
        }
      }
      current = (CompositeReader) current.withPartitions(partitions);
    }
    check(random, current, partitions, 12);
    patches += current.dictionaryPatches();
    assertThat(patches).as("field dictionaries patched over the chain").isPositive();
  }

  /** Some queries (touching some fields only) on the successor and on a fresh composite. */
  private static void check(
      Random random, CompositeReader successor, List<Database> partitions, int generation) {
    CompositeReader fresh = new CompositeReader(SCHEMA, partitions, 0);
    Map<Database, Integer> partitionOf = new IdentityHashMap<>();
    for (int p = 0; p < partitions.size(); p++) {
      partitionOf.put(partitions.get(p), p);
    }
    int queries = random.nextInt(4) == 0 ? 0 : 1 + random.nextInt(8);
    for (int q = 0; q < queries; q++) {
      Condition c =
          random.nextBoolean() ? eq("color", "c" + random.nextInt(14)) : condition(random, 0);
      Query query = Query.where(c);
      if (random.nextBoolean()) {
        query = query.orderBy(Order.desc("year"), Order.asc("price")).limit(1 + random.nextInt(20));
      }
      String what = "generation " + generation + ", query " + query;
      assertThat(successor.count(query)).as(what).isEqualTo(fresh.count(query));
      assertThat(run(successor, query, partitionOf))
          .as(what)
          .isEqualTo(run(fresh, query, partitionOf));
      List<Facet> facets = List.of(Facet.all("color"), Facet.top("tag", 3));
      List<Stats> stats = List.of(Stats.of("price"));
      assertThat(successor.aggregate(c, facets, stats))
          .as("aggregate " + what)
          .isEqualTo(fresh.aggregate(c, facets, stats));
    }
  }
}
