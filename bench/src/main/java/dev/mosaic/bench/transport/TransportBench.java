package dev.mosaic.bench.transport;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionSender.DeliveryReport;
import dev.mosaic.transport.ClusterCertificates;
import dev.mosaic.transport.TransportNode;
import dev.mosaic.transport.TransportSecurity;
import dev.mosaic.transport.TransportSender;
import dev.mosaic.transport.TransportSettings;
import dev.mosaic.transport.ZooKeeperSecurity;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
import org.apache.pekko.actor.typed.javadsl.Behaviors;

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

  private static TransportSecurity security(String nodeId) {
    return tls ? CA.forNode(nodeId) : TransportSecurity.plaintext();
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
      ActorSystem<Void> system = ActorSystem.create(Behaviors.empty(), "transport-bench");
      try {
        double[] single = singleFile(zk, system, work, sizeBytes, peers);
        double[] fanout = fanout(zk, system, work, partitions, fileBytes, dcs, perDc);
        System.out.printf(
            "RESULT transport ours_mbps=%.1f socket_mbps=%.1f fanout_1024_s=%.1f"
                + " inter_dc_copies_per_version=%.2f tls=%s%n",
            single[0], single[1], fanout[0], fanout[1], tls ? "on" : "off");
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
              .security(security(id))
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
            .security(security("indexer-1"))
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

  /** Returns {ours MB/s, socket MB/s}. */
  private static double[] singleFile(
      EmbeddedZooKeeper zk, ActorSystem<?> system, Path work, long size, int peers)
      throws Exception {
    Path source = BenchStore.writeSource(work.resolve("src/big.yocto"), size, 42);
    double mb = size / 1e6;

    double socketSeconds = plainSocketCopy(source, work.resolve("socket/copy"));
    double socketMbps = mb / socketSeconds;
    System.out.printf(
        "plain socket copy (read, send, write, fsync): %.2f s, %.1f MB/s%n",
        socketSeconds, socketMbps);

    List<AutoCloseable> closeables = new ArrayList<>();
    SimpleMeterRegistry registry = new SimpleMeterRegistry();
    try {
      TransportSettings settings = settings("/bench-single");
      List<Node> nodes =
          searchers(
              zk, system, registry, settings, work.resolve("single"), "a", 1 + peers, closeables);
      TransportSender sender = sender(zk, system, registry, settings, closeables);
      await(
          "discovery",
          Duration.ofSeconds(30),
          () -> sender.discovery().inDc("a").size() == 1 + peers);
      long t0 = System.nanoTime();
      DeliveryReport report =
          sender
              .send(new PartitionFileId(1, 0, 1), source)
              .toCompletableFuture()
              .get(30, TimeUnit.MINUTES);
      double entrySeconds = (System.nanoTime() - t0) / 1e9;
      if (!report.failed().isEmpty()) {
        throw new IllegalStateException("delivery failed: " + report);
      }
      await(
          "relay to every peer",
          Duration.ofMinutes(30),
          () -> nodes.stream().allMatch(n -> n.store().published() == 1));
      double allSeconds = (System.nanoTime() - t0) / 1e9;
      System.out.printf(
          "transport: entry acknowledged (CRC pass, stream, fsync, verify) after %.2f s (%.1f MB/s);"
              + " entry + relay to %d peers done after %.2f s (%.1f MB/s of file, %.1f MB/s"
              + " written in total)%n",
          entrySeconds,
          mb / entrySeconds,
          peers,
          allSeconds,
          mb / allSeconds,
          mb * (1 + peers) / allSeconds);
      return new double[] {mb / allSeconds, socketMbps};
    } finally {
      closeAll(closeables);
      deleteTree(work.resolve("single"));
      deleteTree(work.resolve("socket"));
      Files.deleteIfExists(source);
    }
  }

  /** One copy over a plain loopback socket: read the file, send, write, fsync; seconds. */
  static double plainSocketCopy(Path source, Path target) throws Exception {
    Files.createDirectories(target.getParent());
    try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      CompletableFuture<Void> receiver =
          CompletableFuture.runAsync(
              () -> {
                try (Socket s = server.accept();
                    FileChannel out =
                        FileChannel.open(
                            target,
                            StandardOpenOption.CREATE,
                            StandardOpenOption.TRUNCATE_EXISTING,
                            StandardOpenOption.WRITE)) {
                  DataInputStream in =
                      new DataInputStream(new BufferedInputStream(s.getInputStream(), 1 << 18));
                  long remaining = in.readLong();
                  byte[] buf = new byte[1 << 18];
                  while (remaining > 0) {
                    int n = in.read(buf, 0, (int) Math.min(buf.length, remaining));
                    if (n < 0) {
                      throw new IOException("socket closed early");
                    }
                    out.write(java.nio.ByteBuffer.wrap(buf, 0, n));
                    remaining -= n;
                  }
                  out.force(true);
                  s.getOutputStream().write(1);
                } catch (IOException e) {
                  throw new java.io.UncheckedIOException(e);
                }
              });
      long t0 = System.nanoTime();
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
          InputStream file = Files.newInputStream(source)) {
        DataOutputStream out = new DataOutputStream(s.getOutputStream());
        out.writeLong(Files.size(source));
        byte[] buf = new byte[1 << 18];
        int n;
        while ((n = file.read(buf)) >= 0) {
          out.write(buf, 0, n);
        }
        out.flush();
        if (s.getInputStream().read() != 1) {
          throw new IOException("no acknowledgement from the socket receiver");
        }
      }
      receiver.get();
      return (System.nanoTime() - t0) / 1e9;
    }
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
              + " on all %d searchers after %.1f s; retries: %.0f%n",
          partitions,
          fileBytes >> 20,
          sentSeconds,
          failed,
          dcs * perDc,
          seconds,
          registry.find("mosaic.transport.retries").counters().stream()
              .mapToDouble(Counter::count)
              .sum());
      return new double[] {seconds, interDc / versionBytes};
    } finally {
      closeAll(closeables);
      deleteTree(work.resolve("fanout"));
      deleteTree(work.resolve("src2"));
    }
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
}
