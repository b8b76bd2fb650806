package dev.mosaic.searcher;

import dev.mosaic.partition.BaseReceivingStoreTestCase;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/** The searcher's store passes the receiving-store contract. */
class PartitionStoreContractTest extends BaseReceivingStoreTestCase {
  @TempDir Path root;

  @Override
  protected ReceivingStore open() throws Exception {
    PartitionStore store = PartitionStore.builder(root).build();
    store.start();
    return store;
  }

  @Override
  protected int schemaVersion() {
    return TestFiles.SCHEMA_VERSION;
  }

  @Override
  protected byte[] validFile(PartitionFileId id) {
    return TestFiles.bytes(id.partition(), id.version());
  }
}
