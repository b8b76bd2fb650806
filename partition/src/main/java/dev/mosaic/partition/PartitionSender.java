package dev.mosaic.partition;

import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * Ships new partition files to every datacenter. The indexer hands each rebuilt file here.
 *
 * <p>Thread safety: implementations are safe for concurrent use.
 */
public interface PartitionSender {

  /**
   * Delivers one immutable file to one entry searcher per known datacenter (which relays it inside
   * its datacenter), retrying other searchers of a datacenter on failure.
   *
   * @return completes with the outcome per datacenter once every datacenter accepted the file or
   *     gave up; NOTE: the file must stay in place until then
   */
  CompletionStage<DeliveryReport> send(PartitionFileId id, Path file);

  /** Outcome of one delivery: per datacenter, the node that accepted it or the last error. */
  record DeliveryReport(
      PartitionFileId id, Map<String, String> acceptedBy, Map<String, String> failed) {
    /** True when at least one datacenter holds the file. */
    public boolean acceptedByAny() {
      return !acceptedBy.isEmpty();
    }
  }
}
