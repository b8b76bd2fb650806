package dev.mosaic.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DurableFilesTest {
  @TempDir Path dir;

  @Test
  void writeCreatesParentsAndLeavesOnlyTheTarget() throws Exception {
    Path target = dir.resolve("a/b/1.mosaic");
    DurableFiles.write(target, new byte[] {1, 2, 3});
    assertThat(Files.readAllBytes(target)).containsExactly(1, 2, 3);
    assertThat(names(target.getParent())).containsExactly("1.mosaic");
  }

  @Test
  void aReplacedTargetHoldsTheNewBytes() throws Exception {
    Path target = dir.resolve("f");
    DurableFiles.write(target, new byte[] {1});
    DurableFiles.write(target, new byte[] {2, 2});
    assertThat(Files.readAllBytes(target)).containsExactly(2, 2);
  }

  @Test
  void aFailingWriterLeavesNoTemporaryFileAndTheOldTargetIntact() throws Exception {
    Path target = dir.resolve("f");
    DurableFiles.write(target, new byte[] {7});
    assertThatThrownBy(
            () ->
                DurableFiles.write(
                    target,
                    temp -> {
                      Files.write(temp, new byte[] {9, 9, 9});
                      throw new IOException("disk full");
                    }))
        .hasMessage("disk full");
    assertThat(Files.readAllBytes(target)).containsExactly(7);
    assertThat(names(dir)).containsExactly("f");
  }

  private static Stream<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList().stream();
    }
  }
}
