package dev.mosaic.indexer;

import dev.mosaic.partition.DurableFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes written partition files durable off the rebuild threads: forces a complete temporary file,
 * renames it atomically onto its name and forces the directory ({@link DurableFiles#publish}), on a
 * pool of I/O threads, then runs what must follow durability (recording the version) on the same
 * thread. The fsyncs of one cycle's files thus overlap, and the file system commits concurrent
 * fsyncs together, while the rebuild threads go on merging the next partitions; each file is still
 * durable before anything that follows it.
 *
 * <p>Lifecycle: {@link #close} or {@link #abandon} once. Thread safety: safe for concurrent use.
 */
final class DurablePublisher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(DurablePublisher.class);

  /** I/O threads: fsync waits on the disk, not the CPU, so more of them than cores pay. */
  static final int THREADS = 16;

  private final ExecutorService io;

  DurablePublisher(String nodeName) {
    this.io =
        Executors.newFixedThreadPool(
            THREADS, Thread.ofPlatform().name(nodeName + "-fsync-", 0).daemon().factory());
  }

  /**
   * Publishes {@code temp} as {@code target}, then runs {@code then} on the I/O thread; on failure
   * deletes both files. The future completes after {@code then} (exceptionally when publishing or
   * {@code then} failed).
   */
  CompletableFuture<Void> publish(Path temp, Path target, Runnable then) {
    return CompletableFuture.runAsync(
        () -> {
          try {
            DurableFiles.publish(temp, target);
          } catch (IOException e) {
            deleteQuietly(temp);
            deleteQuietly(target);
            throw new UncheckedIOException("publishing " + target + " failed", e);
          }
          then.run();
        },
        io);
  }

  private static void deleteQuietly(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      LOG.warn("could not delete {}", file, e);
    }
  }

  /** Drops queued publications (a crash, for tests). */
  void abandon() {
    io.shutdownNow();
  }

  /** Finishes queued publications (up to 30 s). */
  @Override
  public void close() {
    io.shutdown();
    try {
      if (!io.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("file publications still running after 30 s; abandoning them");
        io.shutdownNow();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      io.shutdownNow();
    }
  }
}
