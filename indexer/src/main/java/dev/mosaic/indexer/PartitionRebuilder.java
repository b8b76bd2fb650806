package dev.mosaic.indexer;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Schema;
import dev.mosaic.partition.DurableFiles;
import dev.mosaic.partition.FileDigest;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import dev.mosaic.partition.PartitionManifest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds one partition: writes a new version of its file from the current state (documents
 * ordered by key hash, so the same offers give the same bytes) durably into the output directory,
 * records it in the manifest under the node's ownership epoch and hands it to the {@link
 * VersionDelivery}. A version that is not recorded (the manifest holds a newer one, another node
 * claimed the partition, the manifest write failed) leaves no file behind.
 *
 * <p>Versions only go up: a new version is {@code max(last known version + 1, clock millis)}; the
 * last known version comes from the manifest when the partition is taken over.
 *
 * <p>Thread safety: safe for concurrent use for different partitions ({@link RebuildScheduler}
 * never runs two rebuilds of one partition at once).
 */
final class PartitionRebuilder {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionRebuilder.class);

  private final IndexerConfig config;
  private final PartitionLayout layout;
  private final Ownership ownership;
  private final RebuildScheduler scheduler;
  private final VersionDelivery delivery;
  private final IndexerMetrics metrics;
  private final Supplier<Schema> schema;
  private final AtomicLongArray lastVersion;

  PartitionRebuilder(
      IndexerConfig config,
      Ownership ownership,
      RebuildScheduler scheduler,
      VersionDelivery delivery,
      IndexerMetrics metrics,
      Supplier<Schema> schema) {
    this.config = config;
    this.layout = new PartitionLayout(config.outputDir());
    this.ownership = ownership;
    this.scheduler = scheduler;
    this.delivery = delivery;
    this.metrics = metrics;
    this.schema = schema;
    this.lastVersion = new AtomicLongArray(config.partitions());
  }

  /** Raises the partition's last known version. */
  void learn(int p, long version) {
    lastVersion.accumulateAndGet(p, version, Math::max);
  }

  /** Whether {@code id} is the newest version this node knows of a partition it owns. */
  boolean isLatestOwned(PartitionFileId id) {
    return ownership.epoch(id.partition()) > 0
        && lastVersion.get(id.partition()) == id.version()
        && schema.get().version() == id.schemaVersion();
  }

  /** Rebuilds partition {@code p}; on failure it stays dirty. Runs on a rebuild thread. */
  void rebuild(int p) {
    long began = System.nanoTime();
    try {
      PartitionState s = ownership.state(p);
      long epoch = ownership.epoch(p);
      if (s == null || epoch == 0) {
        return; // not (or no longer) ours
      }
      Schema current = schema.get();
      scheduler.reading(p);
      PartitionState.Snapshot snap = s.snapshot();
      DatabaseBuilder builder = build(p, current, snap);
      long version = Math.max(lastVersion.get(p) + 1, config.clock().millis());
      PartitionFileId id = new PartitionFileId(current.version(), p, version);
      Path file = layout.file(id);
      DurableFiles.write(
          file,
          tmp -> {
            builder.writeTo(tmp);
            return null;
          });
      if (!record(id, file, s, snap.fingerprint(), builder.documentCount(), epoch)) {
        return;
      }
      metrics.rebuilt(System.nanoTime() - began, builder.documentCount());
      LOG.debug("rebuilt {} with {} documents", id, builder.documentCount());
      try {
        config.listener().rebuilt(id, file, builder.documentCount());
      } catch (RuntimeException e) {
        LOG.warn("rebuild listener failed for {}", id, e);
      }
      delivery.deliver(id);
    } catch (Exception e) {
      LOG.error("rebuilding partition {} failed; it stays dirty", p, e);
      if (ownership.state(p) != null) {
        scheduler.mark(p);
      }
    } finally {
      scheduler.done(p);
    }
  }

  private static DatabaseBuilder build(int p, Schema schema, PartitionState.Snapshot snap) {
    DatabaseBuilder builder = DatabaseBuilder.create(schema);
    int skipped = 0;
    for (int i = 0; i < snap.size(); i++) {
      try {
        Offer offer = Offer.parser().parseFrom(snap.slab(), snap.offset(i), snap.length(i));
        builder.add(OfferDocuments.toDocument(schema, offer));
      } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
        if (skipped++ == 0) {
          LOG.warn(
              "partition {}: offer left out of schema v{}: {}",
              p,
              schema.version(),
              e.getMessage());
        }
      }
    }
    if (skipped > 0) {
      LOG.warn("partition {}: {} offers left out of schema v{}", p, skipped, schema.version());
    }
    return builder;
  }

  /**
   * Records a written file; deletes it unless recorded.
   *
   * @return true when recorded
   */
  private boolean record(
      PartitionFileId id, Path file, PartitionState s, long fingerprint, int documents, long epoch)
      throws Exception {
    boolean recorded = false;
    try {
      config.hooks().beforeRecord().accept(id);
      int p = id.partition();
      if (!ownership.holds(p, s)) {
        LOG.info("partition {} moved to another node while {} was built; not recorded", p, id);
        return false;
      }
      FileDigest digest = FileDigest.of(file);
      PartitionManifest.Recorded r =
          config
              .manifest()
              .record(
                  ManifestRecord.built(
                      id,
                      digest.size(),
                      digest.crc32c(),
                      fingerprint,
                      documents,
                      config.clock().millis(),
                      epoch));
      switch (r.outcome()) {
        case RECORDED -> {
          learn(p, id.version());
          recorded = true;
        }
        case NOT_NEWER -> {
          r.held().ifPresent(h -> learn(p, h.id().version()));
          LOG.warn(
              "partition {}: version {} not recorded, the manifest holds {}; rebuilding above it",
              p,
              id.version(),
              r.held().map(h -> h.id().toString()).orElse("a newer one"));
          scheduler.mark(p);
        }
        case FENCED -> {
          metrics.fenced();
          LOG.warn(
              "partition {}: {} not recorded: another node claimed the partition after epoch {}",
              p,
              id,
              epoch);
        }
      }
      return recorded;
    } finally {
      if (!recorded) {
        Files.deleteIfExists(file);
      }
    }
  }
}
