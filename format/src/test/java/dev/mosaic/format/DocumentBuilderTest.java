package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A built document holds every field's values in the order they were added, by name and index. */
class DocumentBuilderTest {
  private static final long SEED = 0xd0c_b01dL;

  private static final Schema SCHEMA =
      Schema.builder()
          .field("tags", FieldType.STRING, FieldRole.FILTERABLE)
          .field("year", FieldType.INT, FieldRole.FULL)
          .field("codes", FieldType.LONG, FieldRole.FILTERABLE)
          .field("price", FieldType.LONG, FieldRole.SORTABLE)
          .build();

  @Test
  void valuesComeBackInAddOrderByNameAndByIndexForRandomDocuments() {
    Random random = new Random(SEED);
    for (int trial = 0; trial < 2_000; trial++) {
      Map<String, List<byte[]>> expected = new LinkedHashMap<>();
      for (Field f : SCHEMA.fields()) {
        expected.put(f.name(), new ArrayList<>());
      }
      Document.Builder builder = Document.builder(SCHEMA);
      int year = random.nextInt(3000);
      long price = random.nextLong();
      List<Object[]> adds = new ArrayList<>();
      adds.add(new Object[] {"year", year});
      adds.add(new Object[] {"price", price});
      for (int i = random.nextInt(5); i > 0; i--) {
        adds.add(new Object[] {"tags", "t" + random.nextInt(4)});
      }
      for (int i = random.nextInt(4); i > 0; i--) {
        adds.add(new Object[] {"codes", (long) random.nextInt(10)});
      }
      java.util.Collections.shuffle(adds, random);
      for (Object[] add : adds) {
        String name = (String) add[0];
        builder.add(name, add[1]);
        expected.get(name).add(SCHEMA.field(name).type().encode(add[1]));
      }
      Document document = builder.payload(new byte[] {(byte) trial}).build();
      for (int i = 0; i < SCHEMA.fields().size(); i++) {
        String name = SCHEMA.fields().get(i).name();
        assertThat(document.values(name))
            .as("trial %d %s", trial, name)
            .hasSameSizeAs(expected.get(name));
        for (int v = 0; v < expected.get(name).size(); v++) {
          assertThat(document.values(name).get(v)).isEqualTo(expected.get(name).get(v));
          assertThat(document.values(i).get(v)).isEqualTo(expected.get(name).get(v));
        }
      }
      assertThat(document.payload()).containsExactly((byte) trial);
    }
  }

