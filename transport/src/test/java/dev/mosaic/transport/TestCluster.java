package dev.mosaic.transport;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.IntFunction;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.test.TestingServer;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * Real ZooKeeper (curator-test), one shared actor system, many searcher transport nodes with
 * file-backed stores, and senders — all in this JVM.
 */
final class TestCluster implements AutoCloseable {
  final TestingServer zk;
  final ActorSystem<Void> system;
  final SimpleMeterRegistry registry = new SimpleMeterRegistry();
  final TransportSettings settings;
  final Path root;

  /** The cluster CA every node of this cluster gets its certificate from. */
  final ClusterCertificates ca = ClusterCertificates.generate();

  /** The credential of the pipeline's ZooKeeper clients. */
  static final ZooKeeperSecurity ZK_SECURITY = ZooKeeperSecurity.digest("mosaic", "test-secret");

  final Map<String, Searcher> searchers = new LinkedHashMap<>();
  private final List<AutoCloseable> closeables = new ArrayList<>();

  /** One searcher: its node, store, ZooKeeper client, and the port the node binds. */
  static final class Searcher {
    final String id;
    final String dc;
    final CuratorFramework curator;
    final FileStore store;
    final int port;
    final int advertisedPort;
    volatile Supplier<Optional<String>> refusal = Optional::empty;
    volatile TransportNode node;
    volatile TransportSecurity security;

    Searcher(String id, String dc, CuratorFramework curator, FileStore store, int port, int adv) {
      this.id = id;
      this.dc = dc;
      this.curator = curator;
      this.store = store;
      this.port = port;
      this.advertisedPort = adv;
    }
  }

  TestCluster(Path root, TransportSettings settings) throws Exception {
    this.root = root;
    this.settings = settings;
    this.zk = new TestingServer(true);
    this.system = PekkoTransport.newActorSystem("transport-test");
  }

  /** A started client holding the pipeline's ZooKeeper credential. */
  CuratorFramework curator() {
    return curator(ZK_SECURITY);
  }

  /** A started client with {@code security} (e.g. {@link ZooKeeperSecurity#open()}: none). */
  CuratorFramework curator(ZooKeeperSecurity security) {
    CuratorFramework c =
        security
            .applyTo(
                CuratorFrameworkFactory.builder()
                    .connectString(zk.getConnectString())
                    .sessionTimeoutMs(15_000)
                    .connectionTimeoutMs(3_000)
                    .retryPolicy(new ExponentialBackoffRetry(100, 3)))
            .build();
    c.start();
    closeables.add(c);
    return c;
  }

  static int freePort() throws IOException {
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      return s.getLocalPort();
    }
  }

  /** Starts a searcher node; {@code link} (may be null) puts a faulty link in front of it. */
  Searcher searcher(String id, String dc, IntFunction<FaultyLink> link) throws Exception {
    return searcher(id, dc, link, null);
  }

  /** Starts a searcher node with {@code security} (null: a certificate from this cluster's CA). */
  Searcher searcher(String id, String dc, IntFunction<FaultyLink> link, TransportSecurity security)
      throws Exception {
    return searcher(id, dc, link, security, TestFiles::verifyPartition);
  }

  /** Starts a searcher node whose store checks complete files with {@code verifier}. */
  Searcher searcherVerifying(String id, String dc, FileStore.Verifier verifier) throws Exception {
    return searcher(id, dc, null, null, verifier);
  }

  private Searcher searcher(
      String id,
      String dc,
      IntFunction<FaultyLink> link,
      TransportSecurity security,
      FileStore.Verifier verifier)
      throws Exception {
    int port = freePort();
    int adv = port;
    if (link != null) {
      FaultyLink l = link.apply(port);
      closeables.add(l);
      adv = l.port();
    }
    FileStore store = new FileStore(root.resolve(id), Set.of(1), verifier);
    Searcher s = new Searcher(id, dc, curator(), store, port, adv);
    s.security = security != null ? security : ca.forNode(NodeIdentity.searcher(id, dc));
    searchers.put(id, s);
    start(s);
    return s;
  }

  Searcher searcher(String id, String dc) throws Exception {
    return searcher(id, dc, null);
  }

  /** (Re)starts the node of {@code s} on its port and store. */
  void start(Searcher s) throws Exception {
    TransportNode node =
        TransportNode.builder()
            .nodeId(s.id)
            .dc(s.dc)
            .bind("127.0.0.1", s.port)
            .advertise("127.0.0.1", s.advertisedPort)
            .httpAddress("http://127.0.0.1:1/" + s.id)
            .curator(s.curator)
            .store(s.store)
            .settings(settings)
            .actorSystem(system)
            .meterRegistry(registry)
            .refuseWhen(() -> s.refusal.get())
            .security(s.security)
            .build();
    node.start();
    s.node = node;
  }

  TransportSender sender(String id, String dc) throws Exception {
    return sender(id, dc, ca.forNode(NodeIdentity.indexer(id, dc)), curator());
  }

  /** A started sender with these credentials. */
  TransportSender sender(String id, String dc, TransportSecurity security, CuratorFramework curator)
      throws Exception {
    return sender(id, dc, security, curator, settings);
  }

  /** A started sender with these credentials and settings. */
  TransportSender sender(
      String id,
      String dc,
      TransportSecurity security,
      CuratorFramework curator,
      TransportSettings settings)
      throws Exception {
    TransportSender sender =
        TransportSender.builder()
            .nodeId(id)
            .dc(dc)
            .curator(curator)
            .security(security)
            .settings(settings)
            .actorSystem(system)
            .meterRegistry(registry)
            .build();
    sender.start();
    closeables.add(sender);
    return sender;
  }

  /** Bytes received by nodes of {@code dc} from any other datacenter. */
  double bytesIntoDcFromOutside(String dc) {
    return registry
        .find("mosaic.transport.bytes")
        .tag("direction", "received")
        .tag("to_dc", dc)
        .counters()
        .stream()
        .filter(c -> !dc.equals(c.getId().getTag("from_dc")))
        .mapToDouble(Counter::count)
        .sum();
  }

  double counter(String name, String kind) {
    return registry.find(name).tag("kind", kind).counters().stream()
        .mapToDouble(Counter::count)
        .sum();
  }

  @Override
  public void close() throws Exception {
    for (Searcher s : searchers.values()) {
      if (s.node != null) {
        s.node.close();
      }
    }
    for (int i = closeables.size() - 1; i >= 0; i--) {
      closeables.get(i).close();
    }
    system.terminate();
    system.getWhenTerminated().toCompletableFuture().get();
    zk.close();
  }
}
