package dev.mosaic.format;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** A small classifieds-like database used by several tests. */
final class CarsFixture {
  static final Schema SCHEMA =
      Schema.builder()
          .version(3)
          .payloadType("test.Car")
          .field("region", FieldType.STRING, FieldRole.FILTERABLE)
          .field("mark", FieldType.STRING, FieldRole.FULL)
          .field("price", FieldType.LONG, FieldRole.FULL)
          .field("year", FieldType.INT, FieldRole.FILTERABLE)
          .field("published", FieldType.TIMESTAMP, FieldRole.SORTABLE)
          .field("tags", FieldType.STRING, FieldRole.FILTERABLE)
          .build();

  static final String[] REGIONS = {"msk", "spb", "ekb"};
  static final String[] MARKS = {"audi", "bmw", "ford", "lada"};

  private CarsFixture() {}

  /** Document i: region i%3, mark i%4, price 1000*(i%50), year 2000+i%20, published i minutes. */
  static Document car(int i) {
    Document.Builder b =
        Document.builder(SCHEMA)
            .add("region", REGIONS[i % 3])
            .add("mark", MARKS[i % 4])
            .add("price", 1000L * (i % 50))
            .add("year", 2000 + i % 20)
            .add("published", Instant.ofEpochSecond(60L * i))
            .payload(("car-" + i).getBytes(StandardCharsets.UTF_8));
    if (i % 2 == 0) {
      b.add("tags", "even");
    }
    if (i % 5 == 0) {
      b.add("tags", "five").add("tags", "five");
    }
    return b.build();
  }

  static DatabaseBuilder builder(int from, int to) {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    for (int i = from; i < to; i++) {
      b.add(car(i));
    }
    return b;
  }
}
