package dev.mosaic.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.RealtyOffer;
import java.util.List;
import org.junit.jupiter.api.Test;

class PackedListingsTest {

  @Test
  void carOffersAndRealtyListingsReadBackEqualAndInOrder() {
    MosaicConfig.Feed feed = MosaicConfig.withOverrides(java.util.Map.of()).feed;
    List<CarOffer> cars = SimulatedListings.cars(feed).generator().next(500);
    List<RealtyOffer> homes = SimulatedListings.realty(feed).generator().next(500);

    PackedListings<CarOffer> packedCars =
        PackedListings.of(cars, cars.getFirst().getParserForType());
    PackedListings<RealtyOffer> packedHomes =
        PackedListings.of(homes, homes.getFirst().getParserForType());

    assertThat(packedCars.size()).isEqualTo(500);
    assertThat(packedCars.unpack()).containsExactlyElementsOf(cars);
    assertThat(packedHomes.unpack()).containsExactlyElementsOf(homes);
  }

  @Test
  void anEmptyPartnerNeedsNoParser() {
    PackedListings<CarOffer> none = PackedListings.of(List.of(), null);
    assertThat(none.size()).isZero();
    assertThat(none.unpack()).isEmpty();
  }
}
