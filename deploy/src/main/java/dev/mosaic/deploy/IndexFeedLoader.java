package dev.mosaic.deploy;

import dev.mosaic.api.feedfile.SnapshotFileReader;
import dev.mosaic.api.schema.PayloadCheck;
import dev.mosaic.indexer.FeedDirectoryWatcher;
import dev.mosaic.indexer.FeedLoader;
import dev.mosaic.indexer.FileDeadLetters;
import dev.mosaic.indexer.OfferTopics;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;

/**
 * The feed loader of one index, configured from its {@link IndexConfig}, and the partner feeds it
 * follows ({@link PartnerFeeds}): the snapshot topic (the loader's own follower) and the watched
 * directory of snapshot files ({@link FeedDirectoryWatcher}, its malformed records dead-lettered by
 * {@link FileDeadLetters}). Every new or changed offer's payload is checked against the index's
 * payload type ({@link PayloadCheck#against}); what fails goes to the index's dead-letter topic
 * with the reason.
 *
 * <p>Lifecycle: {@link #start} opens everything, {@link #close()} stops it. Thread safety: the
 * loader is safe for concurrent use; the watcher runs on its own thread.
 */
final class IndexFeedLoader implements AutoCloseable {
  /** How often the directory is scanned at the least (file system events wake it earlier). */
  static final Duration DIRECTORY_SCAN = Duration.ofSeconds(1);

  /** How long a file whose snapshot could not be published waits before the next try. */
  static final Duration FILE_RETRY = Duration.ofSeconds(5);

  private final FeedLoader loader;
  private final FileDeadLetters deadLetters;
  private final FeedDirectoryWatcher watcher;
  private final AtomicBoolean closed = new AtomicBoolean();

  private IndexFeedLoader(
      FeedLoader loader, FileDeadLetters deadLetters, FeedDirectoryWatcher watcher) {
    this.loader = loader;
    this.deadLetters = deadLetters;
    this.watcher = watcher;
  }

  /** The consumer group following an index's snapshot topic. */
  static String snapshotGroup(IndexConfig index) {
    return OfferTopics.FEED_LOADER_GROUP + "-" + index.name();
  }

  /**
   * Starts the loader of an index and its partner feeds.
   *
   * @param stateDir where the loader keeps partners' previous snapshots, or null for memory only
   * @param node names this process in dead-letter records
   * @throws IOException if the watched directory cannot be created or watched
   */
  static IndexFeedLoader start(
      IndexConfig index,
      String bootstrapServers,
      Path stateDir,
      String node,
      MeterRegistry registry)
      throws IOException {
    return start(index, index.feeds(), bootstrapServers, stateDir, node, registry);
  }

  /** The loader of an index without its partner feeds (to publish snapshot files given to it). */
  static IndexFeedLoader withoutPartnerFeeds(
      IndexConfig index, String bootstrapServers, Path stateDir, MeterRegistry registry)
      throws IOException {
    return start(index, PartnerFeeds.NONE, bootstrapServers, stateDir, "", registry);
  }

  private static IndexFeedLoader start(
      IndexConfig index,
      PartnerFeeds feeds,
      String bootstrapServers,
      Path stateDir,
      String node,
      MeterRegistry registry)
      throws IOException {
    FeedLoader.Builder b =
        FeedLoader.builder()
            .bootstrapServers(bootstrapServers)
            .offersTopic(index.offersTopic())
            .deadLetterTopic(index.deadLetterTopic())
            .partitions(index.partitions())
            .schema(index.schema().schema())
            .payloadCheck(PayloadCheck.against(index.schema()))
            .stateDir(stateDir)
            .meterRegistry(registry);
    if (feeds.snapshotTopic() != null) {
      b.feedsTopic(feeds.snapshotTopic()).feedsGroupId(snapshotGroup(index));
    }
    FeedLoader loader = b.build().start();
    if (feeds.directory() == null) {
      return new IndexFeedLoader(loader, null, null);
    }
    FileDeadLetters deadLetters =
        new FileDeadLetters(bootstrapServers, index.deadLetterTopic(), node, registry);
    try {
      FeedDirectoryWatcher watcher =
          new FeedDirectoryWatcher(
                  new FeedDirectoryWatcher.Config(
                      feeds.directory(), feeds.readySignal(), DIRECTORY_SCAN, FILE_RETRY),
                  new SnapshotFileReader(
                      index.schema().types().typeRegistry(),
                      SnapshotFileReader.DEFAULT_MAX_RECORD_BYTES),
                  FeedDirectoryWatcher.SnapshotSink.into(loader),
                  deadLetters,
                  registry)
              .start();
      return new IndexFeedLoader(loader, deadLetters, watcher);
    } catch (IOException | RuntimeException e) {
      deadLetters.close();
      loader.close();
      throw e;
    }
  }

  /**
   * Creates the index's snapshot topic when it names one and it is missing, with as many partitions
   * as its offers topic.
   */
  static void createSnapshotTopic(Admin admin, IndexConfig index, short replicationFactor) {
    String topic = index.feeds().snapshotTopic();
    if (topic != null) {
      OfferTopics.createSnapshotTopic(admin, topic, index.topicPartitions(), replicationFactor);
    }
  }

  /** The index's feed loader. */
  FeedLoader loader() {
    return loader;
  }

  /** The watcher of the index's feed directory, when it has one. */
  Optional<FeedDirectoryWatcher> watcher() {
    return Optional.ofNullable(watcher);
  }

  /**
   * Stops the watcher, then the dead letters (sending what they buffer), then the loader; only the
   * first call does.
   */
  @Override
  public void close() {
    if (closed.getAndSet(true)) {
      return;
    }
    if (watcher != null) {
      watcher.close();
    }
    if (deadLetters != null) {
      deadLetters.close();
    }
    loader.close();
  }
}
