package dev.mosaic.it.process;

import dev.mosaic.deploy.MosaicMain;
import dev.mosaic.partition.PartitionManifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.awaitility.Awaitility;

/**
 * The whole pipeline with every role as its own JVM from the deploy jar: a ZooKeeper server ({@code
 * ZooKeeperServerMain}), a KRaft Kafka broker ({@link KafkaServerMain}), searchers of two
 * datacenters, indexers of one group and the feed loader running simulated partners, with the
 * cluster's certificates made by {@code mosaic cert}. Ports are fixed per cluster so that a role
 * restarted after {@code kill -9} comes back where its peers expect it. Consoles and logs go to
 * {@code <root>/logs}.
 *
 * <p>The test reads the partition manifest from ZooKeeper through its own Curator client (the
 * manifest is world-readable; writes need the pipeline's credential).
 *
 * <p>Thread safety: confined to the test thread, except {@link #manifest()} (thread safe).
 */
final class ProcessCluster implements AutoCloseable {
  static final int PARTITIONS = 16;
  static final String ZK_ROOT = "/mosaic";

  /** ZooKeeper's tick: sessions may last 2 to 20 ticks. */
  static final Duration ZK_TICK = Duration.ofMillis(500);

  /** The roles' ZooKeeper session timeout. */
  static final Duration SESSION_TIMEOUT = Duration.ofSeconds(4);

  private static final Pattern SEARCHER_UP =
      Pattern.compile("searcher \\S+ of \\S+ serving (\\S+)");
  private static final Pattern INDEXER_UP = Pattern.compile("indexer \\S+ of \\S+ in group");
  private static final Pattern FEED_UP = Pattern.compile("feed: \\d+ partners");
  private static final Pattern KAFKA_UP = Pattern.compile("kafka ready at (\\S+)");

  /**
   * Deadline for a process to come up. A searcher starts in about 6 s on an idle 2-core machine and
   * in about 25 s with the machine's cores three times oversubscribed. Once, on a loaded CI host, a
   * restart under churn did not come up within 120 s and the cause was not found: a start that does
   * not come up now fails with the process's main-thread stack ({@link ChildProcess#awaitLine}).
   */
  private static final Duration START_TIMEOUT = Duration.ofSeconds(180);

  /** The small-disk searcher's free-space reserve. */
  static final int SMALL_DISK_RESERVE_MIB = 2;

  /** The address searchers of the {@linkplain Layout#linkedDc linked datacenter} register. */
  static final String LINKED_HOST = "127.0.0.2";

  /**
   * Where the cluster's faults can be injected.
   *
   * @param searcherDcs the datacenter of each searcher, in order; node ids are {@code <dc>-<n>}
   * @param indexerCount indexers of the one group, all in the first datacenter
   * @param linkedDc a datacenter whose searchers the other nodes reach only through a {@link
   *     TcpProxy} each (transport and HTTP), so that {@link #cutLink()} partitions it away
   * @param smallDiskSearcher a searcher whose store is on a small file system of its own (a tmpfs
   *     of {@code smallDiskMiB} in its own user and mount namespace, see {@link #smallDisk()})
   */
  record Layout(
      List<String> searcherDcs,
      int indexerCount,
      String linkedDc,
      String smallDiskSearcher,
      int smallDiskMiB) {}

  /**
   * One searcher: its process, its store as the searcher sees it, its HTTP address, and whether it
   * runs in a mount namespace of its own (then its store is a file system only that namespace
   * mounts, which the test reaches through {@code /proc/<pid>/root}).
   */
  record Searcher(
      String nodeId, String dc, ChildProcess process, Path store, String http, boolean ownMounts) {
    /** The store as the test sees it (through the process's root while it runs). */
    Path storeSeen() {
      return ownMounts ? seenFromOutside(store) : store;
    }

    /** The file system the store is on, as the test sees it (its parent directory). */
    Path diskSeen() {
      return storeSeen().getParent();
    }

    private Path seenFromOutside(Path p) {
      return Path.of("/proc", String.valueOf(process.pid()), "root")
          .resolve(p.toAbsolutePath().toString().substring(1));
    }
  }

  private final Path root;
  private final Path logs;
  private final Path jar;
  private final int zkPort;
  private final int kafkaPort;
  private final ChildProcess zooKeeper;
  private final ChildProcess kafka;
  private final Map<String, Searcher> searchers = new LinkedHashMap<>();
  private final Map<String, ChildProcess> indexers = new LinkedHashMap<>();
  private final ChildProcess feedLoader;
  private final List<ChildProcess> all = new ArrayList<>();
  private final List<TcpProxy> link = new ArrayList<>();
  private final List<InetSocketAddress[]> linkRoutes = new ArrayList<>();
  private final boolean smallDisk;
  private CuratorFramework curator;
  private PartitionManifest manifest;

