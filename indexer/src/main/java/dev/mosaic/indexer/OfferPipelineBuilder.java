package dev.mosaic.indexer;

import dev.mosaic.format.Schema;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Objects;

/**
 * The settings every client of the offers topic shares: where Kafka is, the topics, the number of
 * index partitions and the schema offers are checked against. {@link FeedLoader.Builder} and {@link
 * IndexerNode.Builder} extend it, so the two sides of the topic are configured alike.
 *
 * <p>Thread safety: not thread safe, like every builder.
 *
 * @param <B> the concrete builder, returned by every setter for chaining
 */
public abstract class OfferPipelineBuilder<B extends OfferPipelineBuilder<B>> {
  String bootstrapServers;
  String offersTopic = OfferTopics.OFFERS;
  String deadLetterTopic = OfferTopics.DEAD_LETTERS;
  int partitions = OfferKeys.DEFAULT_PARTITIONS;
  Schema schema;
  MeterRegistry meterRegistry = new SimpleMeterRegistry();

  OfferPipelineBuilder() {}

  abstract B self();

  /** Kafka bootstrap servers (required). */
  public B bootstrapServers(String bootstrapServers) {
    this.bootstrapServers = Objects.requireNonNull(bootstrapServers);
    return self();
  }

  /** The offers topic (default {@value OfferTopics#OFFERS}). */
  public B offersTopic(String topic) {
    this.offersTopic = Objects.requireNonNull(topic);
    return self();
  }

  /** The dead-letter topic (default {@value OfferTopics#DEAD_LETTERS}). */
  public B deadLetterTopic(String topic) {
    this.deadLetterTopic = Objects.requireNonNull(topic);
    return self();
  }

  /**
   * The number of index partitions P (default 1024). NOTE: the feed loader and every indexer must
   * use the same P, or offers land in partitions nobody rebuilds.
   */
  public B partitions(int partitions) {
    if (partitions < 1) {
      throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
    }
    this.partitions = partitions;
    return self();
  }

  /** The schema offers are checked against and built with (required). */
  public B schema(Schema schema) {
    this.schema = Objects.requireNonNull(schema);
    return self();
  }

  /** Where metrics go (default: a private simple registry). */
  public B meterRegistry(MeterRegistry registry) {
    this.meterRegistry = Objects.requireNonNull(registry);
    return self();
  }
}
