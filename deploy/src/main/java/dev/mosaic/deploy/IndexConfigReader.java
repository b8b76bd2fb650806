package dev.mosaic.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import dev.mosaic.api.schema.BuiltInSchemas;
import dev.mosaic.api.schema.IndexSchema;
import dev.mosaic.api.schema.ProtoTypes;
import dev.mosaic.api.schema.SchemaFileLoader;
import dev.mosaic.indexer.FeedDirectoryWatcher;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Reads {@code mosaic.indexes}: a list of index sections, the first the default index.
 *
 * <pre>{@code
 * indexes = [
 *   {name = "cars"}                                  # the built-in cars schema
 *   {name = "realty", partitions = 32}               # the built-in realty schema
 *   {name = "travel", schema-file = "/etc/mosaic/travel.schema.json",
 *    descriptor-set = "/etc/mosaic/travel.desc", simulate = "none"}
 * ]
 * }</pre>
 *
 * <p>Keys of a section: {@code name} (required), {@code schema-file} and {@code descriptor-set}
 * (default: the built-in schema of that name and the built-in feed messages), {@code partitions},
 * {@code topic-partitions}, {@code offers-topic}, {@code dead-letter-topic}, {@code
 * zookeeper-root}, {@code group-id}, {@code simulate} (default: the index name for {@code cars} and
 * {@code realty} without partner feeds, else {@code none}), and the partner feeds ({@link
 * PartnerFeeds}): {@code feed-directory}, {@code feed-ready}, {@code snapshot-topic}; defaults as
 * {@link IndexConfig} says. An unknown key, a duplicate name, or a schema file that does not load
 * is an error naming the index and the key.
 *
 * <p>Thread safety: stateless.
 */
final class IndexConfigReader {
  private static final Set<String> KEYS =
      Set.of(
          "name",
          "schema-file",
          "descriptor-set",
          "partitions",
          "topic-partitions",
          "offers-topic",
          "dead-letter-topic",
          "zookeeper-root",
          "group-id",
          "simulate",
          "feed-directory",
          "feed-ready",
          "snapshot-topic");
  private static final Set<String> SIMULATE = Set.of("cars", "realty", "none");

  private IndexConfigReader() {}

  /**
   * The indexes of {@code mosaic} (the {@code mosaic} section).
   *
   * @param partitions the default {@code mosaic.partitions}
   * @param topicPartitions the default {@code mosaic.kafka.topic-partitions}
   * @param offersTopic the default index's offers topic
   * @param deadLetterTopic the default index's dead-letter topic
   * @param zkRoot {@code mosaic.zookeeper.root}
   * @param groupId {@code mosaic.indexer.group-id}
   */
  static List<IndexConfig> read(
      Config m,
      int partitions,
      int topicPartitions,
      String offersTopic,
      String deadLetterTopic,
      String zkRoot,
      String groupId) {
    List<? extends Config> sections;
    try {
      sections = m.getConfigList("indexes");
    } catch (ConfigException e) {
      throw new IllegalArgumentException(
          "configuration key mosaic.indexes must be a list of index sections like [{name ="
              + " \"cars\"}]: "
              + e.getMessage(),
          e);
    }
    if (sections.isEmpty()) {
      throw new IllegalArgumentException("configuration key mosaic.indexes lists no index");
    }
    List<IndexConfig> out = new ArrayList<>();
    Set<String> names = new HashSet<>();
    for (int i = 0; i < sections.size(); i++) {
      Config c = sections.get(i);
      String where = "mosaic.indexes[" + i + "]";
      if (!c.hasPath("name")) {
        throw new IllegalArgumentException(
            where + " has no name (" + c.origin().description() + ")");
      }
      String name = c.getString("name");
      where = where + " (" + name + ", " + c.origin().description() + ")";
      for (String key : c.root().keySet()) {
        if (!KEYS.contains(key)) {
          throw new IllegalArgumentException(
              where + ": unknown key '" + key + "'; known keys are " + KEYS);
        }
      }
      if (!IndexConfig.NAME.matcher(name).matches()) {
        throw new IllegalArgumentException(
            where
                + ": index name must match "
                + IndexConfig.NAME.pattern()
                + " (it names znodes, directories and HTTP paths)");
      }
      if (!names.add(name)) {
        throw new IllegalArgumentException(where + ": index " + name + " is listed twice");
      }
      boolean isDefault = i == 0;
      PartnerFeeds feeds = feeds(c, where);
      String simulate =
          string(
              c,
              "simulate",
              SIMULATE.contains(name) && !name.equals("none") && !feeds.any() ? name : "none");
      if (!SIMULATE.contains(simulate)) {
        throw new IllegalArgumentException(
            where + ": simulate must be one of " + SIMULATE + ", got " + simulate);
      }
      try {
        out.add(
            new IndexConfig(
                name,
                isDefault,
                schema(c, name, where),
                c.hasPath("partitions") ? c.getInt("partitions") : partitions,
                c.hasPath("topic-partitions") ? c.getInt("topic-partitions") : topicPartitions,
                string(c, "offers-topic", isDefault ? offersTopic : name + "-offers"),
                string(c, "dead-letter-topic", isDefault ? deadLetterTopic : name + "-offers-dlq"),
                string(
                    c,
                    "zookeeper-root",
                    isDefault ? zkRoot : (zkRoot.equals("/") ? "" : zkRoot) + "/indexes/" + name),
                string(c, "group-id", isDefault ? groupId : groupId + "-" + name),
                simulate,
                feeds));
      } catch (ConfigException | IllegalArgumentException e) {
        throw new IllegalArgumentException(where + ": " + e.getMessage(), e);
      }
    }
    return List.copyOf(out);
  }

  private static String string(Config c, String key, String fallback) {
    if (!c.hasPath(key)) {
      return fallback;
    }
    String v = c.getString(key).strip();
    return v.isEmpty() ? fallback : v;
  }

  private static PartnerFeeds feeds(Config c, String where) {
    String directory = string(c, "feed-directory", "");
    String ready = string(c, "feed-ready", "rename");
    String topic = string(c, "snapshot-topic", "");
    FeedDirectoryWatcher.ReadySignal signal =
        switch (ready) {
          case "rename" -> FeedDirectoryWatcher.ReadySignal.RENAME;
          case "marker" -> FeedDirectoryWatcher.ReadySignal.MARKER;
          default ->
              throw new IllegalArgumentException(
                  where
                      + ": feed-ready must be rename (files are renamed into place) or marker (X is"
                      + " complete once X.ready exists), got "
                      + ready);
        };
    return new PartnerFeeds(
        directory.isEmpty() ? null : Path.of(directory), signal, topic.isEmpty() ? null : topic);
  }

  private static IndexSchema schema(Config c, String name, String where) {
    String file = string(c, "schema-file", "");
    String types = string(c, "descriptor-set", "");
    try {
      if (file.isEmpty()) {
        if (!types.isEmpty()) {
          throw new IllegalArgumentException(
              "descriptor-set is set but schema-file is not: a descriptor set only serves the"
                  + " payload type of a schema file");
        }
        return switch (name) {
          case "cars" -> BuiltInSchemas.cars();
          case "realty" -> BuiltInSchemas.realty();
          default ->
              throw new IllegalArgumentException(
                  "no schema-file, and there is no built-in schema '"
                      + name
                      + "' (built in: cars, realty)");
        };
      }
      ProtoTypes protoTypes =
          types.isEmpty() ? ProtoTypes.builtIn() : ProtoTypes.load(Path.of(types));
      return SchemaFileLoader.load(Path.of(file), protoTypes);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read the schema of index " + name + ": " + e, e);
    }
  }
}
