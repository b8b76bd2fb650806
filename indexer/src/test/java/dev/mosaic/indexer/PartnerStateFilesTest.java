package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartnerStateFilesTest {
  @TempDir Path dir;

  private static PartnerSnapshotState randomState(long seed, int n) {
    Random random = new Random(seed);
    PartnerSnapshotState state = new PartnerSnapshotState(n);
    for (int i = 0; i < n; i++) {
      state.put(random.nextLong(), random.nextLong(), random.nextInt(1024));
    }
    return state;
  }

  @Test
  void aWrittenStateReadsBackEntryForEntry() throws Exception {
    PartnerStateFiles files = new PartnerStateFiles(dir);
    PartnerSnapshotState state = randomState(1, 1000);
    files.write("partner-001", state);
    PartnerSnapshotState read = files.read("partner-001").orElseThrow();
    assertThat(read.size()).isEqualTo(1000);
    state.forEach((hash, entry) -> assertThat(read.entry(hash)).isEqualTo(entry));
    assertThat(files.read("partner-002")).isEmpty();
    try (var listing = Files.list(dir)) {
      assertThat(listing).as("no temporary file left").hasSize(1);
    }
  }

  @Test
  void aDiscardedStageLeavesTheOldStateAndNoTemporaryFile() throws Exception {
    PartnerStateFiles files = new PartnerStateFiles(dir);
    files.write("partner-001", randomState(5, 10));
    PartnerStateFiles.Staged staged = files.stage("partner-001", randomState(6, 20));
    staged.discard();
    assertThat(files.read("partner-001").orElseThrow().size()).isEqualTo(10);
    files.stage("partner-001", randomState(7, 30)); // a loader stopping here leaves its temp file
    files.deleteTemporaryFiles();
    try (var listing = Files.list(dir)) {
      assertThat(listing).containsExactly(files.fileFor("partner-001"));
    }
  }

  @Test
  void aVeryLongPartnerIdGetsAShortFileName() throws Exception {
    PartnerStateFiles files = new PartnerStateFiles(dir);
    String partner = "p".repeat(300);
    files.write(partner, randomState(2, 3));
    assertThat(files.fileFor(partner).getFileName().toString())
        .hasSize("partner-.state".length() + 16);
    assertThat(files.read(partner).orElseThrow().size()).isEqualTo(3);
  }

  @Test
  void truncatedCorruptOrOtherVersionFilesAreRefusedSayingWhy() throws Exception {
    PartnerStateFiles files = new PartnerStateFiles(dir);
    files.write("partner-001", randomState(3, 100));
    Path file = files.fileFor("partner-001");
    byte[] good = Files.readAllBytes(file);

    Files.write(file, Arrays.copyOf(good, good.length - 20));
    assertThatThrownBy(() -> files.read("partner-001"))
        .isInstanceOf(PartnerStateFiles.UnreadableStateException.class)
        .hasMessageContaining(file.toString())
        .hasMessageContaining(
            "is truncated or corrupt: "
                + (good.length - 20)
                + " bytes, but 100 offers need "
                + good.length);

    byte[] flipped = good.clone();
    flipped[good.length / 2] ^= 1;
    Files.write(file, flipped);
    assertThatThrownBy(() -> files.read("partner-001"))
        .isInstanceOf(PartnerStateFiles.UnreadableStateException.class)
        .hasMessageContaining("is corrupt: checksum");

    byte[] oldVersion = good.clone();
    ByteBuffer.wrap(oldVersion).putInt(4, 2);
    Files.write(file, oldVersion);
    assertThatThrownBy(() -> files.read("partner-001"))
        .isInstanceOf(PartnerStateFiles.UnreadableStateException.class)
        .hasMessageContaining(
            "has format version 2, this loader reads version " + PartnerStateFiles.VERSION);

    Files.write(file, new byte[] {1, 2, 3});
    assertThatThrownBy(() -> files.read("partner-001"))
        .isInstanceOf(PartnerStateFiles.UnreadableStateException.class)
        .hasMessageContaining("is truncated: 3 bytes");
  }

  @Test
  void aFileOfAnotherPartnerIsRefused() throws Exception {
    PartnerStateFiles files = new PartnerStateFiles(dir);
    files.write("partner-001", randomState(4, 5));
    Files.copy(files.fileFor("partner-001"), files.fileFor("partner-002"));
    assertThatThrownBy(() -> files.read("partner-002"))
        .isInstanceOf(PartnerStateFiles.UnreadableStateException.class)
        .hasMessageContaining("belongs to partner 'partner-001'");
  }
}
