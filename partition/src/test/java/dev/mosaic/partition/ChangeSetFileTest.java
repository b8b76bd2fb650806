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
  void aForeignOrTruncatedFileIsIgnoredSoTheFileShipsWhole() throws Exception {
    Path file = dir.resolve("3.mosaic");
    Files.write(ChangeSetFile.pathFor(file), new byte[] {'M', 'C', 'H', 'G', 0, 0});
    assertThat(ChangeSetFile.read(file)).isEmpty();
    Files.write(ChangeSetFile.pathFor(file), "not a change set at all".getBytes());
    assertThat(ChangeSetFile.read(file)).isEmpty();
  }
}
