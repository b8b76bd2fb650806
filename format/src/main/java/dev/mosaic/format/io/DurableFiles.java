package dev.mosaic.format.io;

import dev.mosaic.format.FileSync;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Durable file writing, the one implementation every module uses: write a temporary file beside the
 * target, force it to disk, rename it atomically onto the target, force the directory (so the
 * rename itself survives a crash). Readers see the old file or the complete new one, never a part;
 * after a forced write returns, the new file survives a power loss. A failed write leaves no
 * temporary file behind and the target untouched.
 *
 * <p>Temporary files are named {@code <target name>.<random hex>}{@value #TEMP_SUFFIX}; a store
 * that scans its directories recognises leftovers of a crash by {@link #isTempName}.
 *
 * <p>Stateless and thread safe; concurrent writers of one target each use their own temporary name
 * and the last rename wins (or, with {@link Replace#NEVER}, all but the first fail).
 */
public final class DurableFiles {
  /** The suffix of every temporary file. */
  public static final String TEMP_SUFFIX = ".tmp";

  private DurableFiles() {}

  /** Whether an existing target is replaced. */
  public enum Replace {
    /** The new file replaces an existing target. */
    EXISTING,
    /** An existing target fails the write with {@link FileAlreadyExistsException}. */
    NEVER
  }

  /** Writes the bytes of a file at a path it is given. */
  @FunctionalInterface
  public interface Writer<T> {
    /** Writes the complete content to {@code temp} (which does not exist yet). */
    T writeTo(Path temp) throws IOException;
  }

  /** Writes the bytes of a file to an open channel. */
  @FunctionalInterface
  public interface ChannelWriter {
    /** Writes the complete content to {@code channel}, a new empty file. */
    void writeTo(FileChannel channel) throws IOException;
  }

  /**
   * Writes {@code target} durably, replacing any file there: {@code writer} fills a fresh temporary
   * file beside it, then {@link #publish} moves it into place. Creates the parent directories.
   *
   * @return what the writer returned
   */
  public static <T> T write(Path target, Writer<T> writer) throws IOException {
    createDirectoriesIfMissing(target.toAbsolutePath().getParent());
    return write(target, Replace.EXISTING, FileSync.FORCE, writer);
  }

  /**
   * Writes {@code target} through a temporary file beside it. The target's directory must exist.
   *
   * @param replace whether an existing target is replaced
   * @param sync {@link FileSync#FORCE} forces the file before the rename and the directory after
   *     it; {@link FileSync#CALLER_SYNCS} only renames (the caller syncs later)
   * @return what the writer returned
   * @throws FileAlreadyExistsException with {@link Replace#NEVER}, when the target exists
   */
  public static <T> T write(Path target, Replace replace, FileSync sync, Writer<T> writer)
      throws IOException {
    Path parent = target.toAbsolutePath().getParent();
    Path temp = tempFileFor(target);
    boolean published = false;
    try {
      T result = writer.writeTo(temp);
      if (sync == FileSync.FORCE) {
        force(temp);
      }
      if (replace == Replace.NEVER && Files.exists(target)) {
        throw new FileAlreadyExistsException(
            target.toString(), null, "the file appeared while it was written");
      }
      moveAtomically(temp, target);
      published = true;
      if (sync == FileSync.FORCE) {
        forceDirectory(parent);
      }
      return result;
    } finally {
      if (!published) {
        Files.deleteIfExists(temp);
      }
    }
  }

  /**
   * Writes {@code target} through a channel on a new temporary file (see {@link #write(Path,
   * Replace, FileSync, Writer)}); returns the file's size.
   */
  public static long writeChannel(Path target, Replace replace, FileSync sync, ChannelWriter writer)
      throws IOException {
    return write(
        target,
        replace,
        sync,
        temp -> {
          try (FileChannel ch =
              FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            writer.writeTo(ch);
            return ch.size();
          }
        });
  }

  /**
   * Writes {@code bytes} to {@code target} durably, replacing any file there; creates the parent
   * directories.
   *
   * @param attributes attributes the new file is created with (for instance owner-only POSIX
   *     permissions for a secret), set before any byte is written
   */
  public static void write(Path target, byte[] bytes, FileAttribute<?>... attributes)
      throws IOException {
    write(
        target,
        temp -> {
          Files.createFile(temp, attributes);
          Files.write(temp, bytes, StandardOpenOption.WRITE);
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

  /** A fresh temporary name beside {@code target}. */
  public static Path tempFileFor(Path target) {
    return target.resolveSibling(
        target.getFileName()
            + "."
            + Long.toHexString(ThreadLocalRandom.current().nextLong())
            + TEMP_SUFFIX);
  }

  /** Whether a file name is a temporary (unpublished) one. */
  public static boolean isTempName(String fileName) {
    return fileName.endsWith(TEMP_SUFFIX);
  }

  /** Forces a file's content and metadata to disk. */
  public static void force(Path file) throws IOException {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.WRITE)) {
      ch.force(true);
    }
  }

  /**
   * Creates {@code dir} and its parents unless it is a directory already. {@link
   * Files#createDirectories} alone throws and catches two exceptions inside on an existing
   * directory, which costs on paths taken per file.
   */
  public static void createDirectoriesIfMissing(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir);
    }
  }

  /**
   * Forces a directory's entries (creations, renames, deletions) to disk. On platforms that cannot
   * open a directory (Windows) the rename is as durable as it gets, and this does nothing.
   */
  public static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (AccessDeniedException e) {
      // a directory cannot be opened here: nothing more to force
    }
  }

  /** Renames atomically, replacing the target; fails clearly where that is not possible. */
  public static void moveAtomically(Path from, Path to) throws IOException {
    try {
      Files.move(from, to, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (AtomicMoveNotSupportedException e) {
      throw new IOException(
          "the file system of " + to + " cannot rename atomically (from " + from + ")", e);
    }
  }
}
