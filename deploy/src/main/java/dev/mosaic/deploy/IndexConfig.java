package dev.mosaic.deploy;

import dev.mosaic.api.schema.IndexSchema;
import java.nio.file.Path;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One index of the cluster as the configuration declares it ({@code mosaic.indexes}): its schema
 * (from a schema file and a descriptor set, or built in), its partitions, its Kafka topics, the
 * ZooKeeper root of its manifest and searcher registry, and the consumer group of its indexers.
 * Every index is a lane of its own: nothing of one index is shared with another except the
 * processes, the HTTP server and the metrics endpoint.
 *
 * <p>The default index (the first listed) keeps the locations a single-index cluster has always
 * used: {@code mosaic.zookeeper.root}, {@code mosaic.kafka.offers-topic}, the node's store and
 * output directories. Other indexes live beside it: {@code <root>/indexes/<name>}, topics {@code
 * <name>-offers} and {@code <name>-offers-dlq}, directories suffixed {@code -<name>}.
 *
 * <p>Thread safety: immutable.
 *
 * @param name the index name (lower case letters, digits, '-' and '_'), in paths and metric tags
 * @param isDefault whether this is the default index (the old, unprefixed HTTP paths serve it)
 * @param schema the schema the index is built with
 * @param partitions index partitions P of this index
 * @param topicPartitions Kafka partitions of a created offers topic
 * @param offersTopic the offers topic
 * @param deadLetterTopic the dead-letter topic
 * @param zkRoot the ZooKeeper root of this index's manifest and searcher registry
 * @param groupId the consumer group of this index's indexers
 * @param simulate what the feed simulator generates for it: {@code cars}, {@code realty} or {@code
 *     none}
 * @param feeds where partners put this index's snapshots besides the simulator
 */
public record IndexConfig(
    String name,
    boolean isDefault,
    IndexSchema schema,
    int partitions,
    int topicPartitions,
    String offersTopic,
    String deadLetterTopic,
    String zkRoot,
    String groupId,
    String simulate,
    PartnerFeeds feeds) {

  /** What index names may be: they appear in znode paths, directory names and HTTP paths. */
  public static final Pattern NAME = Pattern.compile("[a-z0-9][a-z0-9_-]{0,62}");

  /** Checks the fields. */
  public IndexConfig {
    Objects.requireNonNull(name, "name");
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException("index name '" + name + "' must match " + NAME.pattern());
    }
    Objects.requireNonNull(schema, "schema");
    Objects.requireNonNull(offersTopic, "offersTopic");
    Objects.requireNonNull(deadLetterTopic, "deadLetterTopic");
    Objects.requireNonNull(zkRoot, "zkRoot");
    Objects.requireNonNull(groupId, "groupId");
    Objects.requireNonNull(simulate, "simulate");
    Objects.requireNonNull(feeds, "feeds");
    if (partitions < 1 || topicPartitions < 1 || topicPartitions > partitions) {
      throw new IllegalArgumentException(
          "index "
              + name
              + ": need 1 <= topic partitions ("
              + topicPartitions
              + ") <= partitions ("
              + partitions
              + ")");
    }
  }

  /** The schema version files of this index are built with. */
  public int schemaVersion() {
    return schema.schema().version();
  }

  /**
   * This index's directory beside the default one: the default index uses {@code base} itself,
   * another index {@code base-<name>} (e.g. {@code store-realty} beside {@code store}).
   */
  public Path beside(Path base) {
    return isDefault ? base : base.resolveSibling(base.getFileName() + "-" + name);
  }

  @Override
  public String toString() {
    return "index "
        + name
        + " (schema "
        + schema.schema().payloadType()
        + " v"
        + schemaVersion()
        + ", P="
        + partitions
        + ", topic "
        + offersTopic
        + ", znodes "
        + zkRoot
        + ")";
  }
}
