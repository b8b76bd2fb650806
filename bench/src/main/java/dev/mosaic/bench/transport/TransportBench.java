package dev.mosaic.bench.transport;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionSender.DeliveryReport;
import dev.mosaic.transport.ClusterCertificates;
import dev.mosaic.transport.NodeIdentity;
import dev.mosaic.transport.PekkoTransport;
import dev.mosaic.transport.TransportNode;
import dev.mosaic.transport.TransportSecurity;
import dev.mosaic.transport.TransportSender;
import dev.mosaic.transport.TransportSettings;
import dev.mosaic.transport.ZooKeeperSecurity;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Transport load tool. Part 1: one large file delivered over loopback to the entry searcher of a
 * datacenter which relays it to its peers, against the same file copied once with a plain socket
 * (read, write, fsync) in the same run. Part 2: many small partition files delivered to several
 * datacenters of several searchers; time until every searcher holds every file, and the inter-DC
 * copies per version read from the transport's byte counters. Ends with the {@code RESULT
 * transport} line. Everything runs in this JVM over real ZooKeeper and real sockets.
 */
public final class TransportBench {
  private TransportBench() {}

  /** One throwaway cluster CA for every node of the run. */
  private static final ClusterCertificates CA = ClusterCertificates.generate();

  /** The pipeline's ZooKeeper credential: znodes written with digest ACLs, as in production. */
  private static final ZooKeeperSecurity ZK_SECURITY =
      ZooKeeperSecurity.digest("mosaic", "bench-" + System.nanoTime());

  private static boolean tls = true;
  private static int rounds = 3;

  private static TransportSecurity security(NodeIdentity node) {
    return tls ? CA.forNode(node) : TransportSecurity.plaintext();
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opt = new LinkedHashMap<>();
    opt.put("work", "bench/target/transport");
    opt.put("size-mb", "1024");
    opt.put("peers", "3");
    opt.put("partitions", "1024");
    opt.put("file-mb", "2");
    opt.put("dcs", "3");
    opt.put("per-dc", "3");
    opt.put("tls", "on");
    opt.put("rounds", "3");
    for (int i = 0; i + 1 < args.length; i += 2) {
      String k = args[i].replaceFirst("^--", "");
      if (!opt.containsKey(k)) {
        throw new IllegalArgumentException("unknown option --" + k + "; known: " + opt.keySet());
      }
      opt.put(k, args[i + 1]);
    }
    Path work = Path.of(opt.get("work"));
    deleteTree(work);
    Files.createDirectories(work);
    long sizeBytes = Long.parseLong(opt.get("size-mb")) << 20;
    int peers = Integer.parseInt(opt.get("peers"));
    int partitions = Integer.parseInt(opt.get("partitions"));
    long fileBytes = Long.parseLong(opt.get("file-mb")) << 20;
    int dcs = Integer.parseInt(opt.get("dcs"));
    int perDc = Integer.parseInt(opt.get("per-dc"));
    rounds = Integer.parseInt(opt.get("rounds"));
    if (rounds < 1) {
      throw new IllegalArgumentException("--rounds must be >= 1: " + rounds);
    }
    tls =
        switch (opt.get("tls")) {
          case "on" -> true;
          case "off" -> false;
          default ->
              throw new IllegalArgumentException("--tls must be on or off: " + opt.get("tls"));
        };
    System.out.printf(
        "transport bench: %d MiB to 1 entry + %d peers; %d x %d MiB to %d DCs x %d searchers;"
            + " transport %s; %d cores, JDK %s%n",
        sizeBytes >> 20,
        peers,
        partitions,
        fileBytes >> 20,
        dcs,
        perDc,
        tls ? "mutual TLS" : "PLAINTEXT",
        Runtime.getRuntime().availableProcessors(),
        Runtime.version());

    try (EmbeddedZooKeeper zk = new EmbeddedZooKeeper(work.resolve("zk").toFile())) {
      ActorSystem<Void> system = PekkoTransport.newActorSystem("transport-bench");
      try {
        double[] single = singleFile(zk, system, work, sizeBytes, peers);
        double[] fanout = fanout(zk, system, work, partitions, fileBytes, dcs, perDc);
        System.out.printf(
            "RESULT transport ours_mbps=%.1f baseline_mbps=%.1f relay_mbps=%.1f"
                + " relay_baseline_mbps=%.1f fanout_s=%.1f partitions=%d"
                + " inter_dc_copies_per_version=%.2f dcs=%d tls=%s%n",
            single[0],
            single[1],
            single[2],
            single[3],
            fanout[0],
            partitions,
            fanout[1],
            dcs,
            tls ? "on" : "off");
      } finally {
        system.terminate();
        system.getWhenTerminated().toCompletableFuture().get(30, TimeUnit.SECONDS);
      }
    }
    deleteTree(work);
  }

