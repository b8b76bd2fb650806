package dev.mosaic.partition;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Durable file writing, one way everywhere: write a temporary file beside the target, force it to
 * disk, rename it atomically onto the target, force the directory (so the rename itself survives a
 * crash). Readers see the old file or the complete new one, never a part; after {@link #write} or
 * {@link #publish} returns, the new file survives a power loss. A failed write leaves no temporary
 * file behind.
 *
 * <p>Stateless and thread safe; concurrent writers of one target each use their own temporary name
 * and the last rename wins.
 */
public final class DurableFiles {
  private DurableFiles() {}

  /** Writes the bytes of a file at a path it is given. */
  @FunctionalInterface
  public interface Writer<T> {
    /** Writes the complete content to {@code temp} (which does not exist yet). */
    T writeTo(Path temp) throws IOException;
  }

  /**
   * Writes {@code target} durably: {@code writer} fills a fresh temporary file beside it (see
   * {@link PartitionLayout#tempFileFor}), then {@link #publish} moves it into place. Creates the
   * parent directories. On any failure the temporary file is deleted and the target is untouched.
   *
   * @return what the writer returned
   */
  public static <T> T write(Path target, Writer<T> writer) throws IOException {
    Path parent = target.toAbsolutePath().getParent();
    Files.createDirectories(parent);
    Path temp = PartitionLayout.tempFileFor(target);
    boolean published = false;
    try {
      T result = writer.writeTo(temp);
      publish(temp, target);
      published = true;
      return result;
    } finally {
      if (!published) {
        Files.deleteIfExists(temp);
      }
    }
  }

  /** Writes {@code bytes} to {@code target} durably (see {@link #write}). */
  public static void write(Path target, byte[] bytes) throws IOException {
    write(
        target,
        temp -> {
          Files.write(temp, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
          return null;
        });
  }

  /**
   * Publishes a complete temporary file: forces it, renames it atomically onto {@code target}
   * (replacing any file there) and forces the target's directory.
   *
   * @throws IOException also when the file system cannot rename atomically (the message says so)
   */
  public static void publish(Path temp, Path target) throws IOException {
    force(temp);
    moveAtomically(temp, target);
    forceDirectory(target.toAbsolutePath().getParent());
  }

  /** Forces a file's content and metadata to disk. */
  public static void force(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
  }

  /** Forces a directory's entries (creations, renames, deletions) to disk. */
  public static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    }
  }

  /** Renames atomically, replacing the target; fails clearly where that is not possible. */
  public static void moveAtomically(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException(
          "the file system of " + to + " cannot rename atomically (from " + from + ")", e);
    }
  }
}
