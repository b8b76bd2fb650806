package dev.mosaic.bench.freshness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.api.OfferPartitioning;
import dev.mosaic.api.feed.CarOffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ChangedOffersTest {

  @Test
  void searchesAskForWholePartitionsAndEveryChangedOfferOnce() {
    List<CarOffer> offers = Offers.changed(5000);
    ChangedOffers changed = ChangedOffers.of(offers, 64);
    assertThat(changed.offers()).isEqualTo(5000);
    assertThat(changed.partitions()).hasSize(64);

    List<ChangedOffers.Search> searches = changed.searches(changed.partitions(), Offers.JSON);

    Map<String, CarOffer> byId =
        offers.stream().collect(Collectors.toMap(CarOffer::getOfferId, Function.identity()));
    Set<String> asked = new HashSet<>();
    Set<Integer> covered = new HashSet<>();
    for (ChangedOffers.Search s : searches) {
      List<String> ids = Offers.idsOf(s.body());
      assertThat(ids).hasSizeLessThanOrEqualTo(ChangedOffers.IDS_PER_SEARCH);
      assertThat(s.body().path("limit").asInt()).isEqualTo(ids.size());
      assertThat(s.body().path("payload").asBoolean(true)).isFalse();
      assertThat(asked.addAll(ids)).isTrue();
      Set<Integer> partitionsOfIds =
          ids.stream()
              .map(id -> OfferPartitioning.partitionOf(byId.get(id).getDedupKey(), 64))
              .collect(Collectors.toSet());
      assertThat(partitionsOfIds).as("whole groups").isEqualTo(Set.copyOf(s.partitions()));
      assertThat(covered.addAll(s.partitions())).isTrue();
    }
    assertThat(asked).hasSize(5000);
    assertThat(covered).isEqualTo(changed.partitions());
    assertThat(searches).hasSizeBetween(5, 6);
  }

  @Test
  void aPartitionCountsOnlyWhenEveryChangedOfferShowsItsNewContent() {
    List<CarOffer> offers = Offers.changed(300);
    ChangedOffers changed = ChangedOffers.of(offers, 16);
    ChangedOffers.Search search = changed.searches(changed.partitions(), Offers.JSON).getFirst();
    assertThat(search.partitions()).hasSize(16);

    assertThat(changed.answered(search, Offers.answer(offers, 16, p -> true)))
        .containsExactlyInAnyOrderElementsOf(changed.partitions());
    assertThat(changed.answered(search, Offers.answer(offers, 16, p -> p != 3)))
        .doesNotContain(3)
        .hasSize(15);

    // one offer of partition 5 missing from the answer: partition 5 is not answered right
    List<CarOffer> missingOne = new ArrayList<>(offers);
    missingOne.remove(
        offers.stream()
            .filter(o -> OfferPartitioning.partitionOf(o.getDedupKey(), 16) == 5)
            .findFirst()
            .orElseThrow());
    assertThat(changed.answered(search, Offers.answer(missingOne, 16, p -> true)))
        .doesNotContain(5)
        .hasSize(15);
  }

  @Test
  void aStaleOfferCarryingAnotherOffersNewContentDoesNotPass() {
    List<CarOffer> offers = new ArrayList<>(Offers.changed(200));
    // two offers of one partition: a stale one showing the other's new content twice
    ChangedOffers changed = ChangedOffers.of(offers, 1);
    ChangedOffers.Search search = changed.searches(changed.partitions(), Offers.JSON).getFirst();
    List<CarOffer> shown = new ArrayList<>(offers);
    shown.set(0, offers.get(0).toBuilder().setMileageKm(offers.get(1).getMileageKm()).build());
    shown.set(0, shown.get(0).toBuilder().setPriceRub(offers.get(1).getPriceRub()).build());
    assertThat(changed.answered(search, Offers.answer(shown, 1, p -> true))).isEmpty();
  }

  @Test
  void badChangesAreRefusedNamingTheProblem() {
    List<CarOffer> twice = List.of(Offers.changed(1).get(0), Offers.changed(1).get(0));
    assertThatThrownBy(() -> ChangedOffers.of(twice, 8))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'partner-001-0' changed twice");
    assertThatThrownBy(() -> ChangedOffers.of(Offers.changed(1001), 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("partition 0 has 1001 changed offers, more than the 1000");
  }
}
