package dev.mosaic.deploy;

import dev.mosaic.indexer.FeedDirectoryWatcher;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where partners put the snapshots of one index besides the feed simulator: a watched directory of
 * snapshot files (JSON lines {@code .jsonl} or length-delimited Protobuf {@code .pb}) and a Kafka
 * topic of serialized {@code FeedSnapshot}s. Either, both or neither.
 *
 * <p>Thread safety: immutable.
 *
 * @param directory the watched directory ({@code feed-directory}), or null
 * @param readySignal how a file there says it is complete ({@code feed-ready}: {@code rename} or
 *     {@code marker}, see {@link FeedDirectoryWatcher.ReadySignal})
 * @param snapshotTopic the topic of snapshots ({@code snapshot-topic}), or null
 */
public record PartnerFeeds(
    Path directory, FeedDirectoryWatcher.ReadySignal readySignal, String snapshotTopic) {
  /** No partner feeds: only the simulator, or snapshot files given to the command. */
  public static final PartnerFeeds NONE =
      new PartnerFeeds(null, FeedDirectoryWatcher.ReadySignal.RENAME, null);

  public PartnerFeeds {
    Objects.requireNonNull(readySignal, "readySignal");
    if (snapshotTopic != null && snapshotTopic.isBlank()) {
      throw new IllegalArgumentException("snapshot-topic must not be blank");
    }
  }

  /** Whether any partner feed is configured. */
  public boolean any() {
    return directory != null || snapshotTopic != null;
  }
}
