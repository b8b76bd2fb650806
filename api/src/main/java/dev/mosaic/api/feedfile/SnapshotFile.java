package dev.mosaic.api.feedfile;

import dev.mosaic.api.feed.FeedSnapshot;
import java.util.List;
import java.util.Objects;

/**
 * A snapshot file as read: the snapshot of every valid offer, and the records that were not.
 *
 * <p>Thread safety: immutable.
 *
 * @param snapshot the header's partner, snapshot id and creation time, with every valid offer in
 *     file order
 * @param malformed the records that were not valid offers, in file order
 */
public record SnapshotFile(FeedSnapshot snapshot, List<MalformedRecord> malformed) {
  public SnapshotFile {
    Objects.requireNonNull(snapshot, "snapshot");
    malformed = List.copyOf(malformed);
  }
}