  /** Prepares (does not start) a cluster under {@code root}. */
  ProcessCluster(Path root, Path jar, Layout layout) throws IOException {
    List<String> searcherDcs = layout.searcherDcs();
    int indexerCount = layout.indexerCount();
    if (!Files.isRegularFile(jar)) {
      throw new IllegalStateException(
          "no deploy jar at " + jar.toAbsolutePath() + ": build the reactor (deploy) first");
    }
    this.root = root;
    this.logs = root.resolve("logs");
    this.jar = jar;
    Files.createDirectories(logs);
    this.zkPort = freePort();
    this.kafkaPort = freePort();
    Path certs = root.resolve("certs");
    cert("create-ca", "--dir", certs.toString());
    Path conf = writeConfig(certs);
    String cp = jar.toAbsolutePath().toString();
    zooKeeper =
        add(
            new ChildProcess(
                "zookeeper",
                logs,
                List.of("-Xmx128m", "-XX:+UseSerialGC", "-Dzookeeper.admin.enableServer=false"),
                cp,
                List.of(
                    "org.apache.zookeeper.server.ZooKeeperServerMain",
                    String.valueOf(zkPort),
                    root.resolve("zookeeper").toString(),
                    String.valueOf(ZK_TICK.toMillis()))));
    kafka =
        add(
            new ChildProcess(
                "kafka",
                logs,
                jvm("384m"),
                cp + java.io.File.pathSeparator + testClasses(),
                List.of(
                    KafkaServerMain.class.getName(),
                    String.valueOf(kafkaPort),
                    root.resolve("kafka").toString())));
    this.smallDisk =
        layout.smallDiskSearcher() != null && mountNamespacesWork(root.resolve("probe-mount"));
    Map<String, Integer> perDc = new LinkedHashMap<>();
    for (String dc : searcherDcs) {
      int n = perDc.merge(dc, 1, Integer::sum);
      String id = dc + "-" + n;
      cert("issue", "--dir", certs.toString(), "--node-id", id, "--dc", dc, "--role", "searcher");
      int http = freePort();
      int transport = freePort();
      boolean ownDisk = smallDisk && id.equals(layout.smallDiskSearcher());
      Path disk = root.resolve(id).resolve("disk");
      Path store = ownDisk ? disk.resolve("store") : root.resolve(id).resolve("store");
      List<String> sets =
          new ArrayList<>(
              List.of(
                  "mosaic.searcher.node-id=" + id,
                  "mosaic.searcher.dc=" + dc,
                  "mosaic.searcher.http-port=" + http,
                  "mosaic.searcher.transport-port=" + transport,
                  "mosaic.searcher.store-dir=" + store));
      if (dc.equals(layout.linkedDc())) {
        sets.add("mosaic.searcher.advertised-host=" + LINKED_HOST);
        for (int port : List.of(transport, http)) {
          linkRoutes.add(
              new InetSocketAddress[] {
                new InetSocketAddress(LINKED_HOST, port), new InetSocketAddress("127.0.0.1", port)
              });
        }
      }
      if (!ownDisk) {
        // superseded files stay a while, so that answers can be checked against the files of the
        // generation they ran on (a grouped generation serves its members' older versions, and a
        // loaded machine reads them late); files here are tens of KiB
        sets.add("mosaic.searcher.keep-versions=64");
      }
      List<String> launcher = List.of();
      if (ownDisk) {
        Files.createDirectories(disk);
        sets.add("mosaic.searcher.free-space-reserve=" + SMALL_DISK_RESERVE_MIB + "MiB");
        launcher =
            List.of(
                "unshare",
                "-Urm",
                "sh",
                "-c",
                "mount -t tmpfs -o size="
                    + layout.smallDiskMiB()
                    + "m tmpfs '"
                    + disk
                    + "' && mkdir -p '"
                    + store
                    + "' && exec \"$0\" \"$@\"");
      }
      ChildProcess p = add(role(id, conf, certs, "searcher", launcher, sets));
      searchers.put(id, new Searcher(id, dc, p, store, "http://127.0.0.1:" + http, ownDisk));
    }
    String indexerDc = searcherDcs.get(0);
    for (int i = 1; i <= indexerCount; i++) {
      String id = "indexer-" + i;
      cert(
          "issue",
          "--dir",
          certs.toString(),
          "--node-id",
          id,
          "--dc",
          indexerDc,
          "--role",
          "indexer");
      indexers.put(
          id,
          add(
              role(
                  id,
                  conf,
                  certs,
                  "indexer",
                  List.of(),
                  List.of(
                      "mosaic.indexer.node-id=" + id,
                      "mosaic.indexer.dc=" + indexerDc,
                      "mosaic.indexer.output-dir=" + root.resolve(id).resolve("out")))));
    }
    feedLoader =
        add(
            new ChildProcess(
                "feed-loader",
                logs,
                jvm("256m"),
                cp,
                List.of(MosaicMain.class.getName(), "feed-loader", "--config", conf.toString())));
  }

