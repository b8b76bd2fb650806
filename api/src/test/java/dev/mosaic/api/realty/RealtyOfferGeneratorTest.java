package dev.mosaic.api.realty;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.BaseListingGeneratorTestCase;
import dev.mosaic.api.ListingGenerator;
import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.api.schema.BuiltInSchemas;
import dev.mosaic.api.schema.OfferDocumentMapper;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldType;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RealtyOfferGeneratorTest extends BaseListingGeneratorTestCase<RealtyOffer> {
  private static final List<RealtyOffer> OFFERS = RealtyOfferGenerator.seeded(7).next(N);

  @Override
  protected ListingGenerator<RealtyOffer> generator(long seed) {
    return RealtyOfferGenerator.seeded(seed);
  }

  @Override
  protected ListingGenerator<RealtyOffer> generatorWithDuplicateShare(long seed, double share) {
    return new RealtyOfferGenerator(
        RealtyGeneratorSettings.DEFAULTS.withSeed(seed).withDuplicateShare(share));
  }

  @Override
  protected ListingGenerator<RealtyOffer> generatorWithPartners(long seed, int partners) {
    return new RealtyOfferGenerator(
        RealtyGeneratorSettings.DEFAULTS.withSeed(seed).withPartners(partners));
  }

  @Override
  protected String offerId(RealtyOffer offer) {
    return offer.getOfferId();
  }

  @Override
  protected String dedupKey(RealtyOffer offer) {
    return offer.getDedupKey();
  }

  @Override
  protected String partnerId(RealtyOffer offer) {
    return offer.getPartnerId();
  }

  @Override
  protected List<Object> sameItemAttributes(RealtyOffer o) {
    return List.of(o.getAreaM2(), o.getDistrict(), o.getFloor(), o.getDealType());
  }

  @Override
  protected List<FeedSnapshot> snapshotsByPartner(
      List<RealtyOffer> offers, long snapshotId, long createdAtMillis) {
    return RealtyOffers.snapshotsByPartner(offers, snapshotId, createdAtMillis);
  }

  @Override
  protected double lowestChangedShare() {
    return 0.07;
  }

  @Test
  void valuesAreWithinRealisticRanges() {
    long now = Instant.parse("2026-11-01T00:00:00Z").toEpochMilli();
    assertThat(OFFERS)
        .allSatisfy(
            o -> {
              assertThat(o.getDealType()).isIn("sale", "rent");
              assertThat(o.getPropertyType()).isIn("apartment", "house");
              assertThat(RealtyOfferGenerator.districts(o.getCity())).contains(o.getDistrict());
              assertThat(o.getBuildingYear()).isBetween(1930, 2026);
              assertThat(o.getPublishedAtMillis()).isBetween(now - 61 * 86_400_000L, now);
              assertThat(o.getImageUrlsCount()).isBetween(3, 20);
              assertThat(RealtyOfferGenerator.features()).containsAll(o.getFeaturesList());
              assertThat(o.getDedupKey()).startsWith("realty-");
              assertThat(o.getPriceRub())
                  .isBetween(
                      o.getDealType().equals("rent") ? 8_000L : 500_000L,
                      o.getDealType().equals("rent") ? 3_000_000L : 2_000_000_000L);
              if (o.getPropertyType().equals("apartment")) {
                assertThat(o.getRooms()).isBetween(0, 5);
                assertThat(o.getAreaM2()).isBetween(12.0, 300.0);
                assertThat(o.getFloor()).isBetween(1, o.getFloorsTotal());
                assertThat(o.getFloorsTotal()).isBetween(4, 30);
                if (!o.getMetroStation().isEmpty()) {
                  assertThat(RealtyOfferGenerator.metroStations(o.getCity()))
                      .contains(o.getMetroStation());
                }
              } else {
                assertThat(o.getRooms()).isBetween(3, 8);
                assertThat(o.getFloor()).isZero();
                assertThat(o.getFloorsTotal()).isBetween(1, 3);
                assertThat(o.getMetroStation()).isEmpty();
              }
            });
  }

  @Test
  void distributionsAreSkewedLikeClassifieds() {
    Map<String, Long> cities = histogram(OFFERS, RealtyOffer::getCity);
    assertThat(cities.get("moskva")).isGreaterThan(N / 5);
    assertThat(cities.get("moskva")).isGreaterThan(cities.get("sochi") * 6);
    assertThat(share(o -> o.getPropertyType().equals("house"))).isBetween(0.09, 0.15);
    assertThat(share(o -> o.getDealType().equals("rent"))).isBetween(0.25, 0.35);
    // One- and two-room apartments are the most common.
    Map<Integer, Long> rooms =
        OFFERS.stream()
            .filter(o -> o.getPropertyType().equals("apartment"))
            .collect(Collectors.groupingBy(RealtyOffer::getRooms, Collectors.counting()));
    assertThat(rooms.get(1)).isGreaterThan(rooms.get(3)).isGreaterThan(rooms.get(5) * 5);
    assertThat(meanArea(3)).isGreaterThan(meanArea(1) * 1.6);
    // Metro cities: most apartments name a station; cities without a metro never do.
    assertThat(
            OFFERS.stream()
                .filter(
                    o -> o.getCity().equals("moskva") && o.getPropertyType().equals("apartment"))
                .filter(o -> !o.getMetroStation().isEmpty())
                .count())
        .isGreaterThan(cities.get("moskva") * 6 / 10);
    assertThat(OFFERS)
        .filteredOn(o -> o.getCity().equals("krasnodar"))
        .allMatch(o -> o.getMetroStation().isEmpty());
    // In Moscow, the centre costs more per m² than the outskirts, and Moscow more than Samara.
    double centre =
        salePerM2(o -> o.getCity().equals("moskva") && o.getDistrict().equals("tsentralnyy"));
    double outskirts =
        salePerM2(o -> o.getCity().equals("moskva") && o.getDistrict().equals("novomoskovskiy"));
    assertThat(centre).isGreaterThan(outskirts * 1.5);
    assertThat(salePerM2(o -> o.getCity().equals("moskva")))
        .isGreaterThan(salePerM2(o -> o.getCity().equals("samara")) * 2);
    // New builds lead, and rent is a small fraction of a sale price.
    assertThat(share(o -> o.getBuildingYear() >= 2011)).isGreaterThan(0.25);
    double rentPerM2 =
        OFFERS.stream()
            .filter(o -> o.getDealType().equals("rent") && o.getCity().equals("moskva"))
            .mapToDouble(o -> o.getPriceRub() / o.getAreaM2())
            .average()
            .orElseThrow();
    assertThat(rentPerM2).isBetween(0.002 * centre / 1.5, 0.01 * centre);
  }

  @Test
  void bothMappersGiveTheSameRealtyDocumentAndHousesHaveNoFloor() {
    OfferDocumentMapper generic = BuiltInSchemas.realty().documentMapper();
    for (RealtyOffer realty : OFFERS.subList(0, 5_000)) {
      Offer offer = RealtyOffers.toOffer(realty, 5L);
      Document fromPayload = generic.toDocument(offer);
      Document fromFields = OfferDocuments.toDocument(RealtySchema.SCHEMA, offer);
      assertThat(fromPayload.values(RealtySchema.PRICE))
          .containsExactly(FieldType.LONG.encode(realty.getPriceRub()));
      assertThat(fromPayload.values(RealtySchema.AREA))
          .containsExactly(FieldType.DOUBLE.encode(realty.getAreaM2()));
      assertThat(fromPayload.values(RealtySchema.FEATURES)).hasSize(realty.getFeaturesCount());
      assertThat(fromPayload.values(RealtySchema.FLOOR))
          .hasSize(realty.getPropertyType().equals("house") ? 0 : 1);
      for (var field : RealtySchema.SCHEMA.fields()) {
        assertThat(fromPayload.values(field.name()))
            .as(realty.getOfferId() + " " + field.name())
            .containsExactlyElementsOf(fromFields.values(field.name()));
      }
      assertThat(fromPayload.payload())
          .isEqualTo(realty.toByteArray())
          .isEqualTo(fromFields.payload());
    }
  }

  private static double share(Predicate<RealtyOffer> p) {
    return (double) OFFERS.stream().filter(p).count() / N;
  }

  private static double meanArea(int rooms) {
    return OFFERS.stream()
        .filter(o -> o.getPropertyType().equals("apartment") && o.getRooms() == rooms)
        .mapToDouble(RealtyOffer::getAreaM2)
        .average()
        .orElseThrow();
  }

  private static double salePerM2(Predicate<RealtyOffer> p) {
    return OFFERS.stream()
        .filter(o -> o.getDealType().equals("sale") && o.getPropertyType().equals("apartment"))
        .filter(p)
        .mapToDouble(o -> o.getPriceRub() / o.getAreaM2())
        .average()
        .orElseThrow();
  }

  private static <K> Map<K, Long> histogram(
      List<RealtyOffer> offers, java.util.function.Function<RealtyOffer, K> key) {
    return offers.stream().collect(Collectors.groupingBy(key, Collectors.counting()));
  }
}
