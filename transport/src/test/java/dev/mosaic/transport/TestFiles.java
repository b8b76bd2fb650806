package dev.mosaic.transport;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.partition.RejectedFileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;

/**
 * Partition files for transport tests: real databases written with the format's {@link
 * DatabaseBuilder} and checked with {@link Database#verify}, as a searcher's store does.
 */
final class TestFiles {
  /** Schema version 1 of a tiny offers schema. */
  static final Schema SCHEMA =
      Schema.builder()
          .version(1)
          .payloadType("test.Offer")
          .field("region", FieldType.STRING, FieldRole.FILTERABLE)
          .field("price", FieldType.LONG, FieldRole.FULL)
          .build();

  private TestFiles() {}

  /**
   * Writes a real partition file of about {@code approxSize} bytes: documents with random payloads
   * (incompressible, so the size is predictable), deterministic for a seed.
   */
  static Path partition(Path file, long approxSize, long seed) throws IOException {
    Files.createDirectories(file.getParent());
    Random random = new Random(seed);
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    int payload = 2048;
    long docs = Math.max(1, approxSize / payload);
    for (long i = 0; i < docs; i++) {
      byte[] bytes = new byte[payload];
      random.nextBytes(bytes);
      b.add(
          Document.builder(SCHEMA)
              .add("region", "r" + random.nextInt(8))
              .add("price", (long) random.nextInt(1_000_000))
              .payload(bytes)
              .build());
    }
    b.writeTo(file);
    return file;
  }

  /** The store's verification: the format reader checks structure and checksum. */
  static void verifyPartition(Path file) throws IOException {
    try {
      Schema schema = Database.verify(file);
      if (schema.version() != SCHEMA.version()) {
        throw new RejectedFileException(
            "schema version "
                + schema.version()
                + " in "
                + file
                + ", expected "
                + SCHEMA.version());
      }
    } catch (CorruptDatabaseException e) {
      throw new RejectedFileException("corrupt partition file: " + e.getMessage(), e);
    }
  }
}
