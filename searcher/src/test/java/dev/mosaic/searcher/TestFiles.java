package dev.mosaic.searcher;

import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import java.io.IOException;
import java.nio.file.Files;

/**
 * Partition files whose every document says which partition and version it belongs to, so a query
 * can check it saw exactly one generation: partition p, version v holds {@link #documents(long)}
 * documents.
 */
final class TestFiles {
  static final int SCHEMA_VERSION = 1;
  static final Schema SCHEMA =
      Schema.builder()
          .version(SCHEMA_VERSION)
          .field("partition", FieldType.INT, FieldRole.FULL)
          .field("version", FieldType.LONG, FieldRole.FULL)
          .field("row", FieldType.INT, FieldRole.FULL)
          .field("color", FieldType.STRING, FieldRole.FILTERABLE)
          .build();
  static final String[] COLORS = {"red", "green", "blue"};

  private TestFiles() {}

  /** Documents in any partition's version v. */
  static int documents(long version) {
    return 3 + (int) (version % 5);
  }

  static byte[] bytes(int partition, long version) {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    for (int row = 0; row < documents(version); row++) {
      b.add(
          Document.builder(SCHEMA)
              .add("partition", partition)
              .add("version", version)
              .add("row", row)
              .add("color", COLORS[row % COLORS.length])
              .payload(("p" + partition + "v" + version + "r" + row).getBytes())
              .build());
    }
    return b.toByteArray();
  }

  /** Publishes partition p version v through the store's receiving path. */
  static void publish(ReceivingStore store, int partition, long version) throws IOException {
    byte[] bytes = bytes(partition, version);
    PartitionFileId id = new PartitionFileId(SCHEMA_VERSION, partition, version);
    try (ReceivingStore.StagedFile staged = store.stage(id, bytes.length)) {
      Files.write(staged.path(), bytes);
      staged.publish();
    }
  }
}
