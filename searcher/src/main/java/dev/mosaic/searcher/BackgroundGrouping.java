package dev.mosaic.searcher;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.PartitionGrouping;
import dev.mosaic.format.Schema;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The searcher's side of {@link PartitionGrouping}: merges run on one daemon thread of their own,
 * and each merge that produced a group asks for a reopen, so the next generation queries it. {@link
 * Generations} composes every generation through {@link #compose} and hands each retired
 * generation's composite to {@link #release}.
 *
 * <p>Grouping may wait for enough partitions: while a generation has fewer than {@code
 * minPartitions}, it is composed ungrouped and no merge starts (on a small deployment the merges
 * cost more than grouping saves queries).
 *
 * <p>The group directory belongs to the grouping: files in it are deleted at start.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class BackgroundGrouping implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundGrouping.class);

  private final ExecutorService merger;
  private final PartitionGrouping grouping;
  private final int minPartitions;
  private long failuresLogged;

  /**
   * Creates the group directory when missing and deletes what a previous run left in it (group
   * files of no generation now, temporary files of a merge cut short).
   *
   * @param minPartitions fewest partitions a generation must have to be grouped (0: always)
   * @throws UncheckedIOException when the directory cannot be created or cleared
   */
  BackgroundGrouping(PartitionGrouping.Config config, int minPartitions, Runnable requestReopen) {
    if (minPartitions < 0) {
      throw new IllegalArgumentException("minPartitions must be >= 0, got " + minPartitions);
    }
    this.minPartitions = minPartitions;
    clear(config.directory());
    this.merger =
        Executors.newSingleThreadExecutor(
            r -> {
              Thread t = new Thread(r, "mosaic-group-merge");
              t.setDaemon(true);
              t.setPriority(Thread.MIN_PRIORITY);
              return t;
            });
    this.grouping = new PartitionGrouping(config, merger, requestReopen);
  }

  /**
   * The next generation's composite (see {@link PartitionGrouping#compose}); ungrouped while there
   * are fewer than {@code minPartitions} partitions.
   */
  CompositeDatabase compose(
      CompositeDatabase previous, Schema schema, List<? extends Database> partitions) {
    logNewFailures();
    if (!grouped(partitions.size())) {
      return previous != null && previous.schema().equals(schema)
          ? previous.withPartitions(partitions)
          : CompositeDatabase.of(schema, partitions);
    }
    return grouping.compose(previous, schema, partitions);
  }

  /** True when groups were merged since {@code composite} was composed. */
  boolean hasNewGroups(CompositeDatabase composite) {
    return grouped(composite.partitions().size()) && !composite.groups().equals(grouping.groups());
  }

  /** Whether a generation of {@code partitions} partitions is grouped. */
  boolean grouped(int partitions) {
    return partitions >= minPartitions;
  }

  /** Gives back a retired generation's groups. */
  void release(CompositeDatabase composite) {
    grouping.release(composite);
  }

  private synchronized void logNewFailures() {
    long failed = grouping.failedMerges();
    if (failed > failuresLogged) {
      LOG.warn(
          "{} group merges failed (retried at the next reopen); the last one",
          failed - failuresLogged,
          grouping.lastFailure());
      failuresLogged = failed;
    }
  }

  private static void clear(Path directory) {
    try {
      Files.createDirectories(directory);
      try (DirectoryStream<Path> left = Files.newDirectoryStream(directory, Files::isRegularFile)) {
        for (Path file : left) {
          Files.delete(file);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare the group directory " + directory, e);
    }
  }

  /** Stops merging (waiting up to 30 s for a merge under way). */
  @Override
  public void close() {
    merger.shutdown();
    try {
      if (!merger.awaitTermination(30, TimeUnit.SECONDS)) {
        LOG.warn("group merge thread did not stop within 30 s");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    grouping.close();
  }
}
