package dev.mosaic.partition.impl;

import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The decisions of every {@link PartitionManifest} write, on top of one compare-and-set primitive
 * its storage provides ({@link #update}). Thread safety: as safe as {@link #update}.
 */
abstract class CompareAndSetManifest implements PartitionManifest {

  /**
   * The result of one {@link #update}.
   *
   * @param held the record held after the update (null: none)
   * @param changed whether the update wrote
   * @param fenced whether it was refused because the partition's epoch moved on
   */
  record Update(ManifestRecord held, boolean changed, boolean fenced) {}

  /**
   * Atomically replaces a partition's record by {@code change.apply(current)} (current is null when
   * there is none; a null result writes nothing), retrying on concurrent writers. When {@code
   * fenceEpoch > 0} the write happens only while the partition's epoch equals it.
   */
  abstract Update update(
      int schemaVersion, int partition, long fenceEpoch, UnaryOperator<ManifestRecord> change)
      throws Exception;

  @Override
  public final Recorded record(ManifestRecord record) throws Exception {
    PartitionFileId id = record.id();
    Update u =
        update(
            id.schemaVersion(),
            id.partition(),
            record.epoch(),
            held -> {
              if (held != null && held.id().version() >= id.version()) {
                return null;
              }
              return held == null ? record : record.withDelivered(held.delivered());
            });
    Outcome outcome =
        u.fenced() ? Outcome.FENCED : u.changed() ? Outcome.RECORDED : Outcome.NOT_NEWER;
    return new Recorded(outcome, Optional.ofNullable(u.held()));
  }

  @Override
  public final boolean advance(ManifestRecord record) throws Exception {
    PartitionFileId id = record.id();
    return update(
            id.schemaVersion(),
            id.partition(),
            0,
            held -> {
              if (held == null || held.id().version() < id.version()) {
                ManifestRecord next =
                    held == null
                        ? record
                        : record.withDelivered(merged(held.delivered(), record.delivered()));
                return held != null && held.epoch() > next.epoch()
                    ? copyWithEpoch(next, held.epoch())
                    : next;
              }
              ManifestRecord next = held;
              if (held.id().version() == id.version() && !held.accepted() && record.accepted()) {
                next = next.withAccepted(record.acceptedAtMillis(), record.acceptedBy());
              }
              Map<String, Long> delivered = merged(held.delivered(), record.delivered());
              if (!delivered.equals(held.delivered())) {
                next = next.withDelivered(delivered);
              }
              return next == held ? null : next;
            })
        .changed();
  }

  /** Each datacenter's newest known version of two notes. */
  private static Map<String, Long> merged(Map<String, Long> a, Map<String, Long> b) {
    if (b.isEmpty()) {
      return a;
    }
    Map<String, Long> out = new HashMap<>(a);
    b.forEach((dc, v) -> out.merge(dc, v, Math::max));
    return out;
  }

  @Override
  public final void delivered(PartitionFileId id, Collection<String> datacenters) throws Exception {
    if (datacenters.isEmpty()) {
      return;
    }
    Map<String, Long> noted = new HashMap<>();
    datacenters.forEach(dc -> noted.put(dc, id.version()));
    update(
        id.schemaVersion(),
        id.partition(),
        0,
        held -> {
          if (held == null) {
            return null;
          }
          Map<String, Long> next = merged(held.delivered(), noted);
          return next.equals(held.delivered()) ? null : held.withDelivered(next);
        });
  }

  private static ManifestRecord copyWithEpoch(ManifestRecord r, long epoch) {
    return new ManifestRecord(
        r.id(),
        r.size(),
        r.crc32c(),
        r.fingerprint(),
        r.documents(),
        r.createdAtMillis(),
        r.acceptedAtMillis(),
        r.acceptedBy(),
        epoch,
        r.delivered());
  }
}
