package dev.mosaic.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FieldValue;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class OfferDocumentsTest {
  private static final Schema SCHEMA =
      Schema.builder()
          .version(3)
          .payloadType(CarOffer.getDescriptor().getFullName())
          .field("tag", FieldType.STRING, FieldRole.FILTERABLE)
          .field("price", FieldType.LONG, FieldRole.FULL)
          .field("rating", FieldType.DOUBLE, FieldRole.SORTABLE)
          .field("used", FieldType.BOOLEAN, FieldRole.FILTERABLE)
          .field("year", FieldType.INT, FieldRole.FILTERABLE)
          .field("at", FieldType.TIMESTAMP, FieldRole.FILTERABLE)
          .field("raw", FieldType.BYTES, FieldRole.FILTERABLE)
          .build();

  private static final CarOffer CAR = CarOffer.newBuilder().setMark("lada").setYear(2020).build();

  private static Offer.Builder offer(FieldValue... values) {
    return Offer.newBuilder()
        .setPartnerId("p1")
        .setOfferId("o7")
        .setCar(CAR)
        .addFields(fv("price", FieldType.LONG, 100L))
        .addFields(fv("rating", FieldType.DOUBLE, 4.5))
        .addAllFields(List.of(values));
  }

  private static FieldValue fv(String name, FieldType type, Object value) {
    return OfferDocuments.fieldValue(name, type, value);
  }

  @Test
  void everyTypeMapsToItsComparableBytesAndThePayloadIsTheSerializedCar() {
    Offer o =
        offer(
                fv("tag", FieldType.STRING, "a"),
                fv("tag", FieldType.STRING, "b"),
                fv("used", FieldType.BOOLEAN, true),
                fv("year", FieldType.INT, 2020),
                fv("at", FieldType.TIMESTAMP, Instant.ofEpochMilli(5)),
                fv("raw", FieldType.BYTES, new byte[] {1, 2}))
            .build();

    Document d = OfferDocuments.toDocument(SCHEMA, o);

    assertThat(d.values("tag"))
        .containsExactly(FieldType.STRING.encode("a"), FieldType.STRING.encode("b"));
    assertThat(d.values("price")).containsExactly(FieldType.LONG.encode(100L));
    assertThat(d.values("rating")).containsExactly(FieldType.DOUBLE.encode(4.5));
    assertThat(d.values("used")).containsExactly(FieldType.BOOLEAN.encode(true));
    assertThat(d.values("year")).containsExactly(FieldType.INT.encode(2020));
    assertThat(d.values("at")).containsExactly(FieldType.TIMESTAMP.encode(5L));
    assertThat(d.values("raw")).containsExactly(new byte[] {1, 2});
    assertThat(d.payload()).isEqualTo(CAR.toByteArray());
  }

  @Test
  void unknownFieldIsRejectedNamingTheOfferAndTheField() {
    Offer o = offer(fv("colour", FieldType.STRING, "red")).build();

    assertThatThrownBy(() -> OfferDocuments.toDocument(SCHEMA, o))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("offer 'p1/o7': unknown field 'colour'")
        .hasMessageContaining("schema version 3");
  }

  @Test
  void valueOfTheWrongKindIsRejectedNamingFieldTypeAndKinds() {
    Offer o = offer(FieldValue.newBuilder().setName("year").setLongValue(2020L).build()).build();

    assertThatThrownBy(() -> OfferDocuments.toDocument(SCHEMA, o))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("offer 'p1/o7': field 'year' is INT and takes int_value, got long_value");
  }

  @Test
  void valueWithNothingSetIsRejected() {
    Offer o = offer(FieldValue.newBuilder().setName("tag").build()).build();

    assertThatThrownBy(() -> OfferDocuments.toDocument(SCHEMA, o))
        .hasMessage("offer 'p1/o7': field 'tag' is STRING and takes string_value, got no value");
  }

  @Test
  void missingSortableValueIsRejectedNamingTheField() {
    Offer o =
        Offer.newBuilder()
            .setPartnerId("p1")
            .setOfferId("o7")
            .setCar(CAR)
            .addFields(fv("rating", FieldType.DOUBLE, 1.0))
            .build();

    assertThatThrownBy(() -> OfferDocuments.toDocument(SCHEMA, o))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("offer 'p1/o7': field 'price'")
        .hasMessageContaining("needs a value");
  }

  @Test
  void repeatedSortableValueIsRejectedNamingTheField() {
    Offer o = offer(fv("price", FieldType.LONG, 5L)).build();

    assertThatThrownBy(() -> OfferDocuments.toDocument(SCHEMA, o))
        .hasMessageStartingWith("offer 'p1/o7': field 'price' is FULL")
        .hasMessageContaining("exactly one value");
  }

  @Test
  void missingPayloadIsRejectedWhenTheSchemaNamesAPayloadType() {
    Offer o = offer().clearCar().build();

    assertThatThrownBy(() -> OfferDocuments.toDocument(SCHEMA, o))
        .hasMessage("offer 'p1/o7': no payload; schema expects a mosaic.feed.v1.CarOffer");
  }

  @Test
  void payloadOfAnotherTypeIsRejected() {
    Schema other =
        Schema.builder()
            .payloadType("mosaic.feed.v1.FlatOffer")
            .field("price", FieldType.LONG, FieldRole.FILTERABLE)
            .build();
    Offer o = Offer.newBuilder().setPartnerId("p1").setOfferId("o7").setCar(CAR).build();

    assertThatThrownBy(() -> OfferDocuments.toDocument(other, o))
        .hasMessage(
            "offer 'p1/o7': payload is a mosaic.feed.v1.CarOffer but schema expects a"
                + " mosaic.feed.v1.FlatOffer");
  }

  @Test
  void opaqueSchemaTakesOffersWithoutPayload() {
    Schema opaque = Schema.builder().field("price", FieldType.LONG, FieldRole.FILTERABLE).build();
    Offer o = Offer.newBuilder().setOfferId("x").addFields(fv("price", FieldType.LONG, 1L)).build();

    assertThat(OfferDocuments.toDocument(opaque, o).payload()).isEmpty();
  }

  @Test
  void fieldValueRejectsAJavaValueThatDoesNotFitTheType() {
    assertThatThrownBy(() -> OfferDocuments.fieldValue("year", FieldType.INT, 2020L))
        .hasMessage("field 'year' is INT and takes a Integer, got Long (2020)");
    assertThat(OfferDocuments.fieldValue("raw", FieldType.BYTES, new byte[] {7}).getBytesValue())
        .isEqualTo(ByteString.copyFrom(new byte[] {7}));
  }
}
