package dev.mosaic.partition;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChangeSetFileTest {
  @TempDir Path dir;

  @Test
  void aWrittenChangeSetReadsBackBesideItsFileAndIsNotAVersion() throws Exception {
    PartitionLayout layout = new PartitionLayout(dir);
    Path file = layout.file(new PartitionFileId(1, 2, 7));
    Files.createDirectories(file.getParent());
    Files.write(file, new byte[] {1});
    byte[] changes = {9, 8, 7, 6};
    ChangeSetFile.write(file, 6, changes);
    assertThat(ChangeSetFile.pathFor(file).getFileName().toString()).isEqualTo("7.mosaic.changes");
    ChangeSetFile read = ChangeSetFile.read(file).orElseThrow();
    assertThat(read.baseVersion()).isEqualTo(6);
    assertThat(read.changes()).containsExactly(changes);
    assertThat(layout.versions(1, 2)).containsExactly(7L);
    ChangeSetFile.delete(file);
    assertThat(ChangeSetFile.read(file)).isEmpty();
  }

  @Test
  void changeSetsAreListedByVersionWhetherOrNotTheirFilesAreStillThere() throws Exception {
    PartitionLayout layout = new PartitionLayout(dir);
    Path partitionDir = layout.partitionDir(1, 4);
    assertThat(ChangeSetFile.versions(partitionDir)).isEmpty();
    Files.createDirectories(partitionDir);
    for (long v : new long[] {12, 3, 40}) {
      Path file = layout.file(new PartitionFileId(1, 4, v));
      Files.write(file, new byte[] {1});
      ChangeSetFile.write(file, v - 1, new byte[] {2});
    }
    Files.delete(layout.file(new PartitionFileId(1, 4, 3))); // pruned file, change set kept
    Files.write(partitionDir.resolve("x.mosaic.changes"), new byte[] {3}); // foreign
    assertThat(ChangeSetFile.versions(partitionDir)).containsExactly(3L, 12L, 40L);
    assertThat(layout.versions(1, 4)).containsExactly(12L, 40L);
  }

  @Test
  void aForeignOrTruncatedFileIsIgnoredSoTheFileShipsWhole() throws Exception {
    Path file = dir.resolve("3.mosaic");
    Files.write(ChangeSetFile.pathFor(file), new byte[] {'M', 'C', 'H', 'G', 0, 0});
    assertThat(ChangeSetFile.read(file)).isEmpty();
    Files.write(ChangeSetFile.pathFor(file), "not a change set at all".getBytes());
    assertThat(ChangeSetFile.read(file)).isEmpty();
  }
}
