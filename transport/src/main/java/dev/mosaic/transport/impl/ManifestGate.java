package dev.mosaic.transport.impl;

import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * Admits a pushed file only when the manifest records exactly its version, size and CRC32C, waiting
 * a bounded time for the manifest to show it (the sender records a version before pushing it; this
 * node's watched copy of the manifest may lag). A version the manifest never recorded is refused
 * and never stored, so it can neither be served nor make later versions look superseded.
 *
 * <p>Thread safety: safe for concurrent use; {@link #manifestChanged} may run on any thread.
 */
final class ManifestGate {
  /** What the manifest says about a pushed file. */
  enum Verdict {
    /** The manifest records this version with this size and checksum. */
    RECORDED,
    /** The manifest records a newer version: this copy is obsolete. */
    SUPERSEDED,
    /** The manifest records this version differently, or not within the wait. */
    REFUSED
  }

  /** A verdict with its reason (empty for {@link Verdict#RECORDED}). */
  record Decision(Verdict verdict, String reason) {}

  private record Waiter(
      PartitionFileId id, long size, long crc32c, CompletableFuture<Decision> result) {}

  private final PartitionManifest manifest;
  private final Duration wait;
  private final Set<Waiter> waiting = ConcurrentHashMap.newKeySet();

  /** Register {@link #manifestChanged} as a listener of {@code manifest}. */
  ManifestGate(PartitionManifest manifest, Duration wait) {
    this.manifest = manifest;
    this.wait = wait;
  }

  /** Decides now if the manifest allows it, else once it changes, else after the wait. */
  CompletionStage<Decision> check(PartitionFileId id, long size, long crc32c) {
    Optional<Decision> now = decide(id, size, crc32c);
    if (now.isPresent()) {
      return CompletableFuture.completedFuture(now.get());
    }
    Waiter w = new Waiter(id, size, crc32c, new CompletableFuture<>());
    waiting.add(w);
    settle(w); // the manifest may have changed between decide and add
    CompletableFuture.delayedExecutor(wait.toMillis(), TimeUnit.MILLISECONDS)
        .execute(
            () -> {
              if (waiting.remove(w)) {
                w.result().complete(new Decision(Verdict.REFUSED, notRecorded(id)));
              }
            });
    return w.result();
  }

  /** Re-checks every waiting push; call on every manifest change. */
  void manifestChanged() {
    for (Waiter w : waiting) {
      settle(w);
    }
  }

  private void settle(Waiter w) {
    Optional<Decision> d = decide(w.id(), w.size(), w.crc32c());
    if (d.isPresent() && waiting.remove(w)) {
      w.result().complete(d.get());
    }
  }

  private String notRecorded(PartitionFileId id) {
    return "not in the manifest: "
        + id
        + " was not recorded within "
        + wait.toMillis()
        + " ms (the manifest holds "
        + manifest
            .latest(id.schemaVersion(), id.partition())
            .map(r -> "version " + r.id().version())
            .orElse("no version")
        + " of partition "
        + id.partition()
        + ")";
  }

  private Optional<Decision> decide(PartitionFileId id, long size, long crc32c) {
    Optional<ManifestRecord> latest = manifest.latest(id.schemaVersion(), id.partition());
    if (latest.isEmpty() || latest.get().id().version() < id.version()) {
      return Optional.empty();
    }
    ManifestRecord rec = latest.get();
    if (rec.id().version() > id.version()) {
      return Optional.of(
          new Decision(
              Verdict.SUPERSEDED,
              "older version: "
                  + id
                  + " is older than the manifest's version "
                  + rec.id().version()
                  + " of partition "
                  + id.partition()));
    }
    if (rec.size() != size || rec.crc32c() != crc32c) {
      return Optional.of(
          new Decision(
              Verdict.REFUSED,
              String.format(
                  "does not match the manifest: %s announced %d bytes crc32c=%08x, the manifest"
                      + " records %d bytes crc32c=%08x",
                  id, size, crc32c, rec.size(), rec.crc32c())));
    }
    return Optional.of(new Decision(Verdict.RECORDED, ""));
  }
}
