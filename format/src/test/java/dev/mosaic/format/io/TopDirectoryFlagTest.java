package dev.mosaic.format.io;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class TopDirectoryFlagTest {
  /**
   * File systems that have the flag: ext2, ext3 and ext4 on Linux (this project's CI runs on ext4).
   */
  static boolean hasTheFlag(Path dir) throws Exception {
    return System.getProperty("os.name", "").toLowerCase(Locale.ROOT).startsWith("linux")
        && Set.of("ext2", "ext3", "ext4").contains(Files.getFileStore(dir).type());
  }

  @Test
  void aFlaggedDirectoryReadsBackFlaggedAndSettingItAgainKeepsIt(@TempDir Path dir)
      throws Exception {
    Path top = Files.createDirectory(dir.resolve("v1"));
    Path plain = Files.createDirectory(dir.resolve("plain"));
    boolean set = TopDirectoryFlag.trySet(top);
    if (hasTheFlag(top)) {
      assertThat(set).isTrue();
    }
    // where the file system has no such flag, it reads back unset and setting it says so
    assertThat(TopDirectoryFlag.isSet(top)).isEqualTo(set);
    assertThat(TopDirectoryFlag.trySet(top)).isEqualTo(set);
    assertThat(TopDirectoryFlag.isSet(plain)).isFalse();
  }

  @Test
  void aMissingDirectoryIsNotFlaggedAndNothingThrows(@TempDir Path dir) {
    assertThat(TopDirectoryFlag.trySet(dir.resolve("missing"))).isFalse();
    assertThat(TopDirectoryFlag.isSet(dir.resolve("missing"))).isFalse();
  }
}
