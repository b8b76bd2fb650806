package dev.mosaic.api.schema;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import org.junit.jupiter.api.Test;

class DescriptorPayloadCheckTest {
  private static final PayloadCheck REALTY = PayloadCheck.against(BuiltInSchemas.realty());

  private static RealtyOffer flat() {
    return RealtyOfferGenerator.seeded(7).next();
  }

  /** The realty offer with these bytes appended to its payload, sent as an Any. */
  private static Offer withPayload(RealtyOffer realty, byte[] payload) {
    return RealtyOffers.toOffer(realty, 1L).toBuilder()
        .setOther(
            Any.newBuilder()
                .setTypeUrl("type.googleapis.com/mosaic.feed.v1.RealtyOffer")
                .setValue(ByteString.copyFrom(payload)))
        .build();
  }

  private static byte[] appended(RealtyOffer realty, Writer extra) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    realty.writeTo(out);
    CodedOutputStream coded = CodedOutputStream.newInstance(out);
    extra.write(coded);
    coded.flush();
    return out.toByteArray();
  }

  private interface Writer {
    void write(CodedOutputStream out) throws IOException;
  }

  @Test
  void aGeneratedRealtyOfferPassesTypedOrAsAnAny() throws Exception {
    RealtyOffer realty = flat();
    assertThat(REALTY.problem(RealtyOffers.toOffer(realty, 1L))).isNull();
    assertThat(REALTY.problem(withPayload(realty, realty.toByteArray()))).isNull();
  }

  @Test
  void aFieldNumberTheDescriptorDoesNotDeclareIsNamed() throws Exception {
    RealtyOffer realty = flat();
    Offer offer = withPayload(realty, appended(realty, out -> out.writeInt64(99, 5)));
    assertThat(REALTY.problem(offer))
        .isEqualTo(
            "offer '"
                + realty.getPartnerId()
                + "/"
                + realty.getOfferId()
                + "': payload mosaic.feed.v1.RealtyOffer: field number 99 (varint) is not declared"
                + " in mosaic.feed.v1.RealtyOffer (the descriptor set may be older than the feed)");
  }

  @Test
  void aDeclaredFieldInAnotherWireTypeNamesBoth() throws Exception {
    RealtyOffer realty = flat().toBuilder().clearRooms().build();
    Offer offer = withPayload(realty, appended(realty, out -> out.writeString(3, "three")));
    assertThat(REALTY.problem(offer))
        .endsWith(
            ": payload mosaic.feed.v1.RealtyOffer: field rooms (number 3, int32) arrived as"
                + " length-delimited, expected varint");
  }

  @Test
  void unknownFieldsInsideATypedPayloadAreFoundToo() throws Exception {
    RealtyOffer realty = flat();
    RealtyOffer withUnknown =
        RealtyOffer.parseFrom(appended(realty, out -> out.writeFixed32(40, 1)));
    Offer offer = RealtyOffers.toOffer(realty, 1L).toBuilder().setRealty(withUnknown).build();
    assertThat(REALTY.problem(offer)).contains("field number 40 (fixed32) is not declared");
  }

  @Test
  void aStringThatIsNotUtf8DoesNotParse() throws Exception {
    RealtyOffer realty = flat();
    byte[] bad = {(byte) 0xC3, (byte) 0x28};
    Offer offer = withPayload(realty, appended(realty, out -> out.writeByteArray(9, bad)));
    assertThat(REALTY.problem(offer))
        .contains(": payload mosaic.feed.v1.RealtyOffer does not parse: ")
        .contains("UTF-8");
  }

  @Test
  void aPayloadOfAnotherTypeOrNoneIsRefusedNamingTheExpectedType() {
    Offer car = CarOffers.toOffer(CarOfferGenerator.builder().seed(3).build().next(), 1L);
    assertThat(REALTY.problem(car))
        .endsWith(
            ": payload is a mosaic.feed.v1.CarOffer but schema expects a"
                + " mosaic.feed.v1.RealtyOffer");
    assertThat(REALTY.problem(car.toBuilder().clearPayload().build()))
        .endsWith(": no payload; schema expects a mosaic.feed.v1.RealtyOffer");
  }

  @Test
  void anUnknownFieldInANestedMessageIsNamedByItsPath() throws Exception {
    ProtoTypes types = ProtoTypes.parse(TestTypes.descriptorSet(), "item.desc");
    IndexSchema items =
        SchemaFileLoader.parse(
            "{\"name\": \"items\", \"version\": 1, \"payload\": \"test.v1.Item\", \"fields\": ["
                + "{\"name\": \"level\", \"type\": \"INT\", \"role\": \"SORTABLE\","
                + " \"from\": \"inner.level\"}]}",
            "items.schema.json",
            types);
    Descriptor item = types.message("test.v1.Item");
    Descriptor inner = types.message("test.v1.Inner");
    ByteArrayOutputStream innerBytes = new ByteArrayOutputStream();
    DynamicMessage.newBuilder(inner)
        .setField(inner.findFieldByName("level"), 2)
        .build()
        .writeTo(innerBytes);
    CodedOutputStream coded = CodedOutputStream.newInstance(innerBytes);
    coded.writeBool(17, true);
    coded.flush();
    byte[] payload =
        DynamicMessage.newBuilder(item)
            .addRepeatedField(
                item.findFieldByName("inners"), DynamicMessage.parseFrom(inner, new byte[0]))
            .addRepeatedField(
                item.findFieldByName("inners"),
                DynamicMessage.parseFrom(inner, innerBytes.toByteArray()))
            .build()
            .toByteArray();
    Offer offer =
        Offer.newBuilder()
            .setPartnerId("p")
            .setOfferId("o")
            .setDedupKey("d")
            .setOther(
                Any.newBuilder()
                    .setTypeUrl("type.googleapis.com/test.v1.Item")
                    .setValue(ByteString.copyFrom(payload)))
            .build();
    assertThat(PayloadCheck.against(items).problem(offer))
        .isEqualTo(
            "offer 'p/o': payload test.v1.Item: field number 17 of inners[1] (varint) is not"
                + " declared in test.v1.Inner (the descriptor set may be older than the feed)");
  }
}
