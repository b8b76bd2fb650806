package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.CompositeDictionaryTest.SCHEMA;
import static dev.mosaic.format.impl.CompositeDictionaryTest.condition;
import static dev.mosaic.format.impl.CompositeDictionaryTest.partition;
import static dev.mosaic.format.impl.CompositeDictionaryTest.run;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.PartitionGroup;
import dev.mosaic.format.impl.CompositeDictionaryTest.Hit;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A composite that queries runs of partitions through merged {@link PartitionGroup}s answers
 * exactly as the ungrouped composite over the same partitions (counts, documents and their order
 * with paging, facets and stats, the parallel paths), over a chain of generations that replace
 * (mask), add, remove and reorder partitions after the groups were merged. Reproduce a failure with
 * {@code -Dtests.seed=<seed>}.
 */
class GroupedCompositeTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  @TempDir Path dir;

  private final List<AutoCloseable> opened = new ArrayList<>();
  private final ExecutorService executor = Executors.newFixedThreadPool(2);

  @AfterEach
  void close() throws Exception {
    executor.shutdownNow();
    for (AutoCloseable c : opened) {
      c.close();
    }
  }

  @Test
  void groupedCompositeAnswersAsTheUngroupedOneWhilePartitionsAreReplacedAfterTheMerge()
      throws Exception {
    Random random = new Random(SEED);
    for (int round = 0; round < 4; round++) {
      long seed = random.nextLong();
      try {
        runChain(seed, round);
      } catch (AssertionError | Exception e) {
        throw new AssertionError(
            "failed with chain seed " + seed + " (tests.seed=" + SEED + ")", e);
      }
    }
  }

  private void runChain(long seed, int round) throws Exception {
    Random random = new Random(seed);
    List<Database> partitions = new ArrayList<>();
    int count = 12 + random.nextInt(30);
    for (int p = 0; p < count; p++) {
      partitions.add(partition(random, p));
    }
    List<PartitionGroup> groups = mergeGroups(random, partitions, "r" + round);
    CompositeDatabase grouped = CompositeDatabase.grouped(SCHEMA, partitions, groups);
    assertThat(((CompositeReader) grouped).units())
        .as("units of a composite whose every partition is in a group of at least two")
        .isEqualTo(groups.size());
    for (int generation = 0; generation < 10; generation++) {
      check(random, grouped, partitions, generation);
      check(random, CompositeDatabase.grouped(SCHEMA, partitions, groups), partitions, generation);
      partitions = new ArrayList<>(partitions);
      switch (random.nextInt(8)) {
        case 0 -> partitions.add(partition(random, 100 + generation)); // a new partition
        case 1 -> partitions.remove(random.nextInt(partitions.size())); // one gone
        case 2 -> Collections.swap(partitions, 0, partitions.size() - 1); // two moved
        case 3 -> { // merged again: the next generation's groups
          groups = mergeGroups(random, partitions, "r" + round + "g" + generation);
        }
        default -> { // one to three replaced in place, as a searcher's reopen does
          for (int n = 1 + random.nextInt(3); n > 0; n--) {
            int p = random.nextInt(partitions.size());
            partitions.set(p, partition(random, 300 + generation));
          }
        }
      }
      grouped = grouped.withPartitions(partitions, groups);
    }
    check(random, grouped, partitions, 10);
  }

  @Test
  void aPartitionReplacedInsideAGroupPatchesTheInheritedDictionariesWhereTheUnitsMoved()
      throws Exception {
    Random random = new Random(SEED);
    List<Database> partitions = new ArrayList<>();
    for (int p = 0; p < 48; p++) {
      partitions.add(partition(random, p));
    }
    List<PartitionGroup> groups = new ArrayList<>();
    for (int from = 0; from < partitions.size(); from += 2) {
      PartitionGroup g =
          PartitionGroup.merge(
              partitions.subList(from, from + 2), dir.resolve("pair-" + from + ".mosaic"));
      opened.add(g);
      groups.add(g);
    }
    CompositeReader current = CompositeReader.grouped(SCHEMA, partitions, groups);
    for (int c = 0; c < 14; c++) {
      current.count(Query.where(Condition.eq("color", "c" + c))); // builds the dictionaries
    }
    int patches = 0;
    for (int generation = 0; generation < 6; generation++) {
      partitions = new ArrayList<>(partitions);
      // one member of a group replaced: the group's window splits, the units after it move
      int p = 2 * random.nextInt(partitions.size() / 2) + random.nextInt(2);
      partitions.set(p, partition(random, 300 + generation));
      current = (CompositeReader) current.withPartitions(partitions, groups);
      for (int c = 0; c < 14; c++) {
        current.count(Query.where(Condition.eq("color", "c" + c)));
      }
      patches += current.dictionaryPatches();
      check(random, current, partitions, "generation " + generation, executor);
    }
    assertThat(patches)
        .as("generations whose color dictionary was patched rather than built anew")
        .isEqualTo(6);
  }

  /** Consecutive runs of 1 to 9 partitions, each merged into a group file. */
  private List<PartitionGroup> mergeGroups(Random random, List<Database> partitions, String name)
      throws Exception {
    List<PartitionGroup> groups = new ArrayList<>();
    for (int from = 0; from < partitions.size(); ) {
      int to = Math.min(partitions.size(), from + 2 + random.nextInt(8));
      if (partitions.size() - to == 1) {
        to++; // no group of one at the end
      }
      PartitionGroup g =
          PartitionGroup.merge(
              partitions.subList(from, to), dir.resolve(name + "-" + from + ".mosaic"));
      opened.add(g);
      groups.add(g);
      from = to;
    }
    return groups;
  }

  /**
   * Queries of every path on the grouped composite and on an ungrouped one without dictionaries.
   */
  private void check(
      Random random, CompositeDatabase grouped, List<Database> partitions, int generation) {
    check(random, grouped, partitions, "generation " + generation, executor);
  }

  /**
   * Random queries of every path on {@code grouped} and on an ungrouped composite without
   * dictionaries over {@code partitions} (whose payloads are {partition, document id}).
   */
  static void check(
      Random random,
      CompositeDatabase grouped,
      List<Database> partitions,
      String context,
      java.util.concurrent.Executor executor) {
    CompositeReader plain = new CompositeReader(SCHEMA, partitions, 0);
    CompositeDatabase withDictionaries = CompositeDatabase.of(SCHEMA, partitions);
    assertThat(grouped.documentCount()).isEqualTo(plain.documentCount());
    assertThat(grouped.partitions()).isEqualTo(partitions);
    Map<Database, Integer> partitionOf = new IdentityHashMap<>();
    for (int p = 0; p < partitions.size(); p++) {
      partitionOf.put(partitions.get(p), p);
    }
    for (int q = 0; q < 8; q++) {
      Condition c = random.nextInt(5) == 0 ? Condition.all() : condition(random, 0);
      Query query = Query.where(c);
      if (random.nextBoolean()) {
        query =
            random.nextBoolean()
                ? query.orderBy(Order.desc("year"), Order.asc("price"))
                : query.orderBy(Order.asc("price"));
      }
      query = query.skip(random.nextInt(3) == 0 ? random.nextInt(60) : 0);
      query = query.limit(random.nextInt(4) == 0 ? 5000 : 1 + random.nextInt(25));
      String what = context + ", query " + query;
      long expected = plain.count(query);
      assertThat(grouped.count(query)).as("count " + what).isEqualTo(expected);
      assertThat(withDictionaries.count(query)).as("count " + what).isEqualTo(expected);
      assertThat(grouped.count(query, executor)).as("parallel count " + what).isEqualTo(expected);
      List<Hit> hits = run(plain, query, partitionOf);
      assertThat(hits(grouped, query, partitionOf)).as("execute " + what).isEqualTo(hits);
      assertThat(parallelHits(grouped, query, partitionOf, executor))
          .as("parallel execute " + what)
          .isEqualTo(hits);
      List<Facet> facets = List.of(Facet.all("color"), Facet.top("tag", 3));
      List<Stats> stats = List.of(Stats.of("price"));
      assertThat(grouped.aggregate(c, facets, stats))
          .as("aggregate " + what)
          .isEqualTo(plain.aggregate(c, facets, stats));
      assertThat(grouped.explain(query).matches()).as("explain " + what).isEqualTo(hits.size());
      dev.mosaic.format.Page page = grouped.page(query, facets, stats);
      assertThat(page.total()).as("page total " + what).isEqualTo(expected);
      assertThat(page.hits().stream().map(h -> new Hit(h.partition(), h.document())).toList())
          .as("page " + what)
          .isEqualTo(hits);
      assertThat(page.aggregation())
          .as("page aggregation " + what)
          .isEqualTo(plain.aggregate(c, facets, stats));
    }
  }

  private static List<Hit> hits(CompositeDatabase c, Query q, Map<Database, Integer> partitionOf) {
    List<Hit> hits = new ArrayList<>();
    c.execute(
        q,
        (doc, db) -> {
          assertThat(db.payloadBytes(doc)[1]).isEqualTo((byte) doc); // the partition's own id
          hits.add(new Hit(partitionOf.get(db), doc));
          return true;
        });
    return hits;
  }

  private static List<Hit> parallelHits(
      CompositeDatabase c,
      Query q,
      Map<Database, Integer> partitionOf,
      java.util.concurrent.Executor executor) {
    List<Hit> hits = new ArrayList<>();
    c.execute(
        q,
        (doc, db) -> {
          hits.add(new Hit(partitionOf.get(db), doc));
          return true;
        },
        executor);
    return hits;
  }

  @Test
  void aGroupWhoseMembersDoNotAddUpToTheMergedDatabaseIsRefused() throws Exception {
    Random random = new Random(SEED);
    Database a = partition(random, 1);
    Database b = partition(random, 2);
    while (b.documentCount() == 0) {
      b = partition(random, 2);
    }
    PartitionGroup g = PartitionGroup.merge(List.of(a, b), dir.resolve("ab.mosaic"));
    opened.add(g);
    assertThatThrownBy(() -> PartitionGroup.of(g.database(), List.of(a)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the members hold " + a.documentCount() + " documents");
    assertThatThrownBy(() -> PartitionGroup.of(g.database(), List.of(a, a)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("member 1")
        .hasMessageContaining("appears twice");
  }
}
