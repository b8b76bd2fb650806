package dev.mosaic.deploy;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigValueFactory;
import com.typesafe.config.ConfigValueType;
import dev.mosaic.searcher.QueryLimits;
import dev.mosaic.transport.TransportSettings;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;

/**
 * The launcher's configuration: the {@code mosaic} section of a HOCON config (defaults in this
 * module's {@code reference.conf}, every key explained in {@code deploy/CONFIG.md}), read into
 * typed values with a precise error naming any bad key. The whole config is kept too, for Pekko and
 * the transport ({@code mosaic.transport}).
 *
 * <p>Precedence, highest first: {@code --set key=value} overrides, {@code -Dkey=value} system
 * properties, the {@code --config} file, {@code reference.conf}.
 *
 * <p>Thread safety: immutable.
 */
public final class MosaicConfig {
  private final Config config;

  /** Partitions P. */
  public final int partitions;

  /** Root data directory, or null for a temporary one. */
  public final Path dataDir;

  /** External ZooKeeper connect string, or empty for an embedded one. */
  public final String zkConnect;

  /** Embedded ZooKeeper port (0: any). */
  public final int zkPort;

  /** Curator session timeout. */
  public final Duration zkSessionTimeout;

  /** Curator connection timeout. */
  public final Duration zkConnectionTimeout;

  /** Root znode. */
  public final String zkRoot;

  /** Whether the role commands may run without a ZooKeeper credential (development only). */
  public final boolean zkAllowInsecure;

  /** TLS to ZooKeeper's secure client port. */
  final ZooKeeperTls zkTls;

  /** External Kafka bootstrap servers, or empty for an embedded broker. */
  public final String kafkaBootstrap;

  /** Embedded Kafka port (0: any). */
  public final int kafkaPort;

  /** Offers topic. */
  public final String offersTopic;

  /** Dead-letter topic. */
  public final String deadLetterTopic;

  /** Kafka partitions of a created offers topic. */
  public final int topicPartitions;

  /** Whether to create missing topics. */
  public final boolean createTopics;

  /** Replication factor of created topics. */
  public final short replicationFactor;

  /** Indexer settings. */
  public final Indexer indexer;

  /** Searcher settings. */
  public final Searcher searcher;

  /** Feed simulator settings. */
  public final Feed feed;

  /** Freshness probe settings. */
  public final Probe probe;

  /** Local cluster settings. */
  public final Local local;

  /** The indexes, the default one first ({@code mosaic.indexes}, see {@link IndexConfigReader}). */
  public final List<IndexConfig> indexes;

  private MosaicConfig(Config config) {
    this.config = config;
    Config m = config.getConfig("mosaic");
    partitions = positive(m, "partitions");
    String dir = m.getString("data-dir");
    dataDir = dir.isBlank() ? null : Path.of(dir);
    zkConnect = m.getString("zookeeper.connect").strip();
    zkPort = port(m, "zookeeper.port");
    zkSessionTimeout = m.getDuration("zookeeper.session-timeout");
    zkConnectionTimeout = m.getDuration("zookeeper.connection-timeout");
    zkRoot = m.getString("zookeeper.root");
    if (!zkRoot.startsWith("/") || (zkRoot.length() > 1 && zkRoot.endsWith("/"))) {
      throw bad(m, "zookeeper.root", "must be an absolute znode path like /mosaic, got " + zkRoot);
    }
    zkAllowInsecure = m.getBoolean("zookeeper.allow-insecure");
    zkTls = ZooKeeperTls.fromConfig(m);
    kafkaBootstrap = m.getString("kafka.bootstrap-servers").strip();
    kafkaPort = port(m, "kafka.port");
    offersTopic = nonEmpty(m, "kafka.offers-topic");
    deadLetterTopic = nonEmpty(m, "kafka.dead-letter-topic");
    topicPartitions = positive(m, "kafka.topic-partitions");
    if (topicPartitions > partitions) {
      throw bad(
          m,
          "kafka.topic-partitions",
          "must be <= partitions ("
              + partitions
              + "), got "
              + topicPartitions
              + ": every Kafka partition carries whole index partitions");
    }
    createTopics = m.getBoolean("kafka.create-topics");
    replicationFactor = (short) positive(m, "kafka.replication-factor");
    indexer = new Indexer(m);
    searcher = new Searcher(m);
    feed = new Feed(m);
    probe = new Probe(m);
    local = new Local(m);
    indexes =
        IndexConfigReader.read(
            m, partitions, topicPartitions, offersTopic, deadLetterTopic, zkRoot, indexer.groupId);
  }

