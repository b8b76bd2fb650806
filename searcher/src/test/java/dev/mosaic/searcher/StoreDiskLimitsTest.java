package dev.mosaic.searcher;

import static dev.mosaic.searcher.TestFiles.SCHEMA_VERSION;
import static dev.mosaic.searcher.TestFiles.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.RejectedFileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store refuses what it cannot hold, before a byte is written: a file announced larger than its
 * largest file, and a file that would eat into the free-space reserve of its file system. The
 * previous version keeps serving and nothing is left on disk.
 */
class StoreDiskLimitsTest {
  @TempDir Path root;

  private static PartitionFileId id(long version) {
    return new PartitionFileId(SCHEMA_VERSION, 0, version);
  }

  private long filesUnder(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).count();
    }
  }

  @Test
  void aFileAnnouncedLargerThanTheLargestFileIsRefusedAndTheOldVersionServes() throws Exception {
    long size = TestFiles.bytes(0, 2).length;
    try (PartitionStore store =
        PartitionStore.builder(root).maxFileBytes(size - 1).freeSpaceReserve(0).build()) {
      store.start();
      publish(store, 0, 1);
      assertThatThrownBy(() -> store.stage(id(2), size))
          .isInstanceOf(RejectedFileException.class)
          .hasMessageContaining("announced size of " + size + " bytes")
          .hasMessageContaining("maxFileBytes");
      assertThatThrownBy(() -> store.stage(id(3), Long.MAX_VALUE))
          .isInstanceOf(RejectedFileException.class);
      assertThat(store.latestVersions(SCHEMA_VERSION)).containsEntry(0, 1L);
      assertThat(filesUnder(root)).isEqualTo(1);
    }
  }

  @Test
  void aFileThatWouldLeaveLessThanTheReserveIsRefusedAndAcceptedOnceThereIsRoom() throws Exception {
    long usable = Files.getFileStore(root).getUsableSpace();
    try (PartitionStore full = PartitionStore.builder(root).freeSpaceReserve(0).build()) {
      full.start();
      publish(full, 0, 1);
    }
    // a reserve above what the disk has left: as if the disk were full
    try (PartitionStore store =
        PartitionStore.builder(root).freeSpaceReserve(usable + (1L << 30)).build()) {
      store.start();
      assertThatThrownBy(() -> publish(store, 0, 2))
          .isInstanceOf(RejectedFileException.class)
          .hasMessageContaining("not enough disk space")
          .hasMessageContaining("freeSpaceReserve");
      assertThat(store.latestVersions(SCHEMA_VERSION)).containsEntry(0, 1L);
      assertThat(filesUnder(root)).isEqualTo(1);
    }
    // space returns (here: the reserve fits): the same delivery is accepted
    try (PartitionStore store = PartitionStore.builder(root).freeSpaceReserve(1L << 20).build()) {
      store.start();
      publish(store, 0, 2);
      assertThat(store.latestVersions(SCHEMA_VERSION)).containsEntry(0, 2L);
    }
  }

  @Test
  void filesBeingReceivedCountAgainstTheReserve() throws Exception {
    long usable = Files.getFileStore(root).getUsableSpace();
    long reserve = 1L << 20;
    try (PartitionStore store =
        PartitionStore.builder(root)
            .freeSpaceReserve(reserve)
            .maxFileBytes(Long.MAX_VALUE)
            .build()) {
      store.start();
      // the first announced file takes all but 1 GiB of the headroom over the reserve (a margin
      // for other processes writing meanwhile); nothing is written, sizes are only announced
      long first = usable - reserve - (1L << 30);
      try (var staged = store.stage(new PartitionFileId(SCHEMA_VERSION, 1, 1), first)) {
        assertThatThrownBy(() -> store.stage(new PartitionFileId(SCHEMA_VERSION, 2, 1), 2L << 30))
            .isInstanceOf(RejectedFileException.class)
            .hasMessageContaining("being received");
      }
      // once that transfer ended, its bytes no longer count
      store.stage(new PartitionFileId(SCHEMA_VERSION, 2, 1), 2L << 30).close();
    }
  }
}
