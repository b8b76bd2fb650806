package dev.mosaic.indexer;

import dev.mosaic.format.Schema;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionManifest;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares a restored (or re-schema'd) partition with the manifest: learns its last version, marks
 * it dirty unless the manifest holds exactly this content under the current schema version, and
 * re-sends the recorded version when some datacenter is known to lack it (rebuilding it when this
 * node does not hold its file). Thread safety: safe for concurrent use.
 */
final class Reconciler {
  private static final Logger LOG = LoggerFactory.getLogger(Reconciler.class);

  private final PartitionManifest manifest;
  private final PartitionRebuilder rebuilder;
  private final RebuildScheduler scheduler;
  private final VersionDelivery delivery;

  Reconciler(
      PartitionManifest manifest,
      PartitionRebuilder rebuilder,
      RebuildScheduler scheduler,
      VersionDelivery delivery) {
    this.manifest = manifest;
    this.rebuilder = rebuilder;
    this.scheduler = scheduler;
    this.delivery = delivery;
  }

  /**
   * @return true when the partition will be rebuilt
   */
  boolean reconcile(int p, PartitionState s, Schema current) {
    Optional<ManifestRecord> held = manifest.latest(current.version(), p);
    if (held.isPresent()) {
      ManifestRecord r = held.get();
      rebuilder.learn(p, r.id().version());
      if (r.fingerprint() == s.fingerprint()) {
        if (r.deliveredEverywhere()) {
          return false;
        }
        if (delivery.holdsFile(r.id())) {
          LOG.info(
              "{} is not known to be in every datacenter ({}); sending it again",
              r.id(),
              r.delivered());
          delivery.deliver(r.id());
          return false;
        }
        LOG.info(
            "{} is not known to be in every datacenter ({}) and its file is not here; rebuilding",
            r.id(),
            r.delivered());
      }
    } else if (s.size() == 0) {
      return false;
    }
    scheduler.mark(p);
    return true;
  }
}