  /**
   * An index by name.
   *
   * @throws IllegalArgumentException naming the configured indexes when there is none of that name
   */
  public IndexConfig index(String name) {
    for (IndexConfig i : indexes) {
      if (i.name().equals(name)) {
        return i;
      }
    }
    throw new IllegalArgumentException(
        "no index '"
            + name
            + "' in mosaic.indexes; configured: "
            + indexes.stream().map(IndexConfig::name).toList());
  }

  /** The default index: the first of {@code mosaic.indexes}. */
  public IndexConfig defaultIndex() {
    return indexes.getFirst();
  }

  /**
   * Loads the configuration.
   *
   * @param file a HOCON file overriding the defaults, or null
   * @param overrides {@code key=value} pairs (HOCON values) overriding everything
   * @throws IllegalArgumentException naming the key or file that is wrong
   */
  public static MosaicConfig load(Path file, Map<String, String> overrides) {
    Config layered = ConfigFactory.empty();
    for (Map.Entry<String, String> e : overrides.entrySet()) {
      layered = layered.withFallback(parseOverride(e.getKey(), e.getValue()));
    }
    layered = layered.withFallback(ConfigFactory.systemProperties());
    if (file != null) {
      if (!Files.isRegularFile(file)) {
        throw new IllegalArgumentException("config file " + file + " does not exist");
      }
      try {
        layered =
            layered.withFallback(
                ConfigFactory.parseFile(
                    file.toFile(), ConfigParseOptions.defaults().setAllowMissing(false)));
      } catch (ConfigException e) {
        throw new IllegalArgumentException("config file " + file + ": " + e.getMessage(), e);
      }
    }
    try {
      Config resolved = layered.withFallback(ConfigFactory.defaultReference()).resolve();
      return new MosaicConfig(resolved);
    } catch (ConfigException e) {
      throw new IllegalArgumentException("configuration: " + e.getMessage(), e);
    }
  }

  /** The defaults with some overrides (tests). */
  public static MosaicConfig withOverrides(Map<String, String> overrides) {
    return load(null, overrides);
  }

  private static Config parseOverride(String key, String value) {
    try {
      return ConfigFactory.parseString(key + " = " + value);
    } catch (ConfigException e) {
      // not a HOCON value: take it as a plain string
      return ConfigFactory.empty().withValue(key, ConfigValueFactory.fromAnyRef(value));
    }
  }

  /** The whole resolved config (Pekko's and the transport's sections included). */
  public Config config() {
    return config;
  }

  /** Whether a ZooKeeper digest credential is configured ({@code mosaic.transport.zookeeper}). */
  public boolean hasZooKeeperCredential() {
    return !config.getString("mosaic.transport.zookeeper.digest-password").isEmpty();
  }

  /** The transport settings of {@code mosaic.transport}, with this config's ZooKeeper root. */
  public TransportSettings transportSettings() {
    return TransportSettings.fromConfig(config).toBuilder().zkRoot(zkRoot).build();
  }

  private static IllegalArgumentException bad(Config m, String key, String why) {
    return new IllegalArgumentException(
        "configuration key mosaic." + key + " " + why + " (" + origin(m, key) + ")");
  }

  private static String origin(Config m, String key) {
    try {
      return m.getValue(key).origin().description();
    } catch (ConfigException e) {
      return "unknown origin";
    }
  }