  @Test
  void anUnknownNameHasNoValuesAndCannotBeAdded() {
    Document document = Document.builder(SCHEMA).add("year", 1).add("price", 2L).build();
    assertThat(document.values("nope")).isEmpty();
    assertThat(document.values("tags")).isEmpty();
    assertThatThrownBy(() -> Document.builder(SCHEMA).add("nope", 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("unknown field 'nope'");
  }

  @Test
  void aSecondValueOfAFullFieldOrAMissingOneIsRefusedNamingTheField() {
    assertThatThrownBy(() -> Document.builder(SCHEMA).add("year", 1).add("year", 2))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'year' is FULL and takes exactly one value per document");
    assertThatThrownBy(() -> Document.builder(SCHEMA).add("year", 1).build())
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'price' is SORTABLE and needs a value in every document");
    assertThatThrownBy(() -> Document.builder(SCHEMA).add("year", "x"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'year'");
  }

  @Test
  void aBuiltDocumentDoesNotChangeWhenItsBuilderGoesOn() {
    Document.Builder builder = Document.builder(SCHEMA).add("year", 1).add("price", 2L);
    builder.add("tags", "a").add("tags", "b");
    Document first = builder.build();
    builder.add("tags", "c");
    Document second = builder.build();
    assertThat(first.values("tags")).hasSize(2);
    assertThat(second.values("tags")).hasSize(3);
  }

  @Test
  void aStringAddedAsItsUtf8BytesGivesTheDocumentOfTheDecodedString() {
    Random random = new Random(SEED + 1);
    String[] samples = {"", "a", "Москва", "日本語", "emoji \uD83D\uDE97", "x y z"};
    for (int trial = 0; trial < 500; trial++) {
      Document.Builder byString = Document.builder(SCHEMA).add("year", 1).add("price", 2L);
      Document.Builder byBytes = Document.builder(SCHEMA).add("year", 1).add("price", 2L);
      for (int n = random.nextInt(4); n > 0; n--) {
        String tag = samples[random.nextInt(samples.length)] + random.nextInt(3);
        byte[] utf8 = tag.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        // the bytes sit inside a larger array, as in a serialized message
        byte[] message = new byte[utf8.length + 7];
        System.arraycopy(utf8, 0, message, 3, utf8.length);
        byString.add("tags", tag);
        byBytes.addUtf8(SCHEMA.fieldIndex("tags"), message, 3, utf8.length);
      }
      Document a = byString.build();
      Document b = byBytes.build();
      assertThat(b.values("tags")).hasSameSizeAs(a.values("tags"));
      for (int v = 0; v < a.values("tags").size(); v++) {
        assertThat(b.values("tags").get(v)).isEqualTo(a.values("tags").get(v));
      }
    }
  }

  @Test
  void utf8BytesForAFieldThatIsNotAStringOrOutsideTheArrayAreRefused() {
    byte[] bytes = "2015".getBytes(java.nio.charset.StandardCharsets.UTF_8);
    assertThatThrownBy(
            () -> Document.builder(SCHEMA).addUtf8(SCHEMA.fieldIndex("year"), bytes, 0, 4))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'year': expected a INT value but got the UTF-8 bytes of a STRING");
    assertThatThrownBy(
            () -> Document.builder(SCHEMA).addUtf8(SCHEMA.fieldIndex("tags"), bytes, 2, 3))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }

  @Test
  void typedValuesGiveTheDocumentsOfTheirBoxedValuesAndOtherFieldsRefuseThem() {
    Schema schema =
        Schema.builder()
            .field("i", FieldType.INT, FieldRole.FILTERABLE)
            .field("l", FieldType.LONG, FieldRole.FILTERABLE)
            .field("t", FieldType.TIMESTAMP, FieldRole.FILTERABLE)
            .field("d", FieldType.DOUBLE, FieldRole.FILTERABLE)
            .field("b", FieldType.BOOLEAN, FieldRole.FILTERABLE)
            .build();
    Random random = new Random(SEED + 2);
    for (int trial = 0; trial < 2_000; trial++) {
      int i = random.nextInt(4) == 0 ? Integer.MIN_VALUE : random.nextInt();
      long l = random.nextBoolean() ? random.nextLong() : random.nextInt(100) - 50;
      long t = random.nextLong();
      double d =
          switch (random.nextInt(4)) {
            case 0 -> -0.0;
            case 1 -> Double.NEGATIVE_INFINITY;
            default -> random.nextGaussian() * 1e6;
          };
      boolean b = random.nextBoolean();
      Document typed =
          Document.builder(schema)
              .addInt(0, i)
              .addLong(1, l)
              .addLong(2, t)
              .addDouble(3, d)
              .addBoolean(4, b)
              .build();
      Document boxed =
          Document.builder(schema)
              .add(0, i)
              .add(1, l)
              .add(2, java.time.Instant.ofEpochMilli(t))
              .add(3, d)
              .add(4, b)
              .build();
      for (int f = 0; f < 5; f++) {
        assertThat(typed.value(f, 0))
            .as("trial %d field %d", trial, f)
            .isEqualTo(boxed.value(f, 0));
      }
    }
    assertThatThrownBy(() -> Document.builder(schema).addInt(1, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'l'")
        .hasMessageContaining("expected a LONG value but got an INT");
    assertThatThrownBy(() -> Document.builder(schema).addLong(0, 5))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'i'");
    assertThatThrownBy(() -> Document.builder(schema).addDouble(4, 1.0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'b'");
    assertThatThrownBy(() -> Document.builder(schema).addBoolean(3, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("field 'd'");
    assertThatThrownBy(() -> Document.builder(schema).addInt(5, 1))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