  private static TransportSettings settings(String root) {
    return TransportSettings.builder()
        .zkRoot(root)
        .catchUpGrace(Duration.ofMinutes(30))
        .catchUpInterval(Duration.ofMinutes(30))
        .transferIdleTimeout(Duration.ofMinutes(2))
        .build();
  }

  private static CuratorFramework curator(EmbeddedZooKeeper zk, List<AutoCloseable> closeables) {
    CuratorFramework c =
        ZK_SECURITY
            .applyTo(
                CuratorFrameworkFactory.builder()
                    .connectString(zk.connectString())
                    .sessionTimeoutMs(30_000)
                    .connectionTimeoutMs(5_000)
                    .retryPolicy(new ExponentialBackoffRetry(100, 5)))
            .build();
    c.start();
    closeables.add(c);
    return c;
  }

  private record Node(TransportNode node, BenchStore store) {}

  private static List<Node> searchers(
      EmbeddedZooKeeper zk,
      ActorSystem<?> system,
      SimpleMeterRegistry registry,
      TransportSettings settings,
      Path dir,
      String dc,
      int count,
      List<AutoCloseable> closeables)
      throws Exception {
    List<Node> nodes = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      String id = dc + "-s" + i;
      BenchStore store = new BenchStore(dir.resolve(id));
      TransportNode node =
          TransportNode.builder()
              .nodeId(id)
              .dc(dc)
              .bind("127.0.0.1", 0)
              .curator(curator(zk, closeables))
              .store(store)
              .settings(settings)
              .actorSystem(system)
              .meterRegistry(registry)
              .security(security(NodeIdentity.searcher(id, dc)))
              .build();
      node.start();
      closeables.add(node);
      nodes.add(new Node(node, store));
    }
    return nodes;
  }

  private static TransportSender sender(
      EmbeddedZooKeeper zk,
      ActorSystem<?> system,
      SimpleMeterRegistry registry,
      TransportSettings settings,
      List<AutoCloseable> closeables)
      throws Exception {
    TransportSender sender =
        TransportSender.builder()
            .nodeId("indexer-1")
            .dc("idx")
            .curator(curator(zk, closeables))
            .settings(settings)
            .actorSystem(system)
            .meterRegistry(registry)
            .security(security(NodeIdentity.indexer("indexer-1", "idx")))
            .build();
    sender.start();
    closeables.add(sender);
    return sender;
  }

  private static void await(String what, Duration limit, BooleanSupplier done)
      throws InterruptedException {
    long deadline = System.nanoTime() + limit.toNanos();
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) {
        throw new IllegalStateException("timed out waiting for " + what);
      }
      Thread.sleep(5); // a load tool polling its own progress, not a test
    }
  }

  /**
   * Returns {ours one hop, baseline one hop, ours entry + relay, baseline entry + relay} in MB/s of
   * file.
   */
  private static double[] singleFile(
      EmbeddedZooKeeper zk, ActorSystem<?> system, Path work, long size, int peers)
      throws Exception {
    Path source = BenchStore.writeSource(work.resolve("src/big.yocto"), size, 42);
    double mb = size / 1e6;
    PartitionFileId id = new PartitionFileId(1, 0, 1);

    List<AutoCloseable> closeables = new ArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try {
      TransportSettings settings = settings("/bench-single");
      List<Node> nodes =
          searchers(
              zk, system, registry, settings, work.resolve("single"), "a", 1 + peers, closeables);
      TransportSender sender = sender(zk, system, registry, settings, closeables);
      // one hop alone: a datacenter of one searcher (in DC "a" the entry forwards the file to its
      // peers while it arrives, so its acknowledgement there comes with theirs)
      TransportSettings soloSettings = settings("/bench-single-hop");
      List<Node> solo =
          searchers(
              zk, system, registry, soloSettings, work.resolve("single"), "solo", 1, closeables);
      TransportSender soloSender = sender(zk, system, registry, soloSettings, closeables);
      await(
          "discovery",
          Duration.ofSeconds(30),
          () ->
              sender.discovery().inDc("a").size() == 1 + peers
                  && soloSender.discovery().inDc("solo").size() == 1);
      TlsCopyBaseline baseline =
          new TlsCopyBaseline(
              security(NodeIdentity.indexer("indexer-1", "idx")),
              security(NodeIdentity.searcher("a-s1", "a")));

      // warm both paths up (JIT, TLS) with a smaller file, so neither pays for it in the run
      Path warm =
          BenchStore.writeSource(work.resolve("src/warm.yocto"), Math.min(size, 64L << 20), 7);
      PartitionFileId warmId = new PartitionFileId(1, 1, 1);
      baseline(baseline, warm, warmId, work.resolve("baseline-warm"), peers);
      sender.send(warmId, warm).toCompletableFuture().get(30, TimeUnit.MINUTES);
      soloSender.send(warmId, warm).toCompletableFuture().get(30, TimeUnit.MINUTES);
      await(
          "warm-up relay",
          Duration.ofMinutes(30),
          () -> nodes.stream().allMatch(n -> n.store().published() == 1));

      // rounds alternate baseline and ours, so that load from elsewhere hits both alike
      List<double[]> rates = new ArrayList<>();
      for (int round = 1; round <= rounds; round++) {
        PartitionFileId version = new PartitionFileId(1, 0, round);
        long baseCpu0 = processCpuNanos();
        double[] base = baseline(baseline, source, version, work.resolve("baseline"), peers);
        double baseCpu = (processCpuNanos() - baseCpu0) / 1e9;
        System.out.printf(
            "round %d: baseline (%s, CRC32C while streaming, stage, fsync, verifying re-read,"
                + " rename): entry acknowledged after %.2f s (%.1f MB/s); entry +"
                + " store-and-forward to %d peers after %.2f s (%.1f MB/s of file); process CPU"
                + " %.1f s for both%n",
            round,
            tls ? "JDK TLS 1.3 sockets, mutual auth" : "plain JDK sockets",
            base[0],
            mb / base[0],
            peers,
            base[1],
            mb / base[1],
            baseCpu);
        int held = round + 1;
        long h0 = System.nanoTime();
        long hopCpu0 = processCpuNanos();
        deliver(soloSender, version, source);
        double entrySeconds = (System.nanoTime() - h0) / 1e9;
        double hopCpu = (processCpuNanos() - hopCpu0) / 1e9;
        long relayCpu0 = processCpuNanos();
        long t0 = System.nanoTime();
        deliver(sender, version, source);
        double entryWithPeersSeconds = (System.nanoTime() - t0) / 1e9;
        await(
            "relay to every peer",
            Duration.ofMinutes(30),
            () -> nodes.stream().allMatch(n -> n.store().published() == held));
        double allSeconds = (System.nanoTime() - t0) / 1e9;
        double relayCpu = (processCpuNanos() - relayCpu0) / 1e9;
        System.out.printf(
            "round %d: transport: one hop to a lone searcher acknowledged (record in the"
                + " manifest, stream, fsync, verify) after %.2f s (%.1f MB/s, process CPU %.1f s);"
                + " to the entry of %d peers after %.2f s; entry + relay to the peers done after"
                + " %.2f s (%.1f MB/s of file, %.1f MB/s written in total, process CPU %.1f s);"
                + " refused bytes %.0f%n",
            round,
            entrySeconds,
            mb / entrySeconds,
            hopCpu,
            peers,
            entryWithPeersSeconds,
            allSeconds,
            mb / allSeconds,
            mb * (1 + peers) / allSeconds,
            relayCpu,
            refusedBytes(registry));
        rates.add(new double[] {mb / entrySeconds, mb / base[0], mb / allSeconds, mb / base[1]});
        for (Node n : nodes) {
          n.store().deleteOlderThan(version);
        }
        for (Node n : solo) {
          n.store().deleteOlderThan(version);
        }
      }
      double[] median = new double[4];
      for (int k = 0; k < 4; k++) {
        int col = k;
        median[k] =
            rates.stream().mapToDouble(r -> r[col]).sorted().toArray()[(rates.size() - 1) / 2];
      }
      System.out.printf(
          "single file, median of %d rounds (MB/s of file): ours one hop %.1f, baseline %.1f;"
              + " ours entry + relay %.1f, baseline %.1f%n",
          rounds, median[0], median[1], median[2], median[3]);
      return median;
    } finally {
      closeAll(closeables);
      deleteTree(work.resolve("single"));
      deleteTree(work.resolve("src"));
    }
  }

  /** One baseline copy into fresh stores under {@code dir} (deleted after); seconds. */
  private static double[] baseline(
      TlsCopyBaseline baseline, Path source, PartitionFileId id, Path dir, int peers)
      throws Exception {
    List<BenchStore> peerStores = new ArrayList<>();
    for (int i = 1; i <= peers; i++) {
      peerStores.add(new BenchStore(dir.resolve("peer-" + i)));
    }
    try {
      return baseline.copy(source, id, new BenchStore(dir.resolve("entry")), peerStores);
    } finally {
      deleteTree(dir);
    }
  }

  private static double refusedBytes(SimpleMeterRegistry registry) {
    return registry.find("mosaic.transport.bytes").tag("direction", "refused").counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  /** Returns {seconds until every searcher holds every file, inter-DC copies per version}. */
  private static double[] fanout(
      EmbeddedZooKeeper zk,
      ActorSystem<?> system,
      Path work,
      int partitions,
      long fileBytes,
      int dcs,
      int perDc)
      throws Exception {
    List<Path> sources = new ArrayList<>();
    for (int p = 0; p < partitions; p++) {
      sources.add(BenchStore.writeSource(work.resolve("src2/" + p + ".yocto"), fileBytes, p));
    }
    List<AutoCloseable> closeables = new ArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try {
      TransportSettings settings = settings("/bench-fanout");
      List<Node> nodes = new ArrayList<>();
      List<String> dcNames = new ArrayList<>();
      for (int d = 0; d < dcs; d++) {
        String dc = "dc" + (char) ('a' + d);
        dcNames.add(dc);
        nodes.addAll(
            searchers(
                zk, system, registry, settings, work.resolve("fanout"), dc, perDc, closeables));
      }
      TransportSender sender = sender(zk, system, registry, settings, closeables);
      await(
          "discovery",
          Duration.ofSeconds(30),
          () ->
              sender.discovery().byDc().values().stream().mapToInt(List::size).sum()
                  == dcs * perDc);
      long t0 = System.nanoTime();
      long cpu0 = processCpuNanos();
      List<CompletableFuture<DeliveryReport>> reports = new ArrayList<>();
      for (int p = 0; p < partitions; p++) {
        reports.add(
            sender.send(new PartitionFileId(1, p, 1), sources.get(p)).toCompletableFuture());
      }
      int failed = 0;
      for (var r : reports) {
        DeliveryReport report = r.get(30, TimeUnit.MINUTES);
        if (report.failed().size() > 0) {
          failed++;
          System.out.println("failed: " + report);
        }
      }
      double sentSeconds = (System.nanoTime() - t0) / 1e9;
      await(
          "every searcher holding every file",
          Duration.ofMinutes(30),
          () -> nodes.stream().allMatch(n -> n.store().published() == partitions));
      double seconds = (System.nanoTime() - t0) / 1e9;
      double cpuSeconds = (processCpuNanos() - cpu0) / 1e9;
      double versionBytes = (double) partitions * fileBytes;
      double interDc = 0;
      for (String dc : dcNames) {
        double into =
            registry
                .find("mosaic.transport.bytes")
                .tag("direction", "received")
                .tag("to_dc", dc)
                .counters()
                .stream()
                .filter(c -> !dc.equals(c.getId().getTag("from_dc")))
                .mapToDouble(Counter::count)
                .sum();
        System.out.printf(
            "  bytes into %s from other DCs: %.0f (%.3f copies per version)%n",
            dc, into, into / versionBytes);
        interDc += into;
      }
      System.out.printf(
          "fan-out: %d files of %d MiB acknowledged by an entry of every DC after %.1f s (%d failed),"
              + " on all %d searchers after %.1f s; retries: %.0f; refused bytes: %.0f%n",
          partitions,
          fileBytes >> 20,
          sentSeconds,
          failed,
          dcs * perDc,
          seconds,
          registry.find("mosaic.transport.retries").counters().stream()
              .mapToDouble(Counter::count)
              .sum(),
          refusedBytes(registry));
      System.out.printf(
          "fan-out CPU: %.1f s of process CPU time (all nodes, ZooKeeper and the sender in this"
              + " JVM) for %.1f s of wall time; load average at the end %.1f%n",
          cpuSeconds,
          seconds,
          java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
      return new double[] {seconds, interDc / versionBytes};
    } finally {
      closeAll(closeables);
      deleteTree(work.resolve("fanout"));
      deleteTree(work.resolve("src2"));
    }
  }

  /** CPU time of this process so far (every thread, the JVM's own included). */
  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean)
            java.lang.management.ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }

  private static void closeAll(List<AutoCloseable> closeables) {
    for (int i = closeables.size() - 1; i >= 0; i--) {
      try {
        closeables.get(i).close();
      } catch (Exception e) {
        System.err.println("while closing: " + e);
      }
    }
  }

  static void deleteTree(Path dir) throws IOException {
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> s = Files.walk(dir)) {
      for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Sends {@code source} as {@code version} and waits for the report; a failed delivery throws. */
  private static void deliver(TransportSender sender, PartitionFileId version, Path source)
      throws Exception {
    DeliveryReport report =
        sender.send(version, source).toCompletableFuture().get(30, TimeUnit.MINUTES);
    if (!report.failed().isEmpty()) {
      throw new IllegalStateException("delivery failed: " + report);
    }
  }
}
