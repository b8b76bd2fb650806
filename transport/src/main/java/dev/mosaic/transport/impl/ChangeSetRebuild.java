package dev.mosaic.transport.impl;

import dev.mosaic.format.ChangeSet;
import dev.mosaic.format.Database;
import dev.mosaic.format.MalformedChangeSetException;
import dev.mosaic.partition.DigestMismatchException;
import dev.mosaic.partition.FileDigest;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.partition.ReceivingStore.StagedFile;
import dev.mosaic.transport.wire.DeltaPush;
import java.io.IOException;
import java.util.Optional;
import java.util.zip.CRC32C;

/**
 * The receiving side of a delta push: rebuilds the offered version from the held base file and the
 * change set with the format's deterministic merge, into a file staged in the store, and publishes
 * it only when its size and content CRC32C are the header's (which the {@link ManifestGate} already
 * matched with the manifest's record, and which must equal the sender's trailer): the store checks
 * that while it verifies the file, in one pass ({@link StagedFile#publish(FileDigest)}). Blocking:
 * run it on the blocking executor. Not instantiable.
 */
final class ChangeSetRebuild {
  private ChangeSetRebuild() {}

  /** Largest change set a receiver takes into memory; larger offers are answered need-full. */
  static final long MAX_CHANGE_SET = 256L << 20;

  /**
   * The receiver cannot turn the change set into the file: the sender should send the file. {@code
   * fallback} is one of the bounded reasons of {@link TransportMetrics#FALLBACK_REASONS}.
   */
  static final class NeedFullException extends IOException {
    final String fallback;

    /** With base_missing: the newest version of the partition held, 0 when none. */
    final long heldVersion;

    NeedFullException(String fallback, String message) {
      this(fallback, message, 0);
    }

    NeedFullException(String fallback, String message, long heldVersion) {
      super(message);
      this.fallback = fallback;
      this.heldVersion = heldVersion;
    }
  }

  /**
   * Checks up front, before the change set is read, that it can be used: its size is sane and the
   * store holds the base.
   *
   * @throws NeedFullException with base_missing or malformed
   */
  static void precheck(ReceivingStore store, DeltaPush d, PartitionFileId id)
      throws NeedFullException {
    if (d.getChangeSetSize() < 0 || d.getChangeSetSize() > MAX_CHANGE_SET) {
      throw new NeedFullException(
          "malformed",
          "change set of " + d.getChangeSetSize() + " bytes (0.." + MAX_CHANGE_SET + " taken)");
    }
    if (d.getBaseVersion() >= id.version()) {
      throw new NeedFullException(
          "malformed", "base version " + d.getBaseVersion() + " is not older than " + id);
    }
    if (store.file(base(d, id)).isEmpty()) {
      Long held = store.latestVersions(id.schemaVersion()).get(id.partition());
      throw new NeedFullException(
          "base_missing",
          "does not hold the base "
              + base(d, id)
              + " of the change set ("
              + (held == null ? "holds no version of the partition" : "holds version " + held)
              + ")",
          held == null ? 0 : held);
    }
  }

  private static PartitionFileId base(DeltaPush d, PartitionFileId id) {
    return new PartitionFileId(id.schemaVersion(), id.partition(), d.getBaseVersion());
  }

  /**
   * Rebuilds and publishes {@code id} from its base and {@code changes}.
   *
   * @throws NeedFullException when the change set is damaged or malformed, the base is gone, or the
   *     rebuilt file differs from the header's size or CRC32C (nothing is published)
   * @throws IOException when the store refuses the staged file (as for a full push)
   */
  static void rebuild(ReceivingStore store, DeltaPush d, PartitionFileId id, byte[] changes)
      throws IOException {
    CRC32C crc = new CRC32C();
    crc.update(changes);
    if (crc.getValue() != d.getChangeSetCrc32C()) {
      throw new NeedFullException(
          "malformed",
          String.format(
              "change set checksum mismatch: header says crc32c=%08x, the %d bytes received have"
                  + " crc32c=%08x",
              d.getChangeSetCrc32C(), changes.length, crc.getValue()));
    }
    long size = d.getHeader().getSize();
    long expectedCrc = d.getHeader().getCrc32C();
    if (d.getContentCrc32C() != expectedCrc) {
      throw new NeedFullException(
          "malformed",
          String.format(
              "the sender's file has content crc32c=%08x, the header (the manifest's record) says"
                  + " %08x",
              d.getContentCrc32C(), expectedCrc));
    }
    PartitionFileId baseId = base(d, id);
    Optional<ReceivingStore.HeldFile> held = store.hold(baseId);
    if (held.isEmpty()) {
      throw new NeedFullException(
          "base_missing", "no longer holds the base " + baseId + " of the change set");
    }
    try (ReceivingStore.HeldFile baseFile = held.get();
        StagedFile staged = store.stage(id, size)) {
      // confined: the merge reads the base on this thread only, and closing a shared mapping
      // costs a handshake with every thread, per change set
      try (Database base = Database.openConfined(baseFile.path())) {
        ChangeSet.decode(base.schema(), changes).applyTo(base, staged.path(), false);
      } catch (MalformedChangeSetException e) {
        throw new NeedFullException("malformed", e.getMessage());
      } catch (IOException | RuntimeException e) {
        throw new NeedFullException(
            "rebuild_failed", "rebuilding " + id + " from " + baseId + " failed: " + e);
      }
      try {
        // the store verifies the file (structure, content against its trailer) and compares its
        // digest with the manifest's while it does: one pass over the rebuilt file
        staged.publish(new FileDigest(size, expectedCrc));
      } catch (DigestMismatchException e) {
        throw new NeedFullException(
            "rebuild_mismatch",
            String.format(
                "the file rebuilt from %s has %s, the manifest records %s",
                baseId, e.actual(), e.expected()));
      }
    }
  }
}
