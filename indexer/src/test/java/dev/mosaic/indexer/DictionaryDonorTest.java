package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.SerializedOfferDocuments;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.DatabaseUpdate;
import dev.mosaic.format.Document;
import dev.mosaic.format.Schema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DictionaryDonorTest {
  @TempDir Path dir;

  private final CarOfferGenerator cars = CarOfferGenerator.builder().seed(7).build();

  private List<Document> documents(int count) throws Exception {
    List<Document> docs = new ArrayList<>();
    for (CarOffer car : cars.next(count)) {
      docs.add(
          SerializedOfferDocuments.toDocument(
              CarsSchema.SCHEMA, CarOffers.toOffer(car, 1L).toByteArray()));
    }
    return docs;
  }

  private Path built(String name, List<Document> docs) throws Exception {
    DatabaseBuilder b = DatabaseBuilder.create(CarsSchema.SCHEMA);
    docs.forEach(b::add);
    Path file = dir.resolve(name);
    b.writeTo(file);
    return file;
  }

  @Test
  void theFirstFullBuildLargeEnoughLendsItsDictionaryToLaterOnesOfItsSchema() throws Exception {
    DictionaryDonor donor = new DictionaryDonor();
    Schema schema = CarsSchema.SCHEMA;
    assertThat(donor.of(schema)).isNull();

    Path small = built("small.mosaic", documents(DictionaryDonor.MIN_DOCUMENTS - 1));
    donor.offer(schema, small, DictionaryDonor.MIN_DOCUMENTS - 1);
    assertThat(donor.of(schema)).as("too few documents to lend a dictionary").isNull();

    List<Document> firstDocs = documents(400);
    Path first = built("first.mosaic", firstDocs);
    donor.offer(schema, first, firstDocs.size());
    Files.delete(first); // the donor holds the bytes, not the file
    Database lent = donor.of(schema);
    assertThat(lent).isNotNull();
    assertThat(lent.documentCount()).isEqualTo(400);

    donor.offer(schema, built("second.mosaic", documents(400)), 400);
    assertThat(donor.of(schema)).as("the first donor stays").isSameAs(lent);

    // a full build with the donor is the builder's file with the first file's dictionary
    List<Document> later = documents(300);
    Path out = dir.resolve("later.mosaic");
    DatabaseUpdate update = DatabaseUpdate.fresh(schema).payloadDictionaryOf(lent);
    later.forEach(update::add);
    update.writeTo(out);
    DatabaseBuilder expected = DatabaseBuilder.create(schema).payloadDictionaryOf(lent);
    later.forEach(expected::add);
    assertThat(Files.readAllBytes(out)).isEqualTo(expected.toByteArray());

    Schema.Builder nextBuilder =
        Schema.builder().version(schema.version() + 1).payloadType(schema.payloadType());
    schema.fields().forEach(f -> nextBuilder.field(f.name(), f.type(), f.role()));
    Schema next = nextBuilder.build();
    assertThat(donor.of(next)).as("no donor for another schema version").isNull();
  }
}
