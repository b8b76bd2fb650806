package dev.mosaic.transport;

import dev.mosaic.partition.BaseReceivingStoreTestCase;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.io.TempDir;

/** The transport tests' file store passes the receiving-store contract. */
class FileStoreContractTest extends BaseReceivingStoreTestCase {
  @TempDir Path root;

  @Override
  protected ReceivingStore open() throws Exception {
    return new FileStore(root.resolve("store"), Set.of(1), TestFiles::verifyPartition);
  }

  @Override
  protected int schemaVersion() {
    return 1;
  }

  @Override
  protected byte[] validFile(PartitionFileId id) throws Exception {
    Path file = root.resolve("source-" + id.partition() + "-" + id.version());
    return Files.readAllBytes(
        TestFiles.partition(file, 8 * 1024, id.partition() * 31L + id.version()));
  }
}
