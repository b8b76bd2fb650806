package dev.mosaic.deploy;

import dev.mosaic.api.ListingGenerator;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.api.realty.RealtyGeneratorSettings;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import java.util.Objects;

/**
 * What the {@link FeedSimulator} needs to know about one vertical's listings: a seeded generator,
 * how a listing becomes a feed {@link Offer}, and how a listing is re-listed by another partner.
 *
 * <p>Thread safety: as the generator (not thread safe); the simulator uses it from one thread.
 *
 * @param <T> the listing message (a {@code CarOffer}, a {@code RealtyOffer})
 * @param kind the vertical's name, {@code cars} or {@code realty}
 * @param generator the seeded generator of listings
 * @param partnerOf the partner listing it
 * @param toOffer the feed offer of a listing observed at a time
 * @param relist the same listing under another partner and offer id
 */
public record SimulatedListings<T>(
    String kind,
    ListingGenerator<T> generator,
    java.util.function.Function<T, String> partnerOf,
    java.util.function.BiFunction<T, Long, Offer> toOffer,
    Relist<T> relist) {

  /** Re-lists a listing under another partner and offer id. */
  @FunctionalInterface
  public interface Relist<T> {
    /** The listing as {@code partner} lists it under {@code offerId}. */
    T as(T listing, String partner, String offerId);
  }

  /** Checks the fields. */
  public SimulatedListings {
    Objects.requireNonNull(kind, "kind");
    Objects.requireNonNull(generator, "generator");
    Objects.requireNonNull(partnerOf, "partnerOf");
    Objects.requireNonNull(toOffer, "toOffer");
    Objects.requireNonNull(relist, "relist");
  }

  /** Car offers from a {@link CarOfferGenerator} of these feed settings. */
  public static SimulatedListings<CarOffer> cars(MosaicConfig.Feed settings) {
    return new SimulatedListings<>(
        "cars",
        CarOfferGenerator.builder()
            .seed(settings.seed)
            .partners(settings.partners)
            .duplicateShare(settings.duplicateShare)
            .build(),
        CarOffer::getPartnerId,
        CarOffers::toOffer,
        (o, partner, id) -> o.toBuilder().setPartnerId(partner).setOfferId(id).build());
  }

  /** Apartments and houses from a {@link RealtyOfferGenerator} of these feed settings. */
  public static SimulatedListings<RealtyOffer> realty(MosaicConfig.Feed settings) {
    return new SimulatedListings<>(
        "realty",
        new RealtyOfferGenerator(
            RealtyGeneratorSettings.DEFAULTS
                .withSeed(settings.seed)
                .withPartners(settings.partners)
                .withDuplicateShare(settings.duplicateShare)),
        RealtyOffer::getPartnerId,
        RealtyOffers::toOffer,
        (o, partner, id) -> o.toBuilder().setPartnerId(partner).setOfferId(id).build());
  }

  /**
   * The listings of a simulated vertical by name.
   *
   * @throws IllegalArgumentException for a name other than {@code cars} or {@code realty}
   */
  public static SimulatedListings<?> of(String kind, MosaicConfig.Feed settings) {
    return switch (kind) {
      case "cars" -> cars(settings);
      case "realty" -> realty(settings);
      default ->
          throw new IllegalArgumentException(
              "no simulated listings '" + kind + "' (there are: cars, realty)");
    };
  }
}
