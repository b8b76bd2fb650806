package dev.mosaic.deploy;

import dev.mosaic.format.Schema;
import dev.mosaic.indexer.FeedLoader;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionManifest;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.Closeable;
import java.time.Clock;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One index of the {@link LocalCluster}: its watched partition manifest, its feed loader and, when
 * the index has one, the simulated partners feeding it; and what "converged" means for it (every
 * running searcher serves every partition of the manifest at its latest accepted version).
 *
 * <p>Lifecycle: {@link #start} once, {@link #close()} once. Thread safety: safe for concurrent use
 * once started.
 */
final class LocalIndex implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(LocalIndex.class);

  private final IndexConfig index;
  private PartitionManifest manifest;
  private IndexFeedLoader feeds;
  private FeedLoader loader;
  private FeedSimulator simulator;
  private volatile int schemaVersion;

  LocalIndex(IndexConfig index) {
    this.index = Objects.requireNonNull(index, "index");
    this.schemaVersion = index.schemaVersion();
  }

  /**
   * Watches the manifest, starts the feed loader with its partner feeds ({@link IndexFeedLoader})
   * and generates the simulated partners' feeds.
   */
  LocalIndex start(CuratorFramework client, String bootstrapServers, MosaicConfig.Feed feed)
      throws Exception {
    manifest = PartitionManifest.inZooKeeper(client, index.zkRoot());
    manifest.start();
    feeds =
        IndexFeedLoader.start(
            index, bootstrapServers, null, "local-cluster", new SimpleMeterRegistry());
    loader = feeds.loader();
    if (!index.simulate().equals("none")) {
      simulator =
          new FeedSimulator(
              feed, SimulatedListings.of(index.simulate(), feed), sink(), Clock.systemUTC());
    }
    return this;
  }

  /** Where snapshots of this index go: its feed loader. */
  FeedSimulator.Sink sink() {
    return snapshot -> {
      FeedLoader.PublishResult r = loader.publish(snapshot);
      return r.upserts() + r.deletes();
    };
  }

  IndexConfig config() {
    return index;
  }

  String name() {
    return index.name();
  }

  PartitionManifest manifest() {
    return manifest;
  }

  FeedLoader loader() {
    return loader;
  }

  /** The simulated partners, or null when the index has none. */
  FeedSimulator simulator() {
    return simulator;
  }

  /**
   * The manifest's latest version of every partition of the schema version served that a datacenter
   * accepted.
   */
  Map<Integer, Long> latestVersions() {
    Map<Integer, Long> out = new TreeMap<>();
    for (ManifestRecord r : manifest.all()) {
      if (r.accepted() && r.id().schemaVersion() == schemaVersion) {
        out.merge(r.id().partition(), r.id().version(), Math::max);
      }
    }
    return out;
  }

  /**
   * Partitions with a version recorded at the current schema version, delivered or not: unlike
   * {@link #latestVersions()} it never drops while a new version of a built partition is on its way
   * (the manifest keeps one record per partition, unaccepted until a datacenter holds it).
   */
  int partitionsBuilt() {
    Set<Integer> built = new HashSet<>();
    for (ManifestRecord r : manifest.all()) {
      if (r.id().schemaVersion() == schemaVersion) {
        built.add(r.id().partition());
      }
    }
    return built.size();
  }

  /** What keeps these searchers from serving this index's latest versions, or empty. */
  String notServed(List<SearcherRole> searchers) {
    Map<Integer, Long> latest = latestVersions();
    if (latest.isEmpty()) {
      return "no partition of index " + name() + " built yet";
    }
    for (SearcherRole s : searchers) {
      if (!s.isReady()) {
        return s.nodeId() + " has no generation yet";
      }
      Map<Integer, Long> served = s.servedVersions(name());
      for (Map.Entry<Integer, Long> e : latest.entrySet()) {
        Long v = served.get(e.getKey());
        if (v == null || v < e.getValue()) {
          return s.nodeId()
              + " serves "
              + name()
              + " partition "
              + e.getKey()
              + " at "
              + v
              + " < "
              + e.getValue();
        }
      }
    }
    return "";
  }

  /** The schema version the searchers serve (the configured one until {@link #switchSchema}). */
  int schemaVersion() {
    return schemaVersion;
  }

  /**
   * Rolls the index to another schema (a new version, or back to the previous one): its indexers
   * build every partition under it, and once every running searcher holds every partition built
   * under the current schema at the new version (nothing missing, nothing older than the
   * manifest's), each searcher switches to it in one atomic reopen; until then they keep serving
   * the current version. Other indexes are not touched.
   *
   * @param indexers this index's running indexers
   * @throws TimeoutException naming what is missing; nothing has switched then
   */
  void switchSchema(
      Schema schema, List<IndexerRole> indexers, List<SearcherRole> searchers, Duration timeout)
      throws TimeoutException {
    Set<Integer> partitions = latestVersions().keySet();
    int target = schema.version();
    indexers.forEach(i -> i.node().useSchema(schema));
    long deadline = System.nanoTime() + timeout.toNanos();
    String missing;
    while (!(missing = missingAt(target, partitions, indexers, searchers)).isEmpty()) {
      if (System.nanoTime() - deadline > 0) {
        throw new TimeoutException(
            "index " + name() + " not complete at schema version " + target + ": " + missing);
      }
      LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100)); // polling cadence
    }
    for (SearcherRole s : searchers) {
      s.node().index(name()).generations().switchSchemaVersion(target).join();
    }
    schemaVersion = target;
    LOG.info("index {} serves schema version {} on {} searchers", name(), target, searchers.size());
  }

  private String missingAt(
      int target,
      Set<Integer> partitions,
      List<IndexerRole> indexers,
      List<SearcherRole> searchers) {
    for (IndexerRole i : indexers) {
      if (!i.node().isIdle()) {
        return i.nodeId() + " is still building";
      }
    }
    Map<Integer, Long> latest = new TreeMap<>();
    for (ManifestRecord r : manifest.all()) {
      if (r.accepted() && r.id().schemaVersion() == target) {
        latest.merge(r.id().partition(), r.id().version(), Math::max);
      }
    }
    for (int p : partitions) {
      if (!latest.containsKey(p)) {
        return "partition " + p + " has no accepted version";
      }
    }
    for (SearcherRole s : searchers) {
      var held = s.node().index(name()).store().servingFiles(target);
      for (Map.Entry<Integer, Long> e : latest.entrySet()) {
        var f = held.get(e.getKey());
        if (f == null || f.id().version() < e.getValue()) {
          return s.nodeId() + " lacks partition " + e.getKey() + " v" + e.getValue();
        }
      }
    }
    return "";
  }

  /** The fewest partitions of this index any of these ready searchers serves. */
  int partitionsServed(List<SearcherRole> searchers) {
    return searchers.stream()
        .filter(SearcherRole::isReady)
        .mapToInt(s -> s.servedVersions(name()).size())
        .min()
        .orElse(0);
  }

  @Override
  public void close() {
    for (AutoCloseable c : new AutoCloseable[] {simulator, feeds, manifest}) {
      if (c == null) {
        continue;
      }
      try {
        c.close();
      } catch (Exception e) {
        LOG.warn("stopping {} of index {} failed", c, name(), e);
      }
    }
  }
}
