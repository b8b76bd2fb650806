package dev.mosaic.format.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.mosaic.format.FileSync;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
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

  @Test
  void neverReplaceRefusesAnExistingTargetAndKeepsIt() throws Exception {
    Path target = dir.resolve("f");
    DurableFiles.write(target, new byte[] {1});
    assertThatThrownBy(
            () ->
                DurableFiles.writeChannel(
                    target,
                    DurableFiles.Replace.NEVER,
                    FileSync.FORCE,
                    ch -> ch.write(ByteBuffer.wrap(new byte[] {2}))))
        .isInstanceOf(FileAlreadyExistsException.class);
    assertThat(Files.readAllBytes(target)).containsExactly(1);
    assertThat(names(dir)).containsExactly("f");
  }

  @Test
  void aChannelWriteReturnsTheSizeAndLeavesOnlyTheTarget() throws Exception {
    Path target = dir.resolve("g");
    long size =
        DurableFiles.writeChannel(
            target,
            DurableFiles.Replace.EXISTING,
            FileSync.CALLER_SYNCS,
            ch -> ch.write(ByteBuffer.wrap(new byte[] {4, 5, 6, 7})));
    assertThat(size).isEqualTo(4);
    assertThat(Files.readAllBytes(target)).containsExactly(4, 5, 6, 7);
    assertThat(names(dir)).containsExactly("g");
  }

  @Test
  void aMissingDirectoryFailsAChannelWriteInsteadOfBeingCreated() {
    Path target = dir.resolve("missing/h");
    assertThatThrownBy(
            () ->
                DurableFiles.writeChannel(
                    target, DurableFiles.Replace.EXISTING, FileSync.FORCE, ch -> {}))
        .isInstanceOf(NoSuchFileException.class);
    assertThat(Files.exists(dir.resolve("missing"))).isFalse();
  }

  @Test
  void aSecretIsCreatedReadableByItsOwnerOnly() throws Exception {
    assumeTrue(dir.getFileSystem().supportedFileAttributeViews().contains("posix"));
    Path target = dir.resolve("keys.p12");
    DurableFiles.write(
        target,
        new byte[] {1},
        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(target)))
        .isEqualTo("rw-------");
  }

  @Test
  void temporaryNamesAreUniqueAndRecognised() {
    Path target = dir.resolve("5.mosaic");
    Path a = DurableFiles.tempFileFor(target);
    assertThat(a).isNotEqualTo(DurableFiles.tempFileFor(target));
    assertThat(DurableFiles.isTempName(a.getFileName().toString())).isTrue();
    assertThat(DurableFiles.isTempName("5.mosaic")).isFalse();
  }

  private static Stream<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.list(dir)) {
      return s.map(p -> p.getFileName().toString()).sorted().toList().stream();
    }
  }
}
