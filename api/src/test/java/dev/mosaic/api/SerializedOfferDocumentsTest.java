package dev.mosaic.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import dev.mosaic.api.realty.RealtySchema;
import dev.mosaic.format.DatabaseUpdate;
import dev.mosaic.format.Document;
import dev.mosaic.format.Schema;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The wire-format mapping gives what parsing and {@link OfferDocuments} give, document for document
 * and error for error, against that simple reference.
 */
class SerializedOfferDocumentsTest {
  private static final long SEED = 0x5e71a1_1a7edL;

  @TempDir Path dir;

  /** The reference: parse, then map; the outcome as a comparable string. */
  private static String reference(Schema schema, byte[] bytes) {
    try {
      return describe(OfferDocuments.toDocument(schema, Offer.parseFrom(bytes)));
    } catch (Exception e) {
      return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  private static String fast(Schema schema, byte[] bytes) {
    try {
      return describe(SerializedOfferDocuments.toDocument(schema, bytes));
    } catch (Exception e) {
      return e.getClass().getSimpleName() + ": " + e.getMessage();
    }
  }

  /**
   * Maps each offer both ways a build can: {@link SerializedOfferDocuments#toDocument} (its
   * document added to one update) and {@link SerializedOfferDocuments#addTo} through one reused
   * builder (into another update). The two must refuse the same offers with the same error, and
   * write the same file.
   */
  private final class BothWays {
    private final Schema schema;
    private final DatabaseUpdate viaDocuments;
    private final DatabaseUpdate viaBuilder;
    private final Document.Builder scratch;
    private int documents;

    BothWays(Schema schema) {
      this.schema = schema;
      this.viaDocuments = DatabaseUpdate.fresh(schema).fsync(false);
      this.viaBuilder = DatabaseUpdate.fresh(schema).fsync(false);
      this.scratch = Document.builder(schema);
    }

    /** The offer's document or error, as {@link #fast}. */
    String map(byte[] bytes) {
      String outcome;
      try {
        Document d = SerializedOfferDocuments.toDocument(schema, bytes);
        viaDocuments.add(d);
        documents++;
        outcome = describe(d);
      } catch (Exception e) {
        outcome = e.getClass().getSimpleName() + ": " + e.getMessage();
      }
      try {
        SerializedOfferDocuments.addTo(viaBuilder, scratch, bytes);
        assertThat(outcome).as("added through the builder").doesNotContain("Exception");
      } catch (Exception e) {
        assertThat(e.getClass().getSimpleName() + ": " + e.getMessage()).isEqualTo(outcome);
      }
      return outcome;
    }

    void assertSameFiles() throws IOException {
      DatabaseUpdate.Summary a = viaDocuments.writeTo(dir.resolve("documents.mosaic"));
      DatabaseUpdate.Summary b = viaBuilder.writeTo(dir.resolve("builder.mosaic"));
      assertThat(b.documents()).isEqualTo(a.documents()).isEqualTo(documents);
      assertThat(Files.readAllBytes(b.output())).isEqualTo(Files.readAllBytes(a.output()));
    }
  }

  private static String describe(Document d) {
    StringBuilder s = new StringBuilder();
    for (int f = 0; f < d.schema().fields().size(); f++) {
      s.append(d.schema().fields().get(f).name()).append('=');
      for (byte[] v : d.values(f)) {
        s.append(java.util.HexFormat.of().formatHex(v)).append(',');
      }
      s.append(';');
    }
    return s.append("payload=").append(java.util.HexFormat.of().formatHex(d.payload())).toString();
  }

  @Test
  void generatedCarAndRealtyOffersMapToTheReferenceDocumentsWithTheirPayloadBytesAsTheyCame()
      throws IOException {
    BothWays carsBothWays = new BothWays(CarsSchema.SCHEMA);
    CarOfferGenerator cars = CarOfferGenerator.builder().seed(SEED).build();
    for (int i = 0; i < 2_000; i++) {
      CarOffer car = cars.next();
      byte[] bytes = CarOffers.toOffer(car, 1_700_000_000_000L + i).toByteArray();
      String expected = reference(CarsSchema.SCHEMA, bytes);
      assertThat(expected).startsWith("region=");
      assertThat(carsBothWays.map(bytes)).isEqualTo(expected);
    }
    carsBothWays.assertSameFiles();
    BothWays homesBothWays = new BothWays(RealtySchema.SCHEMA);
    RealtyOfferGenerator homes = RealtyOfferGenerator.seeded(SEED);
    for (int i = 0; i < 2_000; i++) {
      byte[] bytes = RealtyOffers.toOffer(homes.next(), 5L).toByteArray();
      String expected = reference(RealtySchema.SCHEMA, bytes);
      assertThat(expected).doesNotContain("Exception");
      assertThat(homesBothWays.map(bytes)).isEqualTo(expected);
    }
    Files.delete(dir.resolve("documents.mosaic"));
    Files.delete(dir.resolve("builder.mosaic"));
    homesBothWays.assertSameFiles();
  }

  @Test
  void damagedOffersGiveTheReferenceDocumentOrTheReferenceError() throws IOException {
    BothWays bothWays = new BothWays(CarsSchema.SCHEMA);
    Random random = new Random(SEED);
    CarOfferGenerator cars = CarOfferGenerator.builder().seed(SEED + 1).build();
    int errors = 0;
    int documents = 0;
    for (int i = 0; i < 20_000; i++) {
      byte[] bytes = CarOffers.toOffer(cars.next(), 7L).toByteArray();
      int damages = 1 + random.nextInt(3);
      for (int d = 0; d < damages; d++) {
        int at = random.nextInt(bytes.length);
        switch (random.nextInt(3)) {
          case 0 -> bytes[at] = (byte) random.nextInt(256);
          case 1 -> bytes[at] ^= (byte) (1 << random.nextInt(8));
          default -> bytes[at] = (byte) (bytes[at] + (random.nextBoolean() ? 1 : -1));
        }
      }
      String expected = reference(CarsSchema.SCHEMA, bytes);
      assertThat(bothWays.map(bytes)).as("offer %d", i).isEqualTo(expected);
      if (expected.contains("Exception")) {
        errors++;
      } else {
        documents++;
      }
    }
    assertThat(errors).isGreaterThan(1_000);
    assertThat(documents).isGreaterThan(1_000);
    bothWays.assertSameFiles();
  }

  @Test
  void aPayloadThatIsNotWhatProtobufWritesIsTheReserializedOne() throws IOException {
    CarOffer car = CarOfferGenerator.builder().seed(SEED).build().next();
    Offer offer = CarOffers.toOffer(car, 9L);
    List<byte[]> payloads = new ArrayList<>();
    // fields in reverse order
    payloads.add(carFields(car, true, false));
    // an explicit default (year 0) in the middle
    payloads.add(carFields(car, false, true));
    // a field that occurs twice (the last wins)
    payloads.add(concat(carFields(car, false, false), bytesOf(o -> o.writeString(1, "zaz"))));
    // a non-minimal varint for the year
    payloads.add(
        concat(
            bytesOf(o -> o.writeString(1, car.getMark())),
            new byte[] {3 << 3, (byte) 0x81, (byte) 0x80, 0}));
    // an unknown field
    payloads.add(concat(carFields(car, false, false), bytesOf(o -> o.writeInt64(99, 5))));
    for (byte[] payload : payloads) {
      byte[] bytes =
          concat(
              offer.toBuilder().clearPayload().build().toByteArray(),
              bytesOf(o -> o.writeByteArray(Offer.CAR_FIELD_NUMBER, payload)));
      String expected = reference(CarsSchema.SCHEMA, bytes);
      assertThat(expected).doesNotContain("Exception");
      assertThat(fast(CarsSchema.SCHEMA, bytes)).isEqualTo(expected);
    }
  }

  @Test
  void repeatedPayloadsOtherPayloadsAndForeignFieldsGiveTheReference() throws IOException {
    CarOffer car = CarOfferGenerator.builder().seed(SEED).build().next();
    Offer offer = CarOffers.toOffer(car, 9L);
    byte[] base = offer.toByteArray();
    List<byte[]> cases = new ArrayList<>();
    // the car twice: the parser merges the two
    cases.add(
        concat(
            base,
            bytesOf(
                o ->
                    o.writeByteArray(
                        Offer.CAR_FIELD_NUMBER,
                        CarOffer.newBuilder().setModel("x").build().toByteArray()))));
    // an Any of the schema's type, and of another one
    cases.add(offer.toBuilder().setOther(Any.pack(car)).build().toByteArray()); // replaces the car
    cases.add(
        offer.toBuilder()
            .setOther(Any.newBuilder().setTypeUrl("x/other.Type").setValue(ByteString.EMPTY))
            .build()
            .toByteArray());
    // no payload at all
    cases.add(offer.toBuilder().clearPayload().build().toByteArray());
    // an unknown top-level field, then a field value naming an unknown field
    cases.add(concat(base, bytesOf(o -> o.writeString(77, "later"))));
    cases.add(
        offer.toBuilder()
            .addFields(OfferDocuments.fieldValue("nope", dev.mosaic.format.FieldType.STRING, "x"))
            .build()
            .toByteArray());
    // a value of the wrong kind, and a second value of a FULL field
    cases.add(
        offer.toBuilder()
            .addFields(OfferDocuments.fieldValue("year", dev.mosaic.format.FieldType.LONG, 5L))
            .build()
            .toByteArray());
    cases.add(
        offer.toBuilder()
            .addFields(OfferDocuments.fieldValue("year", dev.mosaic.format.FieldType.INT, 5))
            .build()
            .toByteArray());
    for (byte[] bytes : cases) {
      assertThat(fast(CarsSchema.SCHEMA, bytes)).isEqualTo(reference(CarsSchema.SCHEMA, bytes));
    }
  }

  /**
   * Field values of every type (and now and then of another type than the field's), in offers
   * without a payload, whole or with a byte damaged: the reference document or error.
   */
  @Test
  void valuesOfEveryTypeWholeOrDamagedGiveTheReference() throws IOException {
    dev.mosaic.format.FieldType[] types = dev.mosaic.format.FieldType.values();
    Schema.Builder builder = Schema.builder();
    for (dev.mosaic.format.FieldType type : types) {
      builder.field(
          type.name().toLowerCase(java.util.Locale.ROOT),
          type,
          dev.mosaic.format.FieldRole.FILTERABLE);
    }
    Schema schema = builder.build();
    BothWays bothWays = new BothWays(schema);
    Random random = new Random(SEED + 7);
    int documents = 0;
    for (int trial = 0; trial < 10_000; trial++) {
      Offer.Builder offer =
          Offer.newBuilder().setPartnerId("p").setOfferId("o" + trial).setDedupKey("k");
      for (int n = random.nextInt(8); n > 0; n--) {
        dev.mosaic.format.FieldType field = types[random.nextInt(types.length)];
        dev.mosaic.format.FieldType kind =
            random.nextInt(10) == 0 ? types[random.nextInt(types.length)] : field;
        offer.addFields(
            OfferDocuments.fieldValue(
                field.name().toLowerCase(java.util.Locale.ROOT), kind, valueOf(kind, random)));
      }
      byte[] bytes = offer.build().toByteArray();
      if (trial % 2 == 1) {
        bytes[random.nextInt(bytes.length)] ^= (byte) (1 << random.nextInt(8));
      }
      String expected = reference(schema, bytes);
      assertThat(bothWays.map(bytes)).as("offer %d", trial).isEqualTo(expected);
      documents += expected.contains("Exception") ? 0 : 1;
    }
    assertThat(documents).isGreaterThan(5_000);
    bothWays.assertSameFiles();
  }

  private static Object valueOf(dev.mosaic.format.FieldType type, Random random) {
    return switch (type) {
      case INT -> random.nextBoolean() ? random.nextInt() : random.nextInt(3) - 1;
      case LONG, TIMESTAMP -> random.nextBoolean() ? random.nextLong() : (long) random.nextInt(3);
      case DOUBLE ->
          switch (random.nextInt(4)) {
            case 0 -> -0.0;
            case 1 -> Double.NaN;
            default -> random.nextGaussian() * 1e9;
          };
      case BOOLEAN -> random.nextBoolean();
      case STRING -> random.nextBoolean() ? "Москва-" + random.nextInt(9) : "s" + random.nextInt();
      case BYTES -> {
        byte[] b = new byte[random.nextInt(5)];
        random.nextBytes(b);
        yield b;
      }
    };
  }

  @FunctionalInterface
  private interface Writes {
    void to(CodedOutputStream out) throws IOException;
  }

  private static byte[] bytesOf(Writes writes) throws IOException {
    ByteArrayOutputStream b = new ByteArrayOutputStream();
    CodedOutputStream out = CodedOutputStream.newInstance(b);
    writes.to(out);
    out.flush();
    return b.toByteArray();
  }

  private static byte[] concat(byte[] a, byte[] b) {
    byte[] c = java.util.Arrays.copyOf(a, a.length + b.length);
    System.arraycopy(b, 0, c, a.length, b.length);
    return c;
  }

  /** A few of the car's fields, written by hand. */
  private static byte[] carFields(CarOffer car, boolean reversed, boolean explicitZero)
      throws IOException {
    return bytesOf(
        o -> {
          if (reversed) {
            o.writeString(2, car.getModel());
            o.writeString(1, car.getMark());
          } else {
            o.writeString(1, car.getMark());
            if (explicitZero) {
              o.writeInt32(3, 0);
            }
            o.writeString(2, car.getModel());
          }
        });
  }
}
