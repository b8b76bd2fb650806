package dev.mosaic.indexer;

import dev.mosaic.partition.ChangeSetFile;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.PartitionSender;
import dev.mosaic.partition.PartitionSender.DeliveryReport;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Gets every recorded version to every datacenter: hands it to the {@link PartitionSender} and, as
 * long as it is the partition's latest version and the node owns the partition, sends it again with
 * exponential backoff until every datacenter the sender tried accepted it. The datacenters that
 * accepted are noted in the manifest ({@link PartitionManifest#delivered}), so a node taking the
 * partition over (or this one restarted) knows to re-send a version some datacenter lacks. Once a
 * delivery ends the partition's old files are pruned to the newest {@code retainVersions} (never a
 * file still being sent).
 *
 * <p>Thread safety: safe for concurrent use; sends complete on the sender's threads, retries run on
 * one scheduler thread.
 */
final class VersionDelivery implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(VersionDelivery.class);

  private final PartitionSender sender;
  private final PartitionManifest manifest;
  private final PartitionLayout layout;

  /** Change sets kept per partition (at least as many as files). */
  static final int CHANGE_SETS_KEPT = 16;

  private final int retainVersions;
  private final Duration backoffMin;
  private final Duration backoffMax;
  private final IndexerMetrics metrics;
  private final Predicate<PartitionFileId> isLatest;
  private final Map<PartitionFileId, Boolean> pending = new ConcurrentHashMap<>();
  private final Set<Path> sending = ConcurrentHashMap.newKeySet();
  private final ScheduledExecutorService retries;
  private volatile boolean closed;

  /**
   * @param isLatest whether a version is still the latest of a partition this node owns (only those
   *     are re-sent)
   */
  VersionDelivery(
      IndexerConfig config, IndexerMetrics metrics, Predicate<PartitionFileId> isLatest) {
    this.sender = config.sender();
    this.manifest = config.manifest();
    this.layout = new PartitionLayout(config.outputDir());
    this.retainVersions = config.retainVersions();
    this.backoffMin = config.deliveryBackoffMin();
    this.backoffMax = config.deliveryBackoffMax();
    this.metrics = metrics;
    this.isLatest = isLatest;
    this.retries =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name(config.nodeName() + "-delivery").daemon().factory());
  }

  /** Delivers a recorded version whose file is in the output directory. */
  void deliver(PartitionFileId id) {
    if (pending.putIfAbsent(id, Boolean.TRUE) != null) {
      return; // already under way
    }
    Path file = layout.file(id);
    sending.add(file);
    attempt(id, file, 0);
  }

  /** Whether the node holds the file of a version (to re-send it rather than rebuild). */
  boolean holdsFile(PartitionFileId id) {
    return Files.isRegularFile(layout.file(id));
  }

  /** Versions handed over and not yet accepted by every datacenter tried. */
  int pending() {
    return pending.size();
  }

  private void attempt(PartitionFileId id, Path file, int attempt) {
    if (closed || !isLatest.test(id)) {
      finish(id, file);
      return;
    }
    CompletionStage<DeliveryReport> sent;
    try {
      sent = sender.send(id, file);
    } catch (RuntimeException e) {
      retry(id, file, attempt, e.toString());
      return;
    }
    sent.whenComplete(
        (report, e) -> {
          if (e != null) {
            retry(id, file, attempt, e.toString());
            return;
          }
          if (report.acceptedByAny() && !noted(id, report.acceptedBy().keySet())) {
            try {
              manifest.delivered(id, report.acceptedBy().keySet());
            } catch (Exception ex) {
              retry(id, file, attempt, "noting the delivery in the manifest failed: " + ex);
              return;
            }
          }
          if (report.acceptedByAny() && report.failed().isEmpty()) {
            if (attempt > 0) {
              LOG.info("{} delivered after {} re-sends", id, attempt);
            }
            finish(id, file);
          } else {
            retry(
                id,
                file,
                attempt,
                report.acceptedByAny()
                    ? "not accepted by " + report.failed()
                    : "no datacenter accepted it: " + report.failed());
          }
        });
  }

  private void retry(PartitionFileId id, Path file, int attempt, String why) {
    if (closed) {
      finish(id, file);
      return;
    }
    long delay = Math.min(backoffMax.toMillis(), backoffMin.toMillis() << Math.min(attempt, 20));
    if (attempt == 0 || attempt % 10 == 0) {
      LOG.warn("{}: {}; sending it again in {} ms (attempt {})", id, why, delay, attempt + 2);
    } else {
      LOG.debug("{}: {}; sending it again in {} ms", id, why, delay);
    }
    metrics.retried();
    try {
      retries.schedule(() -> attempt(id, file, attempt + 1), delay, TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.RejectedExecutionException e) {
      finish(id, file); // closing
    }
  }

  /**
   * Whether the manifest (as this node sees it) already notes that these datacenters hold {@code
   * id}: the transport's sender notes them itself, in the write that marks the version accepted.
   */
  private boolean noted(PartitionFileId id, Collection<String> datacenters) {
    Map<String, Long> delivered =
        manifest
            .latest(id.schemaVersion(), id.partition())
            .map(ManifestRecord::delivered)
            .orElse(Map.of());
    for (String dc : datacenters) {
      if (delivered.getOrDefault(dc, 0L) < id.version()) {
        return false;
      }
    }
    return true;
  }

  private void finish(PartitionFileId id, Path file) {
    sending.remove(file);
    pending.remove(id);
    prune(id);
  }

  /**
   * Deletes all but the newest retained versions of a partition, unless still being sent, and all
   * but the newest {@link #CHANGE_SETS_KEPT} change sets: those outlive their files, so that a
   * receiver that missed versions gets the change sets since the one it holds, composed, instead of
   * the file (they are a small fraction of a file each).
   */
  void prune(PartitionFileId id) {
    try {
      List<Long> versions = List.copyOf(layout.versions(id.schemaVersion(), id.partition()));
      for (int i = 0; i < versions.size() - retainVersions; i++) {
        Path f =
            layout.file(new PartitionFileId(id.schemaVersion(), id.partition(), versions.get(i)));
        if (!sending.contains(f)) {
          Files.deleteIfExists(f);
        }
      }
      List<Long> changeSets =
          List.copyOf(
              ChangeSetFile.versions(layout.partitionDir(id.schemaVersion(), id.partition())));
      for (int i = 0; i < changeSets.size() - Math.max(retainVersions, CHANGE_SETS_KEPT); i++) {
        Path f =
            layout.file(new PartitionFileId(id.schemaVersion(), id.partition(), changeSets.get(i)));
        if (!sending.contains(f)) {
          ChangeSetFile.delete(f);
        }
      }
    } catch (IOException e) {
      LOG.warn("could not prune old versions of partition {}", id.partition(), e);
    }
  }

  /** Stops re-sending; deliveries in flight in the sender finish there. */
  @Override
  public void close() {
    closed = true;
    retries.shutdownNow();
  }
}