  /** Starts ZooKeeper and Kafka, then every role, and waits until each says it is up. */
  ProcessCluster start() throws Exception {
    for (InetSocketAddress[] route : linkRoutes) {
      link.add(new TcpProxy(route[0], route[1]));
    }
    zooKeeper.start();
    kafka.start();
    awaitZooKeeper();
    kafka.awaitLine(KAFKA_UP, START_TIMEOUT);
    searchers.values().forEach(s -> s.process().start());
    indexers.values().forEach(ChildProcess::start);
    for (Searcher s : searchers.values()) {
      s.process().awaitLine(SEARCHER_UP, START_TIMEOUT);
    }
    for (ChildProcess i : indexers.values()) {
      i.awaitLine(INDEXER_UP, START_TIMEOUT);
    }
    feedLoader.start();
    feedLoader.awaitLine(FEED_UP, START_TIMEOUT);
    curator =
        CuratorFrameworkFactory.builder()
            .connectString(zkConnect())
            .sessionTimeoutMs((int) SESSION_TIMEOUT.toMillis())
            .connectionTimeoutMs(2000)
            .retryPolicy(new ExponentialBackoffRetry(200, 20, 1000))
            .build();
    curator.start();
    manifest = PartitionManifest.inZooKeeper(curator, ZK_ROOT);
    manifest.start();
    return this;
  }

  /** While this file exists the feed loader's partners pause between two snapshots. */
  Path feedPauseFile() {
    return root.resolve("data").resolve("feed-loader").resolve("pause");
  }

  /** The Kafka broker's bootstrap address. */
  String bootstrapServers() {
    return "127.0.0.1:" + kafkaPort;
  }

  String zkConnect() {
    return "127.0.0.1:" + zkPort;
  }

  /**
   * The test's live view of the partition manifest (keeps its last copy while ZooKeeper is away).
   */
  PartitionManifest manifest() {
    return manifest;
  }

  /** The test's own ZooKeeper client (no credential: read only). */
  CuratorFramework curator() {
    return curator;
  }

  Map<String, Searcher> searchers() {
    return searchers;
  }

  Searcher searcher(String id) {
    Searcher s = searchers.get(id);
    if (s == null) {
      throw new IllegalArgumentException("no searcher " + id + " in " + searchers.keySet());
    }
    return s;
  }

  ChildProcess indexer(String id) {
    return indexers.get(id);
  }

  Path indexerOutput(String id) {
    return root.resolve(id).resolve("out");
  }

  ChildProcess zooKeeper() {
    return zooKeeper;
  }

  ChildProcess kafka() {
    return kafka;
  }

  ChildProcess feedLoader() {
    return feedLoader;
  }

  /**
   * Whether the {@linkplain Layout#smallDiskSearcher small-disk searcher} really runs on a small
   * file system of its own: false when this machine cannot make user and mount namespaces ({@code
   * unshare -Urm}), and then it runs on the shared disk like the others.
   */
  boolean smallDisk() {
    return smallDisk;
  }

  /**
   * Partitions the {@linkplain Layout#linkedDc linked datacenter} away: every connection to its
   * searchers from outside it is closed and new ones are refused, until {@link #restoreLink()}.
   */
  void cutLink() {
    link.forEach(TcpProxy::cut);
  }

  /** Ends the partition of {@link #cutLink()}. */
  void restoreLink() {
    link.forEach(TcpProxy::restore);
  }

  /** Connections made so far through the link to the linked datacenter. */
  long linkConnections() {
    return link.stream().mapToLong(TcpProxy::connections).sum();
  }

  /** Restarts a searcher killed before, over the same store and ports, and waits until it is up. */
  void restartSearcher(String id) {
    Searcher s = searcher(id);
    s.process().start().awaitLine(SEARCHER_UP, START_TIMEOUT);
  }

  /** Restarts the ZooKeeper server over the same data directory and port. */
  void restartZooKeeper() {
    zooKeeper.start();
    awaitZooKeeper();
  }

  /** Restarts the broker over the same log directory and port. */
  void restartKafka() {
    kafka.start().awaitLine(KAFKA_UP, START_TIMEOUT);
  }

