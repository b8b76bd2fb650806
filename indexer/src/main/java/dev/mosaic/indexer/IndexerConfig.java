package dev.mosaic.indexer;

import dev.mosaic.format.Schema;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.PartitionSender;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Everything an {@link IndexerNode} is configured with, fixed at build time. Immutable (the
 * consumer properties are copied).
 *
 * @param schema the schema the node starts with ({@link IndexerNode#useSchema} may switch)
 * @param createTopicsWithPartitions Kafka partitions of the offers topic to create at start; 0: do
 *     not create
 * @param deliveryBackoffMin first wait before re-sending a version some datacenter did not accept
 * @param deliveryBackoffMax longest wait between re-sends
 * @param hooks test-only interception points
 */
record IndexerConfig(
    String nodeName,
    String groupId,
    String bootstrapServers,
    String offersTopic,
    String deadLetterTopic,
    int partitions,
    Schema schema,
    MeterRegistry meterRegistry,
    FeedMessageLimits feedLimits,
    int createTopicsWithPartitions,
    Path outputDir,
    PartitionSender sender,
    PartitionManifest manifest,
    Duration debounce,
    Duration maxDelay,
    int rebuildThreads,
    int retainVersions,
    Map<String, String> consumerProperties,
    Clock clock,
    RebuildListener listener,
    Duration deliveryBackoffMin,
    Duration deliveryBackoffMax,
    Hooks hooks) {

  IndexerConfig {
    consumerProperties = Map.copyOf(consumerProperties);
  }

  /**
   * Points where tests stop a node in a chosen state (a paused consumer, a rebuild held right
   * before it records). Both run on the node's own threads and may block.
   *
   * @param eachPoll runs on the consumer thread before every poll
   * @param beforeRecord runs on a rebuild thread after the file is written, before it is recorded
   */
  record Hooks(Runnable eachPoll, Consumer<PartitionFileId> beforeRecord) {
    static final Hooks NONE = new Hooks(() -> {}, id -> {});
  }
}
