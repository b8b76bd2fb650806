package dev.mosaic.deploy;

import dev.mosaic.indexer.FeedLoader;
import dev.mosaic.transport.NodeIdentity;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.pekko.actor.ActorSystem;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The Mosaic launcher: {@code java -jar mosaic.jar <command>}.
 *
 * <ul>
 *   <li>{@code local-cluster}: the whole pipeline in one JVM on embedded ZooKeeper and Kafka (see
 *       {@link LocalCluster}); with {@code --duration} it queries every searcher for that long,
 *       stops and prints a {@code RESULT} line.
 *   <li>{@code searcher}, {@code indexer}, {@code feed-loader}: one role each, against the external
 *       ZooKeeper and Kafka of the configuration.
 * </ul>
 *
 * Configuration: {@code --config FILE} (HOCON) and {@code --set key=value}; every key is in {@code
 * deploy/CONFIG.md}.
 */
@Command(
    name = "mosaic",
    mixinStandardHelpOptions = true,
    version = "Mosaic 0.1.0-SNAPSHOT",
    description = "Mosaic: partitioned search, built from feeds and shipped to every datacenter.",
    subcommands = {
      MosaicMain.LocalClusterCommand.class,
      MosaicMain.SearcherCommand.class,
      MosaicMain.IndexerCommand.class,
      MosaicMain.FeedLoaderCommand.class,
      CertCommand.class,
      SchemaCommand.class
    })
public final class MosaicMain implements Runnable {
  private static final Logger LOG = LoggerFactory.getLogger(MosaicMain.class);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  /** Runs a command and exits with its exit code. */
  public static void main(String[] args) {
    System.exit(commandLine().execute(args));
  }