  /** {@code auto} (empty) or a group size: 0 (grouping off) or at least 2. */
  private static OptionalInt partitionGroupSize(Config m, String key) {
    if (m.getValue(key).valueType() == ConfigValueType.STRING
        && "auto".equals(m.getString(key).strip())) {
      return OptionalInt.empty();
    }
    int size;
    try {
      size = m.getInt(key);
    } catch (ConfigException.WrongType e) {
      throw bad(
          m, key, "must be auto, 0 (grouping off) or at least 2, got " + m.getValue(key).render());
    }
    if (size < 0 || size == 1) {
      throw bad(m, key, "must be auto, 0 (grouping off) or at least 2, got " + size);
    }
    return OptionalInt.of(size);
  }

  private static int positive(Config m, String key) {
    int v = m.getInt(key);
    if (v < 1) {
      throw bad(m, key, "must be >= 1, got " + v);
    }
    return v;
  }

  private static int nonNegative(Config m, String key) {
    int v = m.getInt(key);
    if (v < 0) {
      throw bad(m, key, "must be >= 0, got " + v);
    }
    return v;
  }

  private static int port(Config m, String key) {
    int v = m.getInt(key);
    if (v < 0 || v > 65535) {
      throw bad(m, key, "must be a port in [0, 65535], got " + v);
    }
    return v;
  }

  private static String nonEmpty(Config m, String key) {
    String v = m.getString(key).strip();
    if (v.isEmpty()) {
      throw bad(m, key, "must not be empty");
    }
    return v;
  }

  private static double share(Config m, String key) {
    double v = m.getDouble(key);
    if (!(v >= 0 && v <= 1)) {
      throw bad(m, key, "must be in [0, 1], got " + v);
    }
    return v;
  }

  private static long positiveBytes(Config m, String key) {
    long v = m.getBytes(key);
    if (v < 1) {
      throw bad(m, key, "must be at least 1 byte, got " + v);
    }
    return v;
  }

  private static Duration positiveDuration(Config m, String key) {
    Duration d = m.getDuration(key);
    if (d.isNegative() || d.isZero()) {
      throw bad(m, key, "must be a positive duration, got " + d);
    }
    return d;
  }

  private static Path optionalPath(Config m, String key) {
    String v = m.getString(key);
    return v.isBlank() ? null : Path.of(v);
  }

  /** {@code mosaic.indexer}. */
  public static final class Indexer {
    /** Nodes in the local cluster. */
    public final int nodes;

    /** Stand-alone node id. */
    public final String nodeId;

    /** Stand-alone node's datacenter. */
    public final String dc;

    /** Consumer group. */
    public final String groupId;

    /** Debounce of rebuilds. */
    public final Duration debounce;

    /** Longest wait of a dirty partition. */
    public final Duration maxDelay;

    /** Parallel rebuilds. */
    public final int rebuildThreads;

    /** Files kept per partition. */
    public final int retainVersions;

    /** Output directory, or null for the default under the data directory. */
    public final Path outputDir;

    /** Interface the indexer's {@code /metrics} endpoint binds. */
    public final String metricsHost;

    /**
     * Port of the {@code /metrics} endpoint; 0 for any free port (in the local cluster a non-zero
     * value is the first indexer's port and the next ones count up).
     */
    public final int metricsPort;

    Indexer(Config m) {
      nodes = nonNegative(m, "indexer.nodes");
      nodeId = nonEmpty(m, "indexer.node-id");
      dc = nonEmpty(m, "indexer.dc");
      groupId = nonEmpty(m, "indexer.group-id");
      debounce = positiveDuration(m, "indexer.debounce");
      maxDelay = positiveDuration(m, "indexer.max-delay");
      rebuildThreads = positive(m, "indexer.rebuild-threads");
      retainVersions = positive(m, "indexer.retain-versions");
      outputDir = optionalPath(m, "indexer.output-dir");
      metricsHost = nonEmpty(m, "indexer.metrics-host");
      metricsPort = port(m, "indexer.metrics-port");
    }
  }

