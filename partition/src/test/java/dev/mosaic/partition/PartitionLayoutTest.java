package dev.mosaic.partition;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.io.TopDirectoryFlag;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionLayoutTest {
  @TempDir Path root;

  @Test
  void aFileLivesUnderSchemaThenPartitionNamedByItsVersion() {
    PartitionLayout layout = new PartitionLayout(root);
    PartitionFileId id = new PartitionFileId(3, 17, 1234);
    assertThat(layout.file(id)).isEqualTo(root.resolve("v3").resolve("17").resolve("1234.mosaic"));
    assertThat(layout.parse(layout.file(id))).contains(id);
  }

  @Test
  void pathsOutsideTheLayoutAreNotParsed() {
    PartitionLayout layout = new PartitionLayout(root);
    assertThat(layout.parse(root.resolve("v3/17/1234.mosaic.ab.tmp"))).isEmpty();
    assertThat(layout.parse(root.resolve("x3/17/1234.mosaic"))).isEmpty();
    assertThat(layout.parse(root.resolve("v3/p17/1234.mosaic"))).isEmpty();
    assertThat(layout.parse(root.resolve("v3/17/pinned"))).isEmpty();
    assertThat(layout.parse(root.resolve("17/1234.mosaic"))).isEmpty();
  }

  @Test
  void tempNamesAreUniqueBesideTheTargetAndRecognized() {
    Path target = root.resolve("v1/0/5.mosaic");
    Path a = PartitionLayout.tempFileFor(target);
    Path b = PartitionLayout.tempFileFor(target);
    assertThat(a).isNotEqualTo(b);
    assertThat(a.getParent()).isEqualTo(target.getParent());
    assertThat(PartitionLayout.isTempName(a.getFileName().toString())).isTrue();
    assertThat(PartitionLayout.parseVersion(a.getFileName().toString())).isEmpty();
    assertThat(PartitionLayout.isTempName("5.mosaic")).isFalse();
  }

  @Test
  void versionsListsPublishedFilesAscendingAndIgnoresOthers() throws Exception {
    PartitionLayout layout = new PartitionLayout(root);
    assertThat(layout.versions(1, 0)).isEmpty();
    Path dir = Files.createDirectories(layout.partitionDir(1, 0));
    for (String name : new String[] {"10.mosaic", "9.mosaic", "11.mosaic.1f.tmp", "pinned"}) {
      Files.writeString(dir.resolve(name), "x");
    }
    assertThat(layout.versions(1, 0)).containsExactly(9L, 10L);
  }

  @Test
  void creatingAPartitionDirCreatesItsSchemaDirFlaggedToSpreadPartitionDirs() throws Exception {
    PartitionLayout layout = new PartitionLayout(root.resolve("store"));
    Path dir = layout.createPartitionDir(2, 9);
    assertThat(dir).isEqualTo(layout.partitionDir(2, 9)).isDirectory();
    assertThat(layout.createPartitionDir(2, 9)).isEqualTo(dir); // existing: nothing to do
    // flagged where the file system has the flag (ext2/3/4 on Linux, as on this project's CI)
    boolean hasTheFlag =
        System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).startsWith("linux")
            && java.util.Set.of("ext2", "ext3", "ext4").contains(Files.getFileStore(dir).type());
    if (hasTheFlag) {
      assertThat(TopDirectoryFlag.isSet(layout.schemaDir(2))).isTrue();
      assertThat(TopDirectoryFlag.isSet(dir)).isFalse(); // only the schema directory
    }
  }
}