  /** The console tails of every process, for a failure message. */
  String diagnosis() {
    StringBuilder b = new StringBuilder();
    for (ChildProcess p : all) {
      b.append(p.tail()).append('\n');
    }
    return b.toString();
  }

  @Override
  public void close() {
    if (manifest != null) {
      manifest.close();
    }
    if (curator != null) {
      curator.close();
    }
    // roles first, then Kafka and ZooKeeper, which the roles' shutdown may still talk to
    List<ChildProcess> reversed = new ArrayList<>(all);
    java.util.Collections.reverse(reversed);
    for (ChildProcess p : reversed) {
      p.terminate();
    }
    link.forEach(TcpProxy::close);
  }

  private ChildProcess role(
      String id, Path conf, Path certs, String command, List<String> launcher, List<String> sets) {
    List<String> args = new ArrayList<>();
    args.add(MosaicMain.class.getName());
    args.add(command);
    args.add("--config");
    args.add(conf.toString());
    args.add("--set");
    args.add("mosaic.transport.tls.key-store=" + certs.resolve(id + ".p12"));
    for (String s : sets) {
      args.add("--set");
      args.add(s);
    }
    return new ChildProcess(id, logs, launcher, jvm("256m"), jar.toAbsolutePath().toString(), args);
  }

  private static List<String> jvm(String heap) {
    return List.of(
        "-Xmx" + heap,
        "-XX:+UseSerialGC",
        "-XX:TieredStopAtLevel=1",
        "--enable-native-access=ALL-UNNAMED",
        "--sun-misc-unsafe-memory-access=allow");
  }

  private Path writeConfig(Path certs) throws IOException {
    String conf =
        """
        mosaic {
          partitions = %d
          data-dir = "%s"
          zookeeper { connect = "%s", session-timeout = %dms, connection-timeout = 2s }
          kafka { bootstrap-servers = "127.0.0.1:%d", topic-partitions = 4 }
          indexer { debounce = 100ms, max-delay = 500ms, rebuild-threads = 1, retain-versions = 2 }
          searcher { scan-interval = 2s, query-threads = 2, free-space-reserve = 0 }
          feed { partners = 8, offers = 2400, interval = 2s, duplicate-share = 0 }
          local { status-interval = 50ms }
          transport {
            chunk-size = 16KiB
            catch-up-interval = 3s
            catch-up-grace = 2s
            stale-after = 20s
            tls.trust-store = "%s"
            zookeeper.digest-password = "fault-tests-credential"
          }
        }
        """
            .formatted(
                PARTITIONS,
                root.resolve("data"),
                zkConnect(),
                SESSION_TIMEOUT.toMillis(),
                kafkaPort,
                certs.resolve("truststore.p12"));
    Path file = root.resolve("cluster.conf");
    Files.writeString(file, conf);
    return file;
  }

  private static void cert(String... args) {
    String[] full = new String[args.length + 1];
    full[0] = "cert";
    System.arraycopy(args, 0, full, 1, args.length);
    int exit = MosaicMain.commandLine().execute(full);
    if (exit != 0) {
      throw new IllegalStateException("mosaic " + String.join(" ", full) + " exited with " + exit);
    }
  }

  /**
   * Whether {@code unshare -Urm} can mount a tmpfs here (a user namespace gives the mount
   * namespace's root the right to mount, no privilege needed outside).
   */
  private static boolean mountNamespacesWork(Path probe) {
    try {
      Files.createDirectories(probe);
      Process p =
          new ProcessBuilder(
                  "unshare", "-Urm", "sh", "-c", "mount -t tmpfs -o size=1m tmpfs '" + probe + "'")
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.DISCARD)
              .start();
      return p.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (IOException e) {
      return false; // no unshare
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  private void awaitZooKeeper() {
    Awaitility.await("ZooKeeper accepts connections on " + zkPort)
        .atMost(START_TIMEOUT)
        .pollInterval(Duration.ofMillis(200))
        .until(
            () -> {
              if (!zooKeeper.isAlive()) {
                throw new IllegalStateException("ZooKeeper exited" + zooKeeper.tail());
              }
              try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", zkPort), 500);
                return true;
              } catch (IOException e) {
                return false;
              }
            });
  }

  private ChildProcess add(ChildProcess p) {
    all.add(p);
    return p;
  }

  private static String testClasses() {
    try {
      return Path.of(
              KafkaServerMain.class.getProtectionDomain().getCodeSource().getLocation().toURI())
          .toString();
    } catch (java.net.URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private static int freePort() {
    try (ServerSocket s = new ServerSocket(0)) {
      return s.getLocalPort();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