  /** {@code mosaic.searcher}. */
  public static final class Searcher {
    /** Datacenters of the local cluster. */
    public final List<String> dcs;

    /** Searchers per datacenter in the local cluster. */
    public final int nodesPerDc;

    /** Interface to bind. */
    public final String host;

    /** Host other nodes and clients reach a searcher by (empty: {@link #host}). */
    public final String advertisedHost;

    /** HTTP port (first port in the local cluster; 0: any). */
    public final int httpPort;

    /** Transport port (first port in the local cluster; 0: any). */
    public final int transportPort;

    /** Stand-alone node id. */
    public final String nodeId;

    /** Stand-alone node's datacenter. */
    public final String dc;

    /** Store directory, or null for the default under the data directory. */
    public final Path storeDir;

    /** Versions kept per partition. */
    public final int keepVersions;

    /** Safety rescan period. */
    public final Duration scanInterval;

    /** Query threads. */
    public final int queryThreads;

    /** Largest search limit. */
    public final int maxLimit;

    /** Queries that may wait for a query thread. */
    public final int queryQueue;

    /** What one query may cost. */
    public final QueryLimits queryLimits;

    /** Largest query body. */
    public final long maxRequestBytes;

    /** Largest partition file accepted. */
    public final long maxFileBytes;

    /** Disk space kept free. */
    public final long freeSpaceReserve;

    /** Partitions per arena of a bulk reopen. */
    public final int arenaGroupSize;

    /** Retired generations the unmapper may have waiting. */
    public final int maxUnmapBacklog;

    /** Partitions a reopen must map for them to share arenas. */
    public final int bulkReopenPartitions;

    /** Time from a store event to the reopen that serves it. */
    public final Duration reopenDelay;

    /**
     * Partitions per background group (0: every partition queried as itself); empty for {@code
     * auto}: groups of 32 once an index serves 256 partitions or more (see {@code
     * SearcherNode.Builder#autoPartitionGrouping}).
     */
    public final OptionalInt partitionGroupSize;

    /** File holding the operator token, or null. */
    public final Path adminTokenFile;

    /** Environment variable holding the operator token when there is no file. */
    public final String adminTokenEnv;

    /** Verify checksums at start. */
    public final boolean verifyOnStart;

    Searcher(Config m) {
      dcs = List.copyOf(m.getStringList("searcher.dcs"));
      if (dcs.isEmpty() || dcs.stream().anyMatch(d -> d.isBlank() || d.contains("/"))) {
        throw bad(m, "searcher.dcs", "must list datacenter names without '/', got " + dcs);
      }
      if (dcs.stream().distinct().count() != dcs.size()) {
        throw bad(m, "searcher.dcs", "lists a datacenter twice: " + dcs);
      }
      nodesPerDc = positive(m, "searcher.nodes-per-dc");
      host = nonEmpty(m, "searcher.host");
      advertisedHost = m.getString("searcher.advertised-host").strip();
      httpPort = port(m, "searcher.http-port");
      transportPort = port(m, "searcher.transport-port");
      nodeId = nonEmpty(m, "searcher.node-id");
      dc = nonEmpty(m, "searcher.dc");
      storeDir = optionalPath(m, "searcher.store-dir");
      keepVersions = positive(m, "searcher.keep-versions");
      scanInterval = m.getDuration("searcher.scan-interval");
      queryThreads = positive(m, "searcher.query-threads");
      maxLimit = positive(m, "searcher.max-limit");
      queryQueue = positive(m, "searcher.query-queue");
      try {
        queryLimits =
            new QueryLimits(
                maxLimit,
                positive(m, "searcher.max-result-window"),
                positive(m, "searcher.max-clauses"),
                positive(m, "searcher.max-depth"),
                positive(m, "searcher.max-in-values"),
                positive(m, "searcher.max-facets"),
                positive(m, "searcher.max-facet-values"),
                positive(m, "searcher.max-stats"),
                positive(m, "searcher.max-order-by"),
                positive(m, "searcher.max-fields"),
                positiveDuration(m, "searcher.query-time-budget"));
      } catch (IllegalArgumentException e) {
        if (e.getMessage().startsWith("configuration key")) {
          throw e;
        }
        throw bad(m, "searcher.max-result-window", e.getMessage());
      }
      maxRequestBytes = positiveBytes(m, "searcher.max-request-bytes");
      maxFileBytes = positiveBytes(m, "searcher.max-file-bytes");
      freeSpaceReserve = m.getBytes("searcher.free-space-reserve");
      if (freeSpaceReserve < 0) {
        throw bad(m, "searcher.free-space-reserve", "must be >= 0, got " + freeSpaceReserve);
      }
      arenaGroupSize = positive(m, "searcher.arena-group-size");
      maxUnmapBacklog = positive(m, "searcher.max-unmap-backlog");
      bulkReopenPartitions = positive(m, "searcher.bulk-reopen-partitions");
      reopenDelay = m.getDuration("searcher.reopen-delay");
      if (reopenDelay.isNegative()) {
        throw bad(m, "searcher.reopen-delay", "must not be negative, got " + reopenDelay);
      }
      partitionGroupSize = partitionGroupSize(m, "searcher.partition-group-size");
      verifyOnStart = m.getBoolean("searcher.verify-on-start");
      adminTokenFile = optionalPath(m, "searcher.admin-token-file");
      adminTokenEnv = m.getString("searcher.admin-token-env").strip();
    }
  }

