package dev.mosaic.format.impl;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;

/**
 * Writes a file through a temporary file beside it: the content goes to the temporary file, which
 * is forced to disk (when asked), renamed atomically onto the target, and the directory forced
 * (when asked). On any failure the temporary file is deleted and the target is untouched.
 *
 * <p>Thread safety: stateless; two writes to the same target race, the last rename wins (or, with
 * {@code replace == false}, the second fails).
 */
final class AtomicFileWrite {
  private AtomicFileWrite() {}

  /** Writes the content of a file to an open channel. */
  interface Content {
    void writeTo(FileChannel channel) throws IOException;
  }

  /**
   * Writes {@code output}; returns its size.
   *
   * @param replace whether an existing output is replaced (else {@link FileAlreadyExistsException})
   * @param fsync whether the file and its directory are forced to disk
   * @param suffix the temporary file's suffix (names the operation)
   */
  static long write(Path output, boolean replace, boolean fsync, String suffix, Content content)
      throws IOException {
    Path dir = output.toAbsolutePath().getParent();
    Path tmp =
        dir.resolve(
            "."
                + output.getFileName()
                + "."
                + ProcessHandle.current().pid()
                + "."
                + System.nanoTime()
                + suffix);
    boolean done = false;
    try {
      long size;
      try (FileChannel ch =
          FileChannel.open(tmp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
        content.writeTo(ch);
        if (fsync) {
          ch.force(true);
        }
        size = ch.size();
      }
      if (replace) {
        Files.move(
            tmp, output, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      } else {
        if (Files.exists(output)) {
          throw new FileAlreadyExistsException(
              output.toString(), null, "output appeared while it was written");
        }
        Files.move(tmp, output, StandardCopyOption.ATOMIC_MOVE);
      }
      done = true;
      if (fsync) {
        forceDirectory(dir);
      }
      return size;
    } finally {
      if (!done) {
        Files.deleteIfExists(tmp);
      }
    }
  }

  private static void forceDirectory(Path dir) throws IOException {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException e) {
      // some file systems refuse to open or force a directory; the file itself is durable
      if (!(e instanceof java.nio.file.AccessDeniedException)
          && !"Is a directory".equals(e.getMessage())) {
        throw e;
      }
    }
  }
}