  /** The command line, for callers that do not want {@link System#exit}. */
  public static CommandLine commandLine() {
    return new CommandLine(new MosaicMain())
        .setExecutionExceptionHandler(
            (e, cl, parsed) -> {
              cl.getErr().println("mosaic: " + e.getMessage());
              LOG.error("command failed", e);
              return 1;
            });
  }

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(),
        "missing command: local-cluster, searcher, indexer or feed-loader (try --help)");
  }

  /** Waits for Ctrl-C (the shutdown hook counts the latch down). */
  private static CountDownLatch stopOnShutdown(String name, AutoCloseable... resources) {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  for (AutoCloseable r : resources) {
                    try {
                      r.close();
                    } catch (Exception e) {
                      LOG.warn("stopping {} failed", name, e);
                    }
                  }
                  stopped.countDown();
                },
                name + "-shutdown"));
    return stopped;
  }

  private static String requireZooKeeper(MosaicConfig config, String command) {
    if (config.zkConnect.isEmpty()) {
      throw new IllegalArgumentException(
          "the "
              + command
              + " command needs an external ZooKeeper: set mosaic.zookeeper.connect (e.g. --set"
              + " mosaic.zookeeper.connect=zk1:2181)");
    }
    return config.zkConnect;
  }

  /**
   * Refuses to run a role without a ZooKeeper credential (its znodes would be world-writable:
   * anyone reaching ZooKeeper could mark searchers stale or poison the registry) unless the
   * configuration explicitly allows it for development.
   */
  static void requireZooKeeperCredential(MosaicConfig config, String command) {
    if (config.hasZooKeeperCredential()) {
      return;
    }
    if (!config.zkAllowInsecure) {
      throw new IllegalArgumentException(
          "the "
              + command
              + " command needs a ZooKeeper credential: set"
              + " mosaic.transport.zookeeper.digest-password (from the environment in a config"
              + " file: digest-password = ${?MOSAIC_ZK_PASSWORD}); only for a development cluster,"
              + " set mosaic.zookeeper.allow-insecure = true to run with world-writable znodes");
    }
    LOG.warn(
        "{} runs WITHOUT a ZooKeeper credential (mosaic.zookeeper.allow-insecure = true): anyone"
            + " who reaches ZooKeeper can rewrite the searcher registry and the manifest",
        command);
  }

  private static String requireKafka(MosaicConfig config, String command) {
    if (config.kafkaBootstrap.isEmpty()) {
      throw new IllegalArgumentException(
          "the "
              + command
              + " command needs an external Kafka: set mosaic.kafka.bootstrap-servers (e.g. --set"
              + " mosaic.kafka.bootstrap-servers=kafka1:9092)");
    }
    return config.kafkaBootstrap;
  }

  private static Path nodeDir(MosaicConfig config, Path explicit, String nodeId, String sub) {
    if (explicit != null) {
      return explicit;
    }
    if (config.dataDir == null) {
      throw new IllegalArgumentException(
          "set mosaic.data-dir (or the node's own directory key) to say where "
              + nodeId
              + " keeps its files");
    }
    return config.dataDir.resolve(nodeId).resolve(sub);
  }

  // ------------------------------------------------------------------ local-cluster

  /** {@code local-cluster}. */
  @Command(
      name = "local-cluster",
      mixinStandardHelpOptions = true,
      description =
          "Runs ZooKeeper, Kafka, a feed simulator, the indexers and the searchers of every"
              + " datacenter in this JVM; Ctrl-C stops everything.")
  static final class LocalClusterCommand implements Callable<Integer> {
    @Mixin ConfigOptions options;

    @Option(
        names = "--duration",
        paramLabel = "SECONDS",
        description =
            "Run this long while querying every searcher, stop, print a RESULT line; exit 1 if a"
                + " searcher never became ready or a query failed.")
    Integer durationSeconds;

    @Option(
        names = "--indexes",
        paramLabel = "NAMES",
        split = ",",
        description =
            "The built-in indexes to run, the first the default one (default: cars,realty);"
                + " mosaic.indexes in --config or --set takes precedence.")
    List<String> indexNames = List.of("cars", "realty");

    @Option(
        names = "--offers",
        paramLabel = "N",
        description =
            "Offers of the simulated partners at start (default 6000; sets mosaic.feed.offers)."
                + " Production scale is 500000 and more: raise mosaic.local.ready-timeout too.")
    Integer offers;

    @Option(
        names = "--partitions",
        paramLabel = "P",
        description =
            "Index partitions (default 64; sets mosaic.partitions; production uses 1024). The"
                + " offers topic gets at most P Kafka partitions.")
    Integer partitions;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
      ScaleOptions.of(offers, partitions, spec).applyTo(options);
      MosaicConfig config = options.loadWithThrowawayZooKeeperCredential();
      if ("reference.conf".equals(config.config().getValue("mosaic.indexes").origin().resource())) {
        options.overrides.put("mosaic.indexes", LocalQueries.indexesValue(indexNames));
        config = options.loadWithThrowawayZooKeeperCredential();
      }
      PrintStream out = System.out;
      LocalCluster cluster = new LocalCluster(config).onProgress(out::println);
      CountDownLatch stopped = stopOnShutdown("local-cluster", cluster);
      int total = config.searcher.dcs.size() * config.searcher.nodesPerDc;
      out.printf(
          "Starting the local cluster: ZooKeeper, Kafka (KRaft), %d partners, %d indexers,"
              + " %d searchers in %s, P=%d, indexes %s%n",
          config.feed.partners,
          config.indexer.nodes,
          total,
          config.searcher.dcs,
          config.partitions,
          config.indexes.stream().map(IndexConfig::name).toList());
      Set<String> everReady = new HashSet<>();
      try {
        cluster.start();
      } catch (TimeoutException e) {
        out.println("NOT READY: " + e.getMessage());
        ClusterStatus s = cluster.status();
        cluster.searchers().stream()
            .filter(SearcherRole::isReady)
            .forEach(r -> everReady.add(r.nodeId()));
        if (durationSeconds != null) {
          printResult(out, s, everReady.size(), total, 0, 0);
        }
        cluster.close();
        return 1;
      }
      List<String> addresses = new ArrayList<>();
      out.println();
      out.println("Searchers:");
      for (SearcherRole s : cluster.runningSearchers()) {
        addresses.add(s.httpAddress());
        everReady.add(s.nodeId());
        out.printf("  %-8s %-6s %s%n", s.nodeId(), s.dc(), s.httpAddress());
      }
      out.println("Indexers (Prometheus metrics):");
      for (IndexerRole i : cluster.runningIndexers()) {
        out.printf("  %-10s %s%n", i.nodeId(), i.metricsUrl());
      }
      String first = addresses.getFirst();
      out.println();
      out.printf("Status page: %s/status   Cluster view: %s/cluster%n", first, first);
      out.println();
      out.println("Try:");
      out.printf("  curl -s %s/health%n", first);
      out.printf("  curl -s %s/partitions%n", first);
      out.printf("  curl -s %s/metrics | grep mosaic_searcher%n", first);
      out.printf("  curl -s %s/indexes%n", first);
      for (IndexConfig index : config.indexes) {
        for (QueryLoad.Sample q : LocalQueries.samples(index).subList(0, 2)) {
          out.printf(
              "  curl -s -X POST %s%s -H 'Content-Type: application/json' -d '%s'%n",
              first, q.path(), q.body());
        }
      }
      out.println();
      QueryLoad load =
          durationSeconds == null
              ? null
              : new QueryLoad(addresses, LocalQueries.mix(config), config.local.queryInterval);
      long end =
          durationSeconds == null
              ? Long.MAX_VALUE
              : System.nanoTime() + TimeUnit.SECONDS.toNanos(durationSeconds);
      long interval = config.local.statusInterval.toNanos();
      while (true) {
        long wait = Math.min(interval, end - System.nanoTime());
        if (wait <= 0 || stopped.await(wait, TimeUnit.NANOSECONDS)) {
          break;
        }
        try {
          ClusterStatus s = cluster.status();
          cluster.runningSearchers().stream()
              .filter(SearcherRole::isReady)
              .forEach(r -> everReady.add(r.nodeId()));
          out.println(s.line() + (load == null ? "" : " | failed " + load.failed()));
        } catch (RuntimeException e) {
          LOG.debug("status not available while stopping", e);
        }
      }
      if (durationSeconds == null) {
        return 0; // stopped by Ctrl-C
      }
      ClusterStatus last = cluster.status();
      load.close();
      cluster.close();
      printResult(out, last, everReady.size(), total, load.ok(), load.failed());
      return everReady.size() == total && load.failed() == 0 && load.ok() > 0 ? 0 : 1;
    }

    private static void printResult(
        PrintStream out, ClusterStatus s, int ready, int total, long ok, long failed) {
      out.printf(
          "RESULT cluster searchers_ready=%d/%d dcs=%d indexes=%d partitions_served=%d"
              + " freshness_p50_ms=%d freshness_p99_ms=%d queries_ok=%d queries_failed=%d%n",
          ready,
          total,
          s.dcs().size(),
          s.indexes(),
          s.partitionsServed(),
          s.freshnessP50Millis(),
          s.freshnessP99Millis(),
          ok,
          failed);
    }
  }

  // ------------------------------------------------------------------ searcher

  /** {@code searcher}. */
  @Command(
      name = "searcher",
      mixinStandardHelpOptions = true,
      description =
          "Runs one searcher (store, HTTP API, transport) against the configured external"
              + " ZooKeeper.")
  static final class SearcherCommand implements Callable<Integer> {
    @Mixin ConfigOptions options;

    @Override
    public Integer call() throws Exception {
      MosaicConfig config = options.load();
      String zk = requireZooKeeper(config, "searcher");
      requireZooKeeperCredential(config, "searcher");
      MosaicConfig.Searcher s = config.searcher;
      CertCommand.requireCertificate(config, NodeIdentity.searcher(s.nodeId, s.dc));
      Path store = nodeDir(config, s.storeDir, s.nodeId, "store");
      SearcherRole role =
          new SearcherRole(
              new SearcherRole.Spec(
                  s.nodeId, s.dc, store, s.host, s.advertisedHost, s.httpPort, s.transportPort),
              config,
              zk);
      CountDownLatch stopped = stopOnShutdown("searcher", role);
      role.start();
      System.out.printf(
          "searcher %s of %s serving %s (transport port %d, store %s)%n",
          role.nodeId(), role.dc(), role.httpAddress(), role.transportPort(), store);
      stopped.await();
      return 0;
    }
  }

  // ------------------------------------------------------------------ indexer

  /** {@code indexer}. */
  @Command(
      name = "indexer",
      mixinStandardHelpOptions = true,
      description =
          "Runs one indexer node against the configured external ZooKeeper and Kafka; indexers"
              + " of one group share the partitions.")
  static final class IndexerCommand implements Callable<Integer> {
    @Mixin ConfigOptions options;

    @Override
    public Integer call() throws Exception {
      MosaicConfig config = options.load();
      String zk = requireZooKeeper(config, "indexer");
      String kafka = requireKafka(config, "indexer");
      requireZooKeeperCredential(config, "indexer");
      CertCommand.requireCertificate(
          config, NodeIdentity.indexer(config.indexer.nodeId, config.indexer.dc));
      if (config.createTopics) {
        LocalCluster.Topics.ensure(config, kafka);
      }
      MosaicConfig.Indexer ic = config.indexer;
      Path out = nodeDir(config, ic.outputDir, ic.nodeId, "out");
      ActorSystem system = ActorSystem.create("mosaic", LocalCluster.pekkoConfig(config));
      List<AutoCloseable> toClose = new ArrayList<>();
      IndexerRole first = null;
      for (IndexConfig index : config.indexes) {
        IndexerRole role =
            new IndexerRole(
                ic.nodeId,
                ic.dc,
                index.beside(out),
                config,
                index,
                zk,
                kafka,
                system,
                null,
                first == null ? null : first.registry());
        if (first == null) {
          first = role.metricsEndpoint(ic.metricsHost, ic.metricsPort);
        }
        toClose.add(role);
      }
      toClose.add(system::terminate);
      CountDownLatch stopped = stopOnShutdown("indexer", toClose.toArray(AutoCloseable[]::new));
      for (AutoCloseable c : toClose) {
        if (c instanceof IndexerRole role) {
          role.start();
          System.out.printf(
              "indexer %s of %s in group %s, P=%d, writing %s%n",
              ic.nodeId,
              role.index().name(),
              role.index().groupId(),
              role.index().partitions(),
              role.index().beside(out));
        }
      }
      System.out.printf("indexer %s metrics at %s%n", ic.nodeId, first.metricsUrl());
      stopped.await();
      return 0;
    }
  }

  // ------------------------------------------------------------------ feed-loader

  /** {@code feed-loader}. */
  @Command(
      name = "feed-loader",
      mixinStandardHelpOptions = true,
      description =
          "Diffs partner snapshots into the offers topic: the given snapshot files (serialized"
              + " mosaic.feed.v1.FeedSnapshot), or, without files, until stopped, the index's"
              + " partner feeds (feed-directory: .jsonl/.pb snapshot files dropped there;"
              + " snapshot-topic: snapshots on a Kafka topic) and its simulated partners (which,"
              + " with a data directory, pause between two snapshots while the file"
              + " <data-dir>/feed-loader/pause exists).")
  static final class FeedLoaderCommand implements Callable<Integer> {
    @Mixin ConfigOptions options;

    @Parameters(paramLabel = "SNAPSHOT", arity = "0..*", description = "Snapshot files.")
    List<Path> snapshots = new ArrayList<>();

    @Option(
        names = "--index",
        paramLabel = "NAME",
        description =
            "The index whose topics, partitions and schema the snapshots are loaded into"
                + " (default: the default index, the first of mosaic.indexes).")
    String indexName;

    @Override
    public Integer call() throws Exception {
      MosaicConfig config = options.load();
      String kafka = requireKafka(config, "feed-loader");
      IndexConfig index = indexName == null ? config.defaultIndex() : config.index(indexName);
      boolean simulated = !index.simulate().equals("none");
      if (snapshots.isEmpty() && !simulated && !index.feeds().any()) {
        throw new IllegalArgumentException(
            "index "
                + index.name()
                + " has no feed: no simulated partners (simulate = none) and no partner feeds"
                + " (feed-directory, snapshot-topic in its section of mosaic.indexes); set one,"
                + " or give snapshot files to load");
      }
      if (config.createTopics) {
        LocalCluster.Topics.ensure(config, kafka);
      }
      Path state =
          config.dataDir == null
              ? null
              : index.beside(config.dataDir.resolve("feed-loader").resolve("state"));
      MeterRegistry registry = new SimpleMeterRegistry();
      if (!snapshots.isEmpty()) {
        try (IndexFeedLoader feeds =
            IndexFeedLoader.withoutPartnerFeeds(index, kafka, state, registry)) {
          for (Path file : snapshots) {
            System.out.println(feeds.loader().publish(file));
          }
          return 0;
        }
      }
      try (IndexFeedLoader feeds =
          IndexFeedLoader.start(index, kafka, state, "feed-loader", registry)) {
        FeedLoader loader = feeds.loader();
        PartnerFeeds partner = index.feeds();
        if (partner.directory() != null) {
          System.out.printf(
              "index %s: loading snapshot files dropped into %s (ready on %s)%n",
              index.name(),
              partner.directory().toAbsolutePath(),
              partner.readySignal().name().toLowerCase(java.util.Locale.ROOT));
        }
        if (partner.snapshotTopic() != null) {
          System.out.printf(
              "index %s: loading snapshots from topic %s (group %s)%n",
              index.name(), partner.snapshotTopic(), IndexFeedLoader.snapshotGroup(index));
        }
        FeedSimulator simulator =
            !simulated
                ? null
                : new FeedSimulator(
                    config.feed,
                    SimulatedListings.of(index.simulate(), config.feed),
                    snapshot -> {
                      FeedLoader.PublishResult r = loader.publish(snapshot);
                      return r.upserts() + r.deletes();
                    },
                    Clock.systemUTC());
        CountDownLatch stopped =
            simulator == null
                ? stopOnShutdown("feed-loader", feeds)
                : stopOnShutdown("feed-loader", simulator, feeds);
        if (simulator != null) {
          simulator.publishAll();
          simulator.start();
        }
        Duration every = config.local.statusInterval;
        Path pauseFile =
            config.dataDir == null ? null : config.dataDir.resolve("feed-loader").resolve("pause");
        boolean paused = false;
        while (!stopped.await(every.toMillis(), TimeUnit.MILLISECONDS)) {
          feeds
              .watcher()
              .ifPresent(
                  w ->
                      System.out.printf(
                          "feed files: %d loaded, %d refused, %d malformed records%n",
                          w.filesDone(), w.filesFailed(), w.recordsMalformed()));
          if (simulator == null) {
            continue;
          }
          boolean pause = pauseFile != null && java.nio.file.Files.exists(pauseFile);
          if (pause != paused) {
            paused = pause;
            if (pause) {
              simulator.pause(); // returns once a snapshot in progress is published
            } else {
              simulator.resume();
            }
            System.out.println(pause ? "feed paused" : "feed resumed");
          }
          System.out.printf(
              "feed: %d partners, %d offers, %d snapshots, %d changes, %d failed%n",
              simulator.partnerCount(),
              simulator.offerCount(),
              simulator.snapshotsPublished(),
              simulator.changesPublished(),
              simulator.failures());
        }
        return 0;
      }
    }
  }
}
