package dev.mosaic.indexer;

import dev.mosaic.format.Schema;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionManifest;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compares a restored partition with the manifest: learns its last version and, when the manifest
 * holds exactly this content under the current schema version and the file is here, adopts that
 * file as the partition's base (dropping the offers' bytes) and re-sends it if some datacenter is
 * known to lack it; otherwise marks the partition dirty (the rebuild makes the recorded version
 * here when the content matches, a new version when it does not). Thread safety: safe for
 * concurrent use.
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
        boolean fileHere =
            r.id().equals(s.base())
                || (s.base() == null
                    && delivery.holdsFile(r.id())
                    && s.adopt(r.id(), r.documents()));
        if (fileHere) {
          if (!r.deliveredEverywhere()) {
            LOG.info(
                "{} is not known to be in every datacenter ({}); sending it again",
                r.id(),
                r.delivered());
            delivery.deliver(r.id());
          }
          return false;
        }
        // the content is recorded but its file is not here: the rebuild makes that version here
      }
    } else if (s.size() == 0) {
      return false;
    }
    scheduler.mark(p);
    return true;
  }
}
