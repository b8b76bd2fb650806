package dev.mosaic.format.impl;

import static dev.mosaic.format.query.Condition.all;
import static dev.mosaic.format.query.Condition.eq;
import static dev.mosaic.format.query.Condition.lt;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.Aggregation;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Stats;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The execution choice and the memory bound of facet counting ({@link Aggregator}): the way is
 * chosen per partition and field from the partition's statistics, and the per-query scratch is
 * bounded by the distinct values of one partition, whatever the number of partitions.
 */
class AggregatorTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  /** {@code n}: FULL int (postings and document→value); {@code s}: FILTERABLE string only. */
  private static final Schema SCHEMA =
      Schema.builder()
          .field("n", FieldType.INT, FieldRole.FULL)
          .field("s", FieldType.STRING, FieldRole.FILTERABLE)
          .field("k", FieldType.INT, FieldRole.FILTERABLE)
          .build();

  private static final List<Facet> FACETS = List.of(Facet.all("n"), Facet.all("s"));

  /** A partition of {@code documents} documents: n = i % nValues, s = "s" + i % sValues, k = i. */
  private static PartitionSearcher partition(int documents, int nValues, int sValues, int offset)
      throws Exception {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    for (int i = 0; i < documents; i++) {
      b.add(
          Document.builder(SCHEMA)
              .add("n", offset + i % nValues)
              .add("s", "s" + (offset + i % sValues))
              .add("k", i)
              .build());
    }
    return PartitionSearcher.of(Database.fromBytes(b.toByteArray()));
  }

  private static Aggregator.Way[] waysOfOnePartition(PartitionSearcher db, Condition condition) {
    Aggregator a = new Aggregator(SCHEMA, condition, FACETS, List.of());
    a.add(db);
    List<Aggregator.Way> ways = new ArrayList<>();
    for (Aggregator.Way w : Aggregator.Way.values()) {
      for (int i = 0; i < a.countedWay(w); i++) {
        ways.add(w);
      }
    }
    return ways.toArray(Aggregator.Way[]::new);
  }

  @Test
  void eachPartitionAndFieldCountsTheWayItsStatisticsMakeCheaper() throws Exception {
    // 1000 documents, 500 distinct n (lists of 2 ids), 2 distinct s (bit sets of 16 words)
    PartitionSearcher many = partition(1000, 500, 2, 0);
    // every document matches: the stored counts, for both fields
    assertThat(waysOfOnePartition(many, all()))
        .containsExactly(Aggregator.Way.STORED_COUNTS, Aggregator.Way.STORED_COUNTS);
    // 10 matches against 1000 postings of n: document walk for n; s has no document→value, but
    // is single-valued: through the document→value derived from its postings
    assertThat(waysOfOnePartition(many, lt("k", 10)))
        .containsExactly(Aggregator.Way.DOCUMENT_WALK, Aggregator.Way.DERIVED_WALK);

    // 1000 documents, 2 distinct n: the value walk reads 2 × 16 filter words, fewer than 600
    // matches
    PartitionSearcher few = partition(1000, 2, 2, 0);
    assertThat(waysOfOnePartition(few, lt("k", 600)))
        .containsExactly(Aggregator.Way.VALUE_WALK, Aggregator.Way.VALUE_WALK);
    // but 20 matches are fewer still: document walk for n
    assertThat(waysOfOnePartition(few, lt("k", 20)))
        .containsExactly(Aggregator.Way.DOCUMENT_WALK, Aggregator.Way.DERIVED_WALK);

    // one query over both partitions chooses per partition
    Aggregator both = new Aggregator(SCHEMA, lt("k", 600), FACETS, List.of());
    both.add(many);
    both.add(few);
    assertThat(both.countedWay(Aggregator.Way.DOCUMENT_WALK)).isEqualTo(1);
    assertThat(both.countedWay(Aggregator.Way.VALUE_WALK)).isEqualTo(3);
    Aggregation result = both.result();
    assertThat(result.count()).isEqualTo(1200);
    assertThat(result.facets().get(0).entries()).hasSize(500);
    assertThat(result.facets().get(0).entries().get(0)).isEqualTo(new Aggregation.Entry(0, 302L));
    assertThat(result.facets().get(1).entries())
        .containsExactly(new Aggregation.Entry("s0", 600L), new Aggregation.Entry("s1", 600L));
  }

  @Test
  void theDerivedWalkOfAFieldWithoutDocumentToValueCountsAsTheReference() throws Exception {
    Random random = new Random(SEED);
    try {
      for (int round = 0; round < 20; round++) {
        int documents = 1 + random.nextInt(400);
        int sValues = 1 + random.nextInt(Math.min(documents, 120));
        PartitionSearcher db = partition(documents, 1 + random.nextInt(documents), sValues, 0);
        int below = random.nextInt(documents + 1);
        Aggregator a = new Aggregator(SCHEMA, lt("k", below), FACETS, List.of());
        a.add(db);
        Map<Object, Long> expected = new TreeMap<>();
        for (int i = 0; i < below; i++) {
          expected.merge("s" + (i % sValues), 1L, Long::sum);
        }
        Map<Object, Long> actual = new TreeMap<>();
        a.result().facets().get(1).entries().forEach(e -> actual.put(e.value(), e.count()));
        assertThat(actual).as("round " + round + ", k < " + below).isEqualTo(expected);
      }
      // few matches against many postings: the derived walk is the way taken
      Aggregator few = new Aggregator(SCHEMA, lt("k", 3), FACETS, List.of());
      few.add(partition(1000, 10, 40, 0));
      assertThat(few.countedWay(Aggregator.Way.DERIVED_WALK)).isEqualTo(1);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("failed with tests.seed=" + SEED + ": " + e.getMessage(), e);
    }
  }

  @Test
  void scratchIsBoundedByTheMostDistinctValuesOfOnePartitionNotByThePartitions() throws Exception {
    Random random = new Random(SEED);
    try {
      int partitions = 40 + random.nextInt(40);
      List<PartitionSearcher> readers = new ArrayList<>();
      int mostDistinct = 0;
      Map<Object, Long> expectedN = new TreeMap<>();
      long expectedCount = 0;
      for (int p = 0; p < partitions; p++) {
        int documents = 1 + random.nextInt(300);
        int nValues = 1 + random.nextInt(documents);
        int sValues = 1 + random.nextInt(documents);
        // disjoint values per partition: the composite has far more distinct values than any one
        PartitionSearcher db = partition(documents, nValues, sValues, p * 1000);
        readers.add(db);
        mostDistinct = Math.max(mostDistinct, Math.max(nValues, sValues));
        for (int i = 0; i < documents; i++) {
          if (i % 3 == 0) {
            expectedN.merge(p * 1000 + i % nValues, 1L, Long::sum);
            expectedCount++;
          }
        }
      }
      Condition condition = everyThirdDocument(300);
      Aggregator a = new Aggregator(SCHEMA, condition, FACETS, List.of(Stats.of("n")));
      for (PartitionSearcher db : readers) {
        a.add(db);
      }
      Aggregation result = a.result();
      assertThat(result.count()).isEqualTo(expectedCount);
      Map<Object, Long> actualN = new TreeMap<>();
      result.facets().get(0).entries().forEach(e -> actualN.put(e.value(), e.count()));
      assertThat(actualN).isEqualTo(expectedN);
      assertThat(result.facets().get(0).entries().size()).isGreaterThan(mostDistinct);
      assertThat(a.scratchLength()).isLessThanOrEqualTo(mostDistinct);
      assertThat(a.slotListLength()).isLessThanOrEqualTo(mostDistinct);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError("failed with tests.seed=" + SEED + ": " + e.getMessage(), e);
    }
  }

  @Test
  void partitionsWithTheSameValueSetReuseTheirSlotsAndStillCountCorrectly() throws Exception {
    // same values in the same order; then one with a value missing and one with a value added
    List<PartitionSearcher> readers =
        List.of(
            partition(100, 7, 5, 0),
            partition(90, 7, 5, 0),
            partition(80, 6, 4, 0),
            partition(70, 8, 6, 0),
            partition(60, 8, 6, 0));
    Aggregator a = new Aggregator(SCHEMA, everyThirdDocument(100), FACETS, List.of());
    Map<String, Long> expectedS = new TreeMap<>();
    int[][] shapes = {{100, 5}, {90, 5}, {80, 4}, {70, 6}, {60, 6}};
    for (int p = 0; p < readers.size(); p++) {
      a.add(readers.get(p));
      for (int i = 0; i < shapes[p][0]; i += 3) {
        expectedS.merge("s" + i % shapes[p][1], 1L, Long::sum);
      }
    }
    Map<String, Long> actualS = new TreeMap<>();
    a.result().facets().get(1).entries().forEach(e -> actualS.put((String) e.value(), e.count()));
    assertThat(actualS).isEqualTo(expectedS);
  }

  private static Condition everyThirdDocument(int documents) {
    List<Object> ks = new ArrayList<>();
    for (int k = 0; k < documents; k += 3) {
      ks.add(k);
    }
    return Condition.in("k", ks);
  }

  @Test
  void emptyAndUnmatchedPartitionsLeaveNoCounts() throws Exception {
    Aggregator a = new Aggregator(SCHEMA, eq("s", "absent"), FACETS, List.of(Stats.of("n")));
    a.add(partition(50, 5, 5, 0));
    Aggregation result = a.result();
    assertThat(result.count()).isZero();
    assertThat(result.facets().get(0).entries()).isEmpty();
    assertThat(result.stats().get(0).min()).isNull();
  }
}
