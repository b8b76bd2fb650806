package dev.mosaic.format.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopDirectoryFlagTest {

  @Test
  void aFlaggedDirectoryReadsBackFlaggedAndSettingItAgainKeepsIt(@TempDir Path dir)
      throws Exception {
    Path top = Files.createDirectory(dir.resolve("v1"));
    boolean set = TopDirectoryFlag.trySet(top);
    // where the system or file system has no such flag (tmpfs, macOS) nothing can be checked
    assumeTrue(set, "no FS_TOPDIR_FL on " + Files.getFileStore(top).type());
    assertThat(TopDirectoryFlag.isSet(top)).isTrue();
    assertThat(TopDirectoryFlag.trySet(top)).isTrue();
    assertThat(TopDirectoryFlag.isSet(Files.createDirectory(dir.resolve("plain")))).isFalse();
  }

  @Test
  void aMissingDirectoryIsNotFlaggedAndNothingThrows(@TempDir Path dir) {
    assertThat(TopDirectoryFlag.trySet(dir.resolve("missing"))).isFalse();
    assertThat(TopDirectoryFlag.isSet(dir.resolve("missing"))).isFalse();
  }
}
