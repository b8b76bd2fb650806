package dev.mosaic.searcher;

import java.util.HashMap;
import java.util.Map;
import java.util.NavigableMap;

/**
 * {@link PartitionStore#servingFiles}, {@link PartitionStore#servingArray} and {@link
 * PartitionStore#latestVersions} by schema version, derived once per change of the held files: a
 * searcher's reopens and the transport's catch-up checks ask for them many times a second, and each
 * derivation walks every partition.
 *
 * <p>Thread safety: not thread safe; guarded by the store's lock. The maps it holds are handed out
 * and must never be written to.
 */
final class Snapshots {
  final long at;
  final Map<Integer, NavigableMap<Integer, StoredFile>> serving = new HashMap<>();
  final Map<Integer, StoredFile[]> arrays = new HashMap<>();
  final Map<Integer, Map<Integer, Long>> latest = new HashMap<>();

  /**
   * @param at the store's modification count these maps are derived at
   */
  Snapshots(long at) {
    this.at = at;
  }
}