  /** {@code mosaic.feed}. */
  public static final class Feed {
    /** Partners. */
    public final int partners;

    /** Offers at start over all partners. */
    public final int offers;

    /** Share of duplicates across partners. */
    public final double duplicateShare;

    /** Republish period of every partner. */
    public final Duration interval;

    /** Shares of a republish. */
    public final double changeShare;

    /** Shares of a republish. */
    public final double removeShare;

    /** Shares of a republish. */
    public final double addShare;

    /** Seed of the generator. */
    public final long seed;

    Feed(Config m) {
      partners = positive(m, "feed.partners");
      if (partners > 999) {
        throw bad(m, "feed.partners", "must be <= 999, got " + partners);
      }
      offers = nonNegative(m, "feed.offers");
      duplicateShare = share(m, "feed.duplicate-share");
      interval = positiveDuration(m, "feed.interval");
      changeShare = share(m, "feed.change-share");
      removeShare = share(m, "feed.remove-share");
      addShare = share(m, "feed.add-share");
      seed = m.getLong("feed.seed");
    }
  }

  /** {@code mosaic.probe}. */
  public static final class Probe {
    /** Period of probe changes. */
    public final Duration interval;

    /** Probe offers. */
    public final int offers;

    /** Timeout of one probe. */
    public final Duration timeout;

    Probe(Config m) {
      interval = positiveDuration(m, "probe.interval");
      offers = positive(m, "probe.offers");
      timeout = positiveDuration(m, "probe.timeout");
    }
  }

  /** {@code mosaic.local}. */
  public static final class Local {
    /** Status line period. */
    public final Duration statusInterval;

    /** Start-up deadline. */
    public final Duration readyTimeout;

    /** Pause between queries of one query thread. */
    public final Duration queryInterval;

    /**
     * Whether the simulated partners keep republishing and the freshness probe runs once the
     * cluster is ready (false: the feeds stay still, for a caller that drives its own changes).
     */
    public final boolean feedAfterStart;

    Local(Config m) {
      statusInterval = positiveDuration(m, "local.status-interval");
      readyTimeout = positiveDuration(m, "local.ready-timeout");
      queryInterval = m.getDuration("local.query-interval");
      feedAfterStart = m.getBoolean("local.feed-after-start");
    }
  }

  @Override
  public String toString() {
    return "MosaicConfig" + Objects.toString(config.getConfig("mosaic").root().render());
  }
}
