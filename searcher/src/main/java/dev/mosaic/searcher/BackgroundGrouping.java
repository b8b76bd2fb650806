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
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledThreadPoolExecutor;
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
 * <p>Merges wait for the partitions to settle: none starts until {@code settle} ({@link #SETTLE} by
 * default) passed without a generation that replaced, added or removed a partition. A feed cycle
 * replaces most partitions within seconds; a merge of a block during the cycle would compete with
 * the deliveries for the cores and the disk and be outdated by the next arrival in its block.
 * Meanwhile a replaced partition is served beside its masked group, with the same results.
 *
 * <p>The group directory belongs to the grouping: files in it are deleted at start.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class BackgroundGrouping implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(BackgroundGrouping.class);

  /** How long the partitions must stay unchanged before a merge starts, by default. */
  static final Duration SETTLE = Duration.ofSeconds(1);

  private final long settleNanos;

  private final ScheduledThreadPoolExecutor merger;
  private final PartitionGrouping grouping;
  private final int minPartitions;
  private final Runnable requestReopen;
  private long failuresLogged;

  /** When a composed generation last changed the partitions (System.nanoTime). */
  private volatile long lastChange = System.nanoTime();

  /** A merge was held back for the partitions to settle; a reopen after that starts it. */
  private volatile boolean deferred;

  /**
   * Creates the group directory when missing and deletes what a previous run left in it (group
   * files of no generation now, temporary files of a merge cut short).
   *
   * @param minPartitions fewest partitions a generation must have to be grouped (0: always)
   * @param settle how long the partitions must stay unchanged before a merge starts
   * @throws UncheckedIOException when the directory cannot be created or cleared
   */
  BackgroundGrouping(
      PartitionGrouping.Config config, int minPartitions, Duration settle, Runnable requestReopen) {
    if (minPartitions < 0) {
      throw new IllegalArgumentException("minPartitions must be >= 0, got " + minPartitions);
    }
    this.minPartitions = minPartitions;
    this.requestReopen = requestReopen;
    this.settleNanos = settle.toNanos();
    clear(config.directory());
    this.merger =
        new ScheduledThreadPoolExecutor(
            1,
            r -> {
              Thread t = new Thread(r, "mosaic-group-merge");
              t.setDaemon(true);
              t.setPriority(Thread.MIN_PRIORITY);
              return t;
            });
    merger.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
    this.grouping = new PartitionGrouping(config, this::mergeOnceSettled, requestReopen);
  }

  /**
   * The executor of {@link PartitionGrouping}: runs a merge once the partitions settled; before
   * that refuses it (the grouping tries again at its next compose) and asks for a reopen when they
   * will have.
   */
  private void mergeOnceSettled(Runnable merge) {
    long quietFor = System.nanoTime() - lastChange;
    if (quietFor < settleNanos) {
      deferred = true;
      merger.schedule(requestReopen, settleNanos - quietFor, TimeUnit.NANOSECONDS);
      throw NOT_SETTLED;
    }
    ((Executor) merger).execute(merge);
  }

  /**
   * The refusal of a merge before the partitions settled: the grouping only catches it, at every
   * compose while they change (several times a second under churn), so one instance without a stack
   * trace serves them all.
   */
  private static final RejectedExecutionException NOT_SETTLED =
      new RejectedExecutionException("the partitions changed within the settle time") {
        @Override
        public synchronized Throwable fillInStackTrace() {
          return this;
        }
      };

  /**
   * The next generation's composite (see {@link PartitionGrouping#compose}); ungrouped while there
   * are fewer than {@code minPartitions} partitions.
   */
  CompositeDatabase compose(
      CompositeDatabase previous, Schema schema, List<? extends Database> partitions) {
    logNewFailures();
    if (previous == null || !samePartitions(previous.partitions(), partitions)) {
      lastChange = System.nanoTime();
    }
    deferred = false;
    if (!grouped(partitions.size())) {
      return previous != null && previous.schema().equals(schema)
          ? previous.withPartitions(partitions)
          : CompositeDatabase.of(schema, partitions);
    }
    return grouping.compose(previous, schema, partitions);
  }

  /**
   * True when groups were merged since {@code composite} was composed, or a merge held back for the
   * partitions to settle can start now: the next generation should be composed.
   */
  boolean hasNewGroups(CompositeDatabase composite) {
    return grouped(composite.partitions().size())
        && (!composite.groups().equals(grouping.groups())
            || (deferred && System.nanoTime() - lastChange >= settleNanos));
  }

  private static boolean samePartitions(List<Database> a, List<? extends Database> b) {
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (a.get(i) != b.get(i)) {
        return false;
      }
    }
    return true;
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
