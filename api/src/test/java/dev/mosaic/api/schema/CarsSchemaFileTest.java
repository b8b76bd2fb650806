package dev.mosaic.api.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.util.JsonFormat;
import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.feed.RealtyOffer;
import org.junit.jupiter.api.Test;

class CarsSchemaFileTest {
  private final IndexSchema cars = BuiltInSchemas.cars();

  @Test
  void theCarsSchemaFileDeclaresExactlyTheCompiledCarsSchema() {
    assertThat(cars.name()).isEqualTo("cars");
    assertThat(cars.schema()).isEqualTo(CarsSchema.SCHEMA);
    assertThat(cars.payloadType().getFullName()).isEqualTo(CarOffer.getDescriptor().getFullName());
    assertThat(cars.sources()).extracting(FieldSource::path).contains("price_rub", "options");
  }

  @Test
  void theGenericMapperGivesTheSameDocumentsAsOfferDocumentsForGeneratedCars() {
    OfferDocumentMapper mapper = cars.documentMapper();
    for (long seed = 1; seed <= 4; seed++) {
      CarOfferGenerator generator =
          CarOfferGenerator.builder().seed(seed).partners(20).duplicateShare(0.2).build();
      for (CarOffer car : generator.next(2_500)) {
        Offer offer = CarOffers.toOffer(car, 17L);
        Documents.assertSame(
            mapper.toDocument(offer),
            OfferDocuments.toDocument(CarsSchema.SCHEMA, offer),
            "seed " + seed + " offer " + car.getOfferId());
      }
    }
  }

  @Test
  void theSchemaFileReadsTheSameFieldValuesAsCarOffers() {
    for (CarOffer car : CarOfferGenerator.builder().seed(12).build().next(1_000)) {
      assertThat(cars.fieldValues(car)).isEqualTo(CarOffers.fieldValues(car));
    }
    assertThatThrownBy(() -> cars.fieldValues(RealtyOffer.getDefaultInstance()))
        .hasMessage(
            "payload is a mosaic.feed.v1.RealtyOffer but schema expects a mosaic.feed.v1.CarOffer");
  }

  @Test
  void aCarPackedInAnyMapsLikeATypedCar() {
    CarOffer car = CarOfferGenerator.builder().seed(9).build().next();
    Offer typed = CarOffers.toOffer(car, 0L);
    Offer packed = typed.toBuilder().setOther(Any.pack(car)).build();
    assertThat(packed.hasCar()).isFalse();
    Documents.assertSame(
        cars.documentMapper().toDocument(packed), CarOffers.toDocument(car), "packed car");
  }

  @Test
  void offersWithoutTheSchemasPayloadAreRefusedNamingTheOffer() {
    OfferDocumentMapper mapper = cars.documentMapper();
    Offer none = Offer.newBuilder().setPartnerId("p1").setOfferId("o1").build();
    assertThatThrownBy(() -> mapper.toDocument(none))
        .hasMessage("offer 'p1/o1': no payload; schema expects a mosaic.feed.v1.CarOffer");
    Offer realty = none.toBuilder().setRealty(RealtyOffer.getDefaultInstance()).build();
    assertThatThrownBy(() -> mapper.toDocument(realty))
        .hasMessage(
            "offer 'p1/o1': payload is a mosaic.feed.v1.RealtyOffer but schema expects a"
                + " mosaic.feed.v1.CarOffer");
    Offer garbage =
        none.toBuilder()
            .setOther(
                Any.newBuilder()
                    .setTypeUrl("type.googleapis.com/mosaic.feed.v1.CarOffer")
                    .setValue(com.google.protobuf.ByteString.copyFrom(new byte[] {(byte) 0xff})))
            .build();
    assertThatThrownBy(() -> mapper.toDocument(garbage))
        .hasMessageStartingWith("offer 'p1/o1': payload is not a valid mosaic.feed.v1.CarOffer");
  }

  @Test
  void thePayloadRendersAsJsonThatParsesBackToTheSameCar() throws Exception {
    CarOffer car = CarOfferGenerator.builder().seed(3).build().next();
    String json = cars.payloadRenderer().toJson(car.toByteArray());
    assertThat(json).contains("\"price_rub\":\"" + car.getPriceRub() + "\"");
    CarOffer.Builder back = CarOffer.newBuilder();
    JsonFormat.parser().merge(json, back);
    assertThat(back.build()).isEqualTo(car);
  }
}
