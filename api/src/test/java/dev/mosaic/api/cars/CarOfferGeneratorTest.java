package dev.mosaic.api.cars;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldType;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class CarOfferGeneratorTest {
  private static final int N = 20_000;

  @Test
  void sameSeedGivesTheSameOffersAndAnotherSeedOthers() {
    List<CarOffer> a = CarOfferGenerator.builder().seed(42).build().next(2_000);
    List<CarOffer> b = CarOfferGenerator.builder().seed(42).build().next(2_000);
    List<CarOffer> c = CarOfferGenerator.builder().seed(43).build().next(2_000);

    assertThat(a).isEqualTo(b);
    assertThat(a).isNotEqualTo(c);
  }

  @Test
  void valuesAreWithinRealisticRanges() {
    List<CarOffer> offers = CarOfferGenerator.builder().seed(7).build().next(N);
    long now = java.time.Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();

    assertThat(offers)
        .allSatisfy(
            o -> {
              assertThat(o.getYear()).isBetween(2001, 2026);
              assertThat(o.getPriceRub()).isBetween(30_000L, 40_000_000L);
              assertThat(o.getPriceRub() % 5_000).isZero();
              assertThat(o.getMileageKm()).isBetween(0, 2_000_000);
              assertThat(o.getPublishedAtMillis()).isBetween(now - 61 * 86_400_000L, now);
              assertThat(o.getDescription().length()).isBetween(150, 800);
              assertThat(o.getImageUrlsCount()).isBetween(2, 12);
              assertThat(CarOfferGenerator.models(o.getMark())).contains(o.getModel());
              assertThat(CarOfferGenerator.regions()).contains(o.getRegion());
              assertThat(o.getDedupKey()).startsWith("car-");
            });
    double meanDescription =
        offers.stream().mapToInt(o -> o.getDescription().length()).average().orElseThrow();
    assertThat(meanDescription).isBetween(200.0, 500.0);
  }

  @Test
  void distributionsAreSkewedLikeClassifieds() {
    List<CarOffer> offers = CarOfferGenerator.builder().seed(7).build().next(N);
    Map<String, Long> regions = histogram(offers, CarOffer::getRegion);
    Map<String, Long> marks = histogram(offers, CarOffer::getMark);

    // The head region holds far more than a uniform share, the tail far less.
    assertThat(regions.get("moskva")).isGreaterThan(N / 8);
    assertThat(regions.getOrDefault("kaluzhskaya-oblast", 0L)).isLessThan(N / 80);
    assertThat(regions).hasSize(CarOfferGenerator.regions().size());
    assertThat(marks.get("lada")).isGreaterThan(marks.get("porsche") * 10);
    // Newer cars are more frequent than old ones, and old cars are cheaper within a mark.
    long recent = offers.stream().filter(o -> o.getYear() >= 2020).count();
    assertThat(recent).isGreaterThan(N / 3);
    double newLada = meanPrice(offers, "lada", 2024, 2026);
    double oldLada = meanPrice(offers, "lada", 2005, 2012);
    assertThat(newLada).isGreaterThan(oldLada * 2);
  }

  @Test
  void aShareOfOffersAreTheSameCarListedByAnotherPartner() {
    List<CarOffer> offers = CarOfferGenerator.builder().seed(9).duplicateShare(0.2).build().next(N);
    Map<String, List<CarOffer>> byKey =
        offers.stream().collect(Collectors.groupingBy(CarOffer::getDedupKey));
    long duplicates = offers.size() - byKey.size();

    assertThat((double) duplicates / N).isBetween(0.17, 0.23);
    for (List<CarOffer> same : byKey.values()) {
      CarOffer first = same.getFirst();
      assertThat(same)
          .allSatisfy(
              o -> {
                assertThat(o.getMark()).isEqualTo(first.getMark());
                assertThat(o.getModel()).isEqualTo(first.getModel());
                assertThat(o.getYear()).isEqualTo(first.getYear());
                assertThat(o.getColor()).isEqualTo(first.getColor());
              });
    }
    assertThat(byKey.values())
        .filteredOn(l -> l.size() == 2)
        .allSatisfy(l -> assertThat(l.get(0).getPartnerId()).isNotEqualTo(l.get(1).getPartnerId()));
    Set<String> ids = new HashSet<>();
    offers.forEach(o -> assertThat(ids.add(o.getOfferId())).as(o.getOfferId()).isTrue());
  }

  @Test
  void mutateChangesRemovesAndAddsTheRequestedShares() {
    CarOfferGenerator generator = CarOfferGenerator.builder().seed(11).build();
    List<CarOffer> before = generator.next(N);
    List<CarOffer> after = generator.mutate(before, 0.1, 0.05, 0.08);

    Map<String, CarOffer> old = new HashMap<>();
    before.forEach(o -> old.put(o.getOfferId(), o));
    long kept = after.stream().filter(o -> old.containsKey(o.getOfferId())).count();
    long changed =
        after.stream()
            .filter(o -> old.containsKey(o.getOfferId()) && !old.get(o.getOfferId()).equals(o))
            .count();
    long added = after.size() - kept;

    assertThat((double) (N - kept) / N).isBetween(0.04, 0.06);
    assertThat((double) changed / N).isBetween(0.08, 0.12);
    assertThat(added).isEqualTo(Math.round(0.08 * N));
    assertThat(after)
        .filteredOn(o -> old.containsKey(o.getOfferId()))
        .allSatisfy(
            o -> assertThat(o.getDedupKey()).isEqualTo(old.get(o.getOfferId()).getDedupKey()));
  }

  @Test
  void everyGeneratedOfferMapsToACarsDocument() {
    CarOfferGenerator generator = CarOfferGenerator.builder().seed(5).build();
    for (CarOffer car : generator.next(2_000)) {
      Document d = CarOffers.toDocument(car);
      assertThat(d.values(CarsSchema.PRICE))
          .containsExactly(FieldType.LONG.encode(car.getPriceRub()));
      assertThat(d.values(CarsSchema.PUBLISHED))
          .containsExactly(FieldType.TIMESTAMP.encode(car.getPublishedAtMillis()));
      assertThat(d.values(CarsSchema.OPTIONS)).hasSize(car.getOptionsCount());
      assertThat(d.values(CarsSchema.DEDUP_KEY))
          .containsExactly(FieldType.STRING.encode(car.getDedupKey()));
      assertThat(d.payload()).isEqualTo(car.toByteArray());
    }
  }

  @Test
  void snapshotsGroupOffersByPartner() {
    List<CarOffer> offers = CarOfferGenerator.builder().seed(3).partners(5).build().next(500);
    var snapshots = CarOffers.snapshotsByPartner(offers, 12, 1000L);

    assertThat(snapshots).hasSize(5);
    assertThat(snapshots.stream().mapToInt(s -> s.getOffersCount()).sum()).isEqualTo(500);
    assertThat(snapshots)
        .allSatisfy(
            s -> {
              assertThat(s.getSnapshotId()).isEqualTo(12);
              assertThat(s.getOffersList())
                  .allSatisfy(o -> assertThat(o.getPartnerId()).isEqualTo(s.getPartnerId()));
            });
  }

  private static Map<String, Long> histogram(
      List<CarOffer> offers, Function<CarOffer, String> key) {
    return offers.stream().collect(Collectors.groupingBy(key, Collectors.counting()));
  }

  private static double meanPrice(List<CarOffer> offers, String mark, int fromYear, int toYear) {
    return offers.stream()
        .filter(o -> o.getMark().equals(mark) && o.getYear() >= fromYear && o.getYear() <= toYear)
        .mapToLong(CarOffer::getPriceRub)
        .average()
        .orElseThrow();
  }
}
