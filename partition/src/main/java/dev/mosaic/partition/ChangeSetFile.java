package dev.mosaic.partition;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Optional;
import java.util.TreeSet;

/**
 * The change set a partition file was rebuilt from, kept beside it ({@code
 * <version>.mosaic.changes}) so the transport can ship the change instead of the file to receivers
 * holding the base: the version of the base file and the encoded change set (the format's {@code
 * ChangeSet}). Losing it costs only a full copy; it is written without fsync. Layout: the magic
 * {@code MCHG}, the base version (8 bytes, big-endian), the change set.
 *
 * <p>Thread safety: immutable; the static methods are safe for concurrent use on distinct files.
 *
 * @param baseVersion the version of the same partition the change set applies to
 * @param changes the encoded change set
 */
public record ChangeSetFile(long baseVersion, byte[] changes) {
  /** Suffix of the file beside the partition file. */
  public static final String SUFFIX = ".changes";

  private static final int MAGIC = 0x4D43_4847; // "MCHG"

  /** Where the change set of {@code partitionFile} is kept. */
  public static Path pathFor(Path partitionFile) {
    return partitionFile.resolveSibling(partitionFile.getFileName() + SUFFIX);
  }

  /** Writes the change set of {@code partitionFile} (temporary file, atomic rename). */
  public static void write(Path partitionFile, long baseVersion, byte[] changes)
      throws IOException {
    Path target = pathFor(partitionFile);
    Path temp = PartitionLayout.tempFileFor(target);
    boolean moved = false;
    try {
      Files.write(
          temp,
          ByteBuffer.allocate(12 + changes.length)
              .putInt(MAGIC)
              .putLong(baseVersion)
              .put(changes)
              .array());
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
      moved = true;
    } finally {
      if (!moved) {
        Files.deleteIfExists(temp);
      }
    }
  }

  /**
   * The change set kept beside {@code partitionFile}; empty when there is none or it is not one (a
   * foreign or truncated file is ignored: the file then ships whole).
   */
  public static Optional<ChangeSetFile> read(Path partitionFile) throws IOException {
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(pathFor(partitionFile));
    } catch (NoSuchFileException e) {
      return Optional.empty();
    }
    if (bytes.length < 12 || ByteBuffer.wrap(bytes).getInt() != MAGIC) {
      return Optional.empty();
    }
    return Optional.of(
        new ChangeSetFile(
            ByteBuffer.wrap(bytes, 4, 8).getLong(), Arrays.copyOfRange(bytes, 12, bytes.length)));
  }

  /**
   * The versions whose change sets are kept in {@code partitionDir}, ascending, whether or not
   * their partition files are still there (empty when the directory does not exist).
   */
  public static TreeSet<Long> versions(Path partitionDir) throws IOException {
    TreeSet<Long> versions = new TreeSet<>();
    String suffix = PartitionLayout.EXTENSION + SUFFIX;
    try (DirectoryStream<Path> files =
        Files.newDirectoryStream(partitionDir, PartitionLayout.endingWith(suffix))) {
      for (Path f : files) {
        String name = f.getFileName().toString();
        PartitionLayout.parseVersion(name.substring(0, name.length() - SUFFIX.length()))
            .ifPresent(versions::add);
      }
    } catch (NoSuchFileException e) {
      // nothing kept yet
    }
    return versions;
  }

  /** Deletes the change set kept beside {@code partitionFile}, if any. */
  public static void delete(Path partitionFile) throws IOException {
    Files.deleteIfExists(pathFor(partitionFile));
  }
}
