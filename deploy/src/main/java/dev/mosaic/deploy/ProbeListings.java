package dev.mosaic.deploy;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * The freshness probe partner's listings of one vertical: {@code offers} listings with distinct
 * offer ids ({@code probe-<i>}) and dedup keys, each sold at a price the probe sets.
 *
 * <p>Thread safety: immutable.
 *
 * @param kind the vertical, {@code cars} or {@code realty}
 * @param size how many listings
 * @param priced the feed offer of listing {@code i} at a price, observed at a time
 */
record ProbeListings(String kind, int size, Priced priced) {
  /** The verticals the probe can list. */
  static final Set<String> KINDS = Set.of("cars", "realty");

  /** One listing at a price. */
  @FunctionalInterface
  interface Priced {
    /** Listing {@code i} at {@code price}, as a feed offer observed at {@code observedAtMillis}. */
    Offer offer(int i, long price, long observedAtMillis);
  }

  /**
   * The probe's listings of a vertical.
   *
   * @throws IllegalArgumentException for a vertical other than {@link #KINDS}
   */
  static ProbeListings of(String kind, int offers, String partner) {
    return switch (kind) {
      case "cars" -> {
        List<CarOffer> cars = new ArrayList<>();
        CarOfferGenerator generator =
            CarOfferGenerator.builder().seed(42).partners(1).duplicateShare(0).build();
        for (int i = 0; i < offers; i++) {
          cars.add(
              generator.next().toBuilder()
                  .setPartnerId(partner)
                  .setOfferId(partner + "-" + i)
                  .setDedupKey("probe-car-" + i)
                  .build());
        }
        yield new ProbeListings(
            kind,
            offers,
            (i, price, at) ->
                CarOffers.toOffer(cars.get(i).toBuilder().setPriceRub(price).build(), at));
      }
      case "realty" -> {
        List<RealtyOffer> homes = new ArrayList<>();
        RealtyOfferGenerator generator = RealtyOfferGenerator.seeded(42);
        for (RealtyOffer home : generator.next(offers)) {
          int i = homes.size();
          homes.add(
              home.toBuilder()
                  .setPartnerId(partner)
                  .setOfferId(partner + "-" + i)
                  .setDedupKey("probe-home-" + i)
                  .build());
        }
        yield new ProbeListings(
            kind,
            offers,
            (i, price, at) ->
                RealtyOffers.toOffer(homes.get(i).toBuilder().setPriceRub(price).build(), at));
      }
      default ->
          throw new IllegalArgumentException(
              "the freshness probe lists no '" + kind + "' offers (it lists: cars, realty)");
    };
  }
}
