package dev.mosaic.indexer;

import dev.mosaic.format.Database;
import dev.mosaic.format.Schema;
import dev.mosaic.partition.FileDigest;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import dev.mosaic.partition.PartitionManifest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.function.IntConsumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rebuilds one partition: writes a new version of its file from the current state by merge (see
 * {@link PartitionBuild}: the previous file's unchanged documents carried over, changed offers
 * added, in key-hash order, so the same offers give the same bytes) durably into the output
 * directory, records it in the manifest under the node's ownership epoch and hands it to the {@link
 * VersionDelivery}. The rebuild thread only merges and writes; forcing the file to disk, recording
 * it and committing it to the state run on the {@link DurablePublisher}'s I/O threads, so the
 * fsyncs of one cycle's files overlap while the next partitions merge (the file is durable before
 * its record; the partition counts as being rebuilt until then). A version that is not recorded
 * (the manifest holds a newer one, another node claimed the partition, the manifest write failed)
 * leaves no file behind.
 *
 * <p>A node that took a partition over with its recorded content but without the file rebuilds that
 * version locally and checks it against the manifest's size and CRC32C instead of recording a new
 * one. A partition whose base file is gone, or of another schema, is restored from the offers topic
 * again (the state holds no offer bytes to rebuild it from).
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
  private final IntConsumer restore;
  private final DurablePublisher publisher;
  private final DictionaryDonor dictionaryDonor = new DictionaryDonor();

  PartitionRebuilder(
      IndexerConfig config,
      Ownership ownership,
      RebuildScheduler scheduler,
      VersionDelivery delivery,
      IndexerMetrics metrics,
      Supplier<Schema> schema,
      IntConsumer restore) {
    this.config = config;
    this.layout = new PartitionLayout(config.outputDir());
    this.ownership = ownership;
    this.scheduler = scheduler;
    this.delivery = delivery;
    this.metrics = metrics;
    this.schema = schema;
    this.lastVersion = new AtomicLongArray(config.partitions());
    this.restore = restore;
    this.publisher = new DurablePublisher(config.nodeName());
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
    boolean handedOver = false;
    try {
      PartitionState s = ownership.state(p);
      long epoch = ownership.epoch(p);
      if (s == null || epoch == 0) {
        return; // not (or no longer) ours
      }
      Schema current = schema.get();
      scheduler.reading(p);
      PartitionState.Plan plan = s.plan();
      if (plan.base() != null && plan.base().schemaVersion() != current.version()) {
        LOG.info("partition {}: {} is of another schema; restoring its offers", p, plan.base());
        restore.accept(p);
        return;
      }
      Optional<ManifestRecord> held = config.manifest().latest(current.version(), p);
      if (plan.base() == null
          && held.isPresent()
          && held.get().fingerprint() == plan.fingerprint()
          && !Files.exists(layout.file(held.get().id()))
          && materialize(s, plan, current, held.get())) {
        return;
      }
      long version = Math.max(lastVersion.get(p) + 1, config.clock().millis());
      PartitionFileId id = new PartitionFileId(current.version(), p, version);
      Path file = layout.file(id);
      layout.createPartitionDir(id.schemaVersion(), id.partition());
      Path temp = PartitionLayout.tempFileFor(file);
      PartitionBuild.Result built;
      try (Database base = openBase(plan)) {
        Database donor = base == null ? dictionaryDonor.of(current) : null;
        built = PartitionBuild.write(plan, current, base, donor, id, temp, file, false);
        if (base == null) {
          dictionaryDonor.offer(current, temp, built.summary().documents());
        }
      } catch (Exception | Error e) {
        Files.deleteIfExists(temp);
        dev.mosaic.partition.ChangeSetFile.delete(file);
        throw e;
      }
      // durable, recorded and committed on an I/O thread; the partition stays "being rebuilt"
      // (never rebuilt twice at once) until that finishes
      CompletableFuture<Void> published;
      try {
        published =
            publisher.publish(temp, file, () -> finish(s, plan, id, file, built, epoch, began));
      } catch (RejectedExecutionException e) {
        Files.deleteIfExists(temp); // closing
        throw e;
      }
      published.whenComplete(
          (v, e) -> {
            if (e != null) {
              failed(p, e);
            }
            scheduler.done(p);
          });
      handedOver = true;
    } catch (Exception e) {
      failed(p, e);
    } finally {
      if (!handedOver) {
        scheduler.done(p);
      }
    }
  }

  /** Records a durable file and makes it the partition's base. Runs on an I/O thread. */
  private void finish(
      PartitionState s,
      PartitionState.Plan plan,
      PartitionFileId id,
      Path file,
      PartitionBuild.Result built,
      long epoch,
      long began) {
    int documents = built.summary().documents();
    try {
      if (!record(id, file, s, plan.fingerprint(), documents, epoch)) {
        return;
      }
    } catch (Exception e) {
      throw new CompletionException(e);
    }
    s.commit(plan, built.merged());
    metrics.rebuilt(System.nanoTime() - began, documents, built.summary().carriedOver());
    LOG.debug(
        "rebuilt {}: {} documents, {} carried over", id, documents, built.summary().carriedOver());
    try {
      config.listener().rebuilt(id, file, documents);
    } catch (RuntimeException e) {
      LOG.warn("rebuild listener failed for {}", id, e);
    }
    delivery.deliver(id);
  }

  private void failed(int p, Throwable e) {
    LOG.error("rebuilding partition {} failed; it stays dirty", p, e);
    if (ownership.state(p) != null) {
      scheduler.mark(p);
    }
  }

  /** Drops queued publications of written files (a crash, for tests). */
  void abandon() {
    publisher.abandon();
  }

  /** Finishes the publications of written files (up to 30 s). */
  void close() {
    publisher.close();
  }

  /** Opens the plan's base file, or returns null when it has none; asks for a restore if gone. */
  private Database openBase(PartitionState.Plan plan) throws IOException {
    if (plan.base() == null) {
      return null;
    }
    Path file = layout.file(plan.base());
    try {
      // confined: the build reads and closes the base on this thread only, and closing a shared
      // mapping costs a handshake with every thread of the process, per rebuild. (Faster rebuilds
      // may supersede a version before its delivery; receivers then get the change sets since
      // the version they hold, composed: ChangeSetChain in the transport.)
      return Database.openConfined(file);
    } catch (NoSuchFileException e) {
      restore.accept(plan.partition());
      throw new IOException(
          "the base " + file + " of partition " + plan.partition() + " is gone; restoring", e);
    }
  }

  /**
   * Builds the recorded version of a partition this node holds the offers but not the file of (a
   * takeover): builds are deterministic, so the same offers give the recorded bytes, checked by
   * size and CRC32C. Nothing is recorded; the file becomes the base.
   *
   * @return false when the bytes differ (the file is deleted; a new version gets built)
   */
  private boolean materialize(
      PartitionState s, PartitionState.Plan plan, Schema current, ManifestRecord held)
      throws Exception {
    Path file = layout.file(held.id());
    layout.createPartitionDir(held.id().schemaVersion(), held.id().partition());
    PartitionBuild.Result built = PartitionBuild.write(plan, current, null, held.id(), file, true);
    FileDigest digest = FileDigest.of(file);
    if (digest.size() != held.size() || digest.crc32c() != held.crc32c()) {
      Files.deleteIfExists(file);
      LOG.warn(
          "partition {}: rebuilding {} from the same offers gave other bytes; building a new version",
          plan.partition(),
          held.id());
      return false;
    }
    s.commit(plan, built.merged());
    LOG.debug("rebuilt the recorded {} here, byte for byte", held.id());
    if (!held.deliveredEverywhere()) {
      delivery.deliver(held.id());
    }
    return true;
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
      // the trailer holds the content CRC32C the writer computed; receivers check it while the
      // bytes stream in, so the file just written is not read again here
      FileDigest digest = FileDigest.ofTrailer(file);
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
        dev.mosaic.partition.ChangeSetFile.delete(file);
      }
    }
  }
}
