package dev.mosaic.partition;

import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * The manifest's record of the latest version of one partition: what the file is (size, CRC32C, the
 * fingerprint of the offers it was built from, its document count, when it was built), who recorded
 * it (the writer's ownership epoch), when and by which node of which datacenter it was first
 * accepted, and which version every datacenter is known to hold. Immutable.
 *
 * @param id schema version, partition and version
 * @param size bytes of the file
 * @param crc32c CRC32C of the whole file
 * @param fingerprint order-independent hash of the offers the file was built from (0: unknown)
 * @param documents documents in the file (-1: unknown)
 * @param createdAtMillis when the file was built
 * @param acceptedAtMillis when a first datacenter accepted it; 0 while none has
 * @param acceptedBy {@code node@dc} that accepted it first; empty while none has
 * @param epoch ownership epoch (fencing token) of the writer; 0 for an unfenced writer
 * @param delivered per datacenter, the newest version of this partition it is known to hold
 */
public record ManifestRecord(
    PartitionFileId id,
    long size,
    long crc32c,
    long fingerprint,
    int documents,
    long createdAtMillis,
    long acceptedAtMillis,
    String acceptedBy,
    long epoch,
    Map<String, Long> delivered) {

  /** Checks the fields; {@code delivered} is copied into a sorted immutable map. */
  public ManifestRecord {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(acceptedBy, "acceptedBy");
    if (size < 0) {
      throw new IllegalArgumentException(id + ": size must be >= 0: " + size);
    }
    if (documents < -1) {
      throw new IllegalArgumentException(id + ": documents must be >= -1: " + documents);
    }
    if (epoch < 0) {
      throw new IllegalArgumentException(id + ": epoch must be >= 0: " + epoch);
    }
    delivered = java.util.Collections.unmodifiableMap(new TreeMap<>(delivered));
  }

  /**
   * A record of a version already accepted by a datacenter, written by an unfenced sender (no
   * indexer metadata): fingerprint 0, documents unknown, built when accepted, epoch 0.
   */
  public ManifestRecord(
      PartitionFileId id, long size, long crc32c, long acceptedAtMillis, String acceptedBy) {
    this(id, size, crc32c, 0, -1, acceptedAtMillis, acceptedAtMillis, acceptedBy, 0, Map.of());
  }

  /**
   * A freshly built version, not yet accepted anywhere.
   *
   * @param epoch the writer's ownership epoch (see {@link PartitionManifest#claim})
   */
  public static ManifestRecord built(
      PartitionFileId id,
      long size,
      long crc32c,
      long fingerprint,
      int documents,
      long createdAtMillis,
      long epoch) {
    return new ManifestRecord(
        id, size, crc32c, fingerprint, documents, createdAtMillis, 0, "", epoch, Map.of());
  }

  /** True once a first datacenter accepted this version. */
  public boolean accepted() {
    return acceptedAtMillis > 0;
  }

  /** This record, accepted first by {@code by} at {@code atMillis} (unless accepted already). */
  public ManifestRecord withAccepted(long atMillis, String by) {
    if (accepted()) {
      return this;
    }
    return new ManifestRecord(
        id, size, crc32c, fingerprint, documents, createdAtMillis, atMillis, by, epoch, delivered);
  }

  /** This record with the datacenters' known versions replaced by {@code newDelivered}. */
  public ManifestRecord withDelivered(Map<String, Long> newDelivered) {
    return new ManifestRecord(
        id,
        size,
        crc32c,
        fingerprint,
        documents,
        createdAtMillis,
        acceptedAtMillis,
        acceptedBy,
        epoch,
        newDelivered);
  }

  /**
   * True when every datacenter known to have held a version of this partition holds this one (and
   * at least one does). A datacenter never reached for this partition is not known here; its
   * searchers catch up from the others.
   */
  public boolean deliveredEverywhere() {
    return !delivered.isEmpty() && delivered.values().stream().allMatch(v -> v >= id.version());
  }
}
