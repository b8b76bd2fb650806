package dev.mosaic.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.OfferPartitioning;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.feed.CarOffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The load tool's reference against a brute-force count over the same offers, and the windows in
 * which a republished partition's old and new totals are right.
 */
class ReferenceCountsTest {
  private static final int DOCS = 3000;
  private static final int PARTITIONS = 16;

  private static List<List<CarOffer>> generated() {
    List<List<CarOffer>> byPartition = new ArrayList<>();
    for (int p = 0; p < PARTITIONS; p++) {
      byPartition.add(new ArrayList<>());
    }
    CarOfferGenerator g = CarOfferGenerator.builder().seed(1).build();
    for (int i = 0; i < DOCS; i++) {
      CarOffer c = g.next();
      byPartition.get(OfferPartitioning.partitionOf(c.getDedupKey(), PARTITIONS)).add(c);
    }
    return byPartition;
  }

  private static long count(List<List<CarOffer>> data, Set<String> marks, String body) {
    return data.stream()
        .flatMap(List::stream)
        .filter(c -> marks.contains(c.getMark()) && (body == null || body.equals(c.getBodyType())))
        .count();
  }

  @Test
  void totalsMatchABruteForceCountOfTheGeneratedStore() {
    ReferenceCounts ref = ReferenceCounts.ofGeneratedStore(DOCS, PARTITIONS, 1);
    List<List<CarOffer>> data = generated();
    long now = System.nanoTime();
    assertThat(ref.accepts(new ReferenceCounts.AllTotal(), DOCS, now, now)).isTrue();
    assertThat(ref.accepts(new ReferenceCounts.AllTotal(), DOCS - 1, now, now)).isFalse();
    for (String mark : CarOfferGenerator.marks().subList(0, 5)) {
      long expected = count(data, Set.of(mark), null);
      assertThat(ref.candidates(new ReferenceCounts.MarkTotal(mark), now, now))
          .containsExactly(expected);
    }
    Set<String> marks = Set.copyOf(CarOfferGenerator.marks().subList(0, 3));
    String body = CarOfferGenerator.bodyTypes().get(0);
    assertThat(ref.candidates(new ReferenceCounts.MarksBodyTotal(marks, body), now, now))
        .containsExactly(count(data, marks, body));
  }

  @Test
  void aReplacementIsRightFromItsSendingAndTheOldTotalUntilItIsServed() {
    ReferenceCounts ref = ReferenceCounts.ofGeneratedStore(DOCS, PARTITIONS, 1);
    List<List<CarOffer>> data = generated();
    ReferenceCounts.AllTotal all = new ReferenceCounts.AllTotal();
    List<CarOffer> fresh = CarOfferGenerator.builder().seed(9).build().next(500);
    long before = System.nanoTime();
    long sent = before + 10;
    ReferenceCounts.Replacement r = ref.replace(3, fresh, sent);
    long newTotal = DOCS - data.get(3).size() + 500;
    // before it was sent only the old total; while in flight both
    assertThat(ref.candidates(all, before, before + 5)).containsExactly((long) DOCS);
    assertThat(ref.accepts(all, newTotal, sent, sent + 100)).isTrue();
    assertThat(ref.accepts(all, DOCS, sent, sent + 100)).isTrue();
    // once served, a query starting later may only see the new total
    r.served(sent + 200);
    assertThat(ref.candidates(all, sent + 300, sent + 400)).containsExactly(newTotal);
    assertThat(ref.accepts(all, DOCS, sent + 300, sent + 400)).isFalse();
    // a query that ran across the switch may see either
    assertThat(ref.accepts(all, DOCS, sent + 150, sent + 250)).isTrue();

    // a refused replacement never happened
    ReferenceCounts.Replacement refused = ref.replace(5, List.of(), sent + 1000);
    refused.refused();
    assertThat(ref.candidates(all, sent + 2000, sent + 2000)).containsExactly(newTotal);
  }
}
