package dev.mosaic.api.cars;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.BaseListingGeneratorTestCase;
import dev.mosaic.api.ListingGenerator;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldType;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class CarOfferGeneratorTest extends BaseListingGeneratorTestCase<CarOffer> {
  @Override
  protected ListingGenerator<CarOffer> generator(long seed) {
    return CarOfferGenerator.builder().seed(seed).build();
  }

  @Override
  protected ListingGenerator<CarOffer> generatorWithDuplicateShare(long seed, double share) {
    return CarOfferGenerator.builder().seed(seed).duplicateShare(share).build();
  }

  @Override
  protected ListingGenerator<CarOffer> generatorWithPartners(long seed, int partners) {
    return CarOfferGenerator.builder().seed(seed).partners(partners).build();
  }

  @Override
  protected String offerId(CarOffer offer) {
    return offer.getOfferId();
  }

  @Override
  protected String dedupKey(CarOffer offer) {
    return offer.getDedupKey();
  }

  @Override
  protected String partnerId(CarOffer offer) {
    return offer.getPartnerId();
  }

  @Override
  protected List<Object> sameItemAttributes(CarOffer o) {
    return List.of(o.getMark(), o.getModel(), o.getYear(), o.getColor());
  }

  @Override
  protected List<FeedSnapshot> snapshotsByPartner(
      List<CarOffer> offers, long snapshotId, long createdAtMillis) {
    return CarOffers.snapshotsByPartner(offers, snapshotId, createdAtMillis);
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
