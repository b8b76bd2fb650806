package dev.mosaic.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.PartitionSender;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.LoggerFactory;

/**
 * Mutual TLS on real loopback connections and digest ACLs on real ZooKeeper: a node without a
 * certificate from the cluster CA cannot deliver, relay or fetch (the file never appears in any
 * store, the refusal is logged with its address), and a ZooKeeper client without the pipeline's
 * credential cannot change the manifest or the registry.
 */
class TransportSecurityTest {
  private static final Duration DEADLINE = Duration.ofSeconds(60);

  @TempDir Path tmp;
  private final ListAppender<ILoggingEvent> log = new ListAppender<>();
  private final Logger serverLog =
      (Logger) LoggerFactory.getLogger("dev.mosaic.transport.impl.TransferServer");

  @BeforeEach
  void captureLog() {
    log.start();
    serverLog.addAppender(log);
  }

  @AfterEach
  void releaseLog() {
    serverLog.detachAppender(log);
  }

  private static TransportSettings.Builder quick() {
    return TransportSettings.builder()
        .retryBackoff(Duration.ofMillis(20), Duration.ofMillis(200))
        .maxAttemptsPerDc(2)
        .relayAttempts(2)
        .transferIdleTimeout(Duration.ofSeconds(10))
        .connectTimeout(Duration.ofSeconds(2))
        .catchUpGrace(Duration.ofMinutes(10))
        .catchUpInterval(Duration.ofMinutes(10));
  }

  private Path source(PartitionFileId id) throws IOException {
    return TestFiles.partition(
        tmp.resolve("out").resolve(id.partition() + "-" + id.version()), 200_000, id.hashCode());
  }

  /** Waits for a refusal logged by {@code node} naming a loopback peer address. */
  private void awaitRefusalLoggedBy(String node) {
    Predicate<ILoggingEvent> refusal =
        e ->
            e.getFormattedMessage()
                    .startsWith(node + ": refused transport connection from /127.0.0.1:")
                && e.getFormattedMessage().contains("TLS handshake failed");
    await("refusal logged by " + node)
        .atMost(DEADLINE)
        .until(() -> List.copyOf(log.list).stream().anyMatch(refusal));
  }

  /** Trusts the cluster CA but has no certificate of its own. */
  private static TransportSecurity withoutCertificate(ClusterCertificates ca) throws Exception {
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(ca.trustStore());
    SSLContext ctx = SSLContext.getInstance("TLSv1.3");
    ctx.init(null, tmf.getTrustManagers(), null);
    return TransportSecurity.mutualTls(ctx, "no certificate");
  }

  @Test
  void senderWithAForeignCertificateOrNoneCannotDeliverAndIsLoggedWithItsAddress()
      throws Exception {
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), quick().build())) {
      TestCluster.Searcher a1 = cluster.searcher("a1", "a");
      ClusterCertificates foreign = ClusterCertificates.generate();
      for (TransportSecurity creds :
          List.of(
              foreign.forNode(NodeIdentity.indexer("indexer-x", "idx")),
              withoutCertificate(cluster.ca))) {
        TransportSender rogue = cluster.sender("indexer-x", "idx", creds, cluster.curator());
        await().atMost(DEADLINE).until(() -> rogue.discovery().inDc("a").size() == 1);
        PartitionFileId id = new PartitionFileId(1, 1, 7);
        PartitionSender.DeliveryReport report =
            rogue.send(id, source(id)).toCompletableFuture().get(60, TimeUnit.SECONDS);
        assertThat(report.acceptedBy()).as(creds.toString()).isEmpty();
        assertThat(report.failed()).as(creds.toString()).containsKey("a");
        assertThat(a1.store.file(id)).as(creds.toString()).isEmpty();
        assertThat(a1.store.stagedCount()).isZero();
        awaitRefusalLoggedBy("a1");
        log.list.clear();
        rogue.close();
      }
      // a plain TCP peer speaking the wire protocol without TLS gets nowhere either
      try (Socket s = new Socket(InetAddress.getLoopbackAddress(), a1.port)) {
        OutputStream out = s.getOutputStream();
        out.write(new byte[] {0, 0, 0, 2, 10, 0});
        out.flush();
        assertThat(s.getInputStream().read()).isEqualTo(-1);
      }
      awaitRefusalLoggedBy("a1");
      try (var files = a1.store.visibleFiles()) {
        assertThat(files.toList()).isEmpty();
      }
      // with the cluster's certificate the same delivery goes through
      TransportSender indexer = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> indexer.discovery().inDc("a").size() == 1);
      PartitionFileId id = new PartitionFileId(1, 1, 7);
      assertThat(
              indexer.send(id, source(id)).toCompletableFuture().get(60, TimeUnit.SECONDS).failed())
          .isEmpty();
      assertThat(a1.store.file(id)).isPresent();
    }
  }

  @Test
  void aSearcherWithAForeignCertificateCannotRelayIntoTheClusterNorReceiveARelay()
      throws Exception {
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), quick().build())) {
      ClusterCertificates foreign = ClusterCertificates.generate();
      TestCluster.Searcher a1 = cluster.searcher("a1", "a");
      TestCluster.Searcher rogue =
          cluster.searcher("a2", "a", null, foreign.forNode(NodeIdentity.searcher("a2", "a")));
      // the rogue gets a file from a sender of its own CA, then relays it to a1, which refuses
      TransportSender rogueSender =
          cluster.sender(
              "indexer-x",
              "idx",
              foreign.forNode(NodeIdentity.indexer("indexer-x", "idx")),
              cluster.curator());
      await().atMost(DEADLINE).until(() -> rogueSender.discovery().inDc("a").size() == 2);
      PartitionFileId bad = new PartitionFileId(1, 2, 5);
      Path badFile = source(bad);
      await("rogue a2 holds the file it will relay")
          .atMost(DEADLINE)
          .until(
              () -> {
                rogueSender.send(bad, badFile).toCompletableFuture().get(60, TimeUnit.SECONDS);
                return rogue.store.file(bad).isPresent();
              });
      awaitRefusalLoggedBy("a1");
      assertThat(a1.store.file(bad)).isEmpty();
      assertThat(a1.store.stagedCount()).isZero();
      // and a relay from a1 (cluster certificate) to the rogue is refused: the rogue never gets it
      TransportSender indexer = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> indexer.discovery().inDc("a").size() == 2);
      PartitionFileId good = new PartitionFileId(1, 3, 1);
      await("a1 accepted a delivery from the cluster's indexer")
          .atMost(DEADLINE)
          .until(
              () -> {
                indexer.send(good, source(good)).toCompletableFuture().get(60, TimeUnit.SECONDS);
                return a1.store.file(good).isPresent();
              });
      await("a1 gave up relaying to the rogue")
          .atMost(DEADLINE)
          .until(
              () ->
                  cluster
                          .registry
                          .find("mosaic.transport.deliveries")
                          .tag("kind", "relay")
                          .tag("outcome", "failed")
                          .counters()
                          .stream()
                          .mapToDouble(c -> c.count())
                          .sum()
                      >= 1);
      assertThat(rogue.store.file(good)).isEmpty();
    }
  }

  @Test
  void aSearcherWithAForeignCertificateCannotFetchWhileAGenuineOneCatchesUp() throws Exception {
    TransportSettings settings =
        quick().catchUpGrace(Duration.ZERO).catchUpInterval(Duration.ofMillis(300)).build();
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), settings)) {
      TestCluster.Searcher a1 = cluster.searcher("a1", "a");
      TransportSender indexer = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> indexer.discovery().inDc("a").size() == 1);
      PartitionFileId id = new PartitionFileId(1, 4, 2);
      assertThat(
              indexer.send(id, source(id)).toCompletableFuture().get(60, TimeUnit.SECONDS).failed())
          .isEmpty();
      await().atMost(DEADLINE).until(() -> indexer.manifest().latest(1, 4).isPresent());
      log.list.clear();
      TestCluster.Searcher rogue =
          cluster.searcher(
              "a3",
              "a",
              null,
              ClusterCertificates.generate().forNode(NodeIdentity.searcher("a3", "a")));
      TestCluster.Searcher genuine = cluster.searcher("a2", "a");
      await("genuine a2 catches up over TLS")
          .atMost(DEADLINE)
          .until(() -> genuine.store.file(id).isPresent());
      awaitRefusalLoggedBy("a1");
      assertThat(rogue.node.health().partitionsBehind()).isEqualTo(1);
      assertThat(rogue.store.file(id)).isEmpty();
      assertThat(rogue.store.stagedCount()).isZero();
    }
  }

  @Test
  void thePlaintextOptOutStillDeliversButCannotTalkToTlsNodes() throws Exception {
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), quick().build())) {
      TestCluster.Searcher p1 = cluster.searcher("p1", "a", null, TransportSecurity.plaintext());
      TestCluster.Searcher p2 = cluster.searcher("p2", "a", null, TransportSecurity.plaintext());
      TransportSender plain =
          cluster.sender("indexer-p", "idx", TransportSecurity.plaintext(), cluster.curator());
      await().atMost(DEADLINE).until(() -> plain.discovery().inDc("a").size() == 2);
      PartitionFileId id = new PartitionFileId(1, 5, 1);
      assertThat(
              plain.send(id, source(id)).toCompletableFuture().get(60, TimeUnit.SECONDS).failed())
          .isEmpty();
      await()
          .atMost(DEADLINE)
          .until(() -> p1.store.file(id).isPresent() && p2.store.file(id).isPresent());
      TestCluster.Searcher b1 = cluster.searcher("b1", "b");
      await().atMost(DEADLINE).until(() -> plain.discovery().inDc("b").size() == 1);
      PartitionFileId other = new PartitionFileId(1, 6, 1);
      PartitionSender.DeliveryReport r =
          plain.send(other, source(other)).toCompletableFuture().get(60, TimeUnit.SECONDS);
      assertThat(r.failed()).containsKey("b");
      assertThat(b1.store.file(other)).isEmpty();
      awaitRefusalLoggedBy("b1");
    }
  }

  @Test
  void aZooKeeperClientWithoutTheCredentialCannotChangeTheManifestOrTheRegistry() throws Exception {
    try (TestCluster cluster = new TestCluster(tmp.resolve("c"), quick().build())) {
      cluster.searcher("a1", "a");
      TransportSender indexer = cluster.sender("indexer-1", "idx");
      await().atMost(DEADLINE).until(() -> indexer.discovery().inDc("a").size() == 1);
      PartitionFileId id = new PartitionFileId(1, 8, 3);
      indexer.send(id, source(id)).toCompletableFuture().get(60, TimeUnit.SECONDS);
      await().atMost(DEADLINE).until(() -> indexer.manifest().latest(1, 8).isPresent());
      String root = TransportSettings.defaults().zkRoot();
      String manifestEntry = root + "/manifest/v1/8";
      String registration = root + "/searchers/a/a1";

      CuratorFramework outsider = cluster.curator(ZooKeeperSecurity.open());
      // reading stays open
      assertThat(outsider.getData().forPath(manifestEntry)).isNotEmpty();
      assertThat(outsider.getData().forPath(registration)).isNotEmpty();
      for (ThrowingCall write :
          List.<ThrowingCall>of(
              () -> outsider.setData().forPath(manifestEntry, new byte[] {1}),
              () -> outsider.delete().forPath(manifestEntry),
              () -> outsider.create().forPath(root + "/manifest/v1/9", new byte[] {1}),
              () -> outsider.create().forPath(root + "/manifest/v2", new byte[] {1}),
              () -> outsider.setData().forPath(registration, new byte[] {1}),
              () -> outsider.delete().forPath(registration),
              () -> outsider.create().forPath(root + "/searchers/a/fake", new byte[] {1}),
              () -> outsider.create().forPath(root + "/searchers/evil", new byte[] {1}),
              () -> outsider.setACL().withACL(ZooKeeperSecurity.open().acls()).forPath(root))) {
        assertThatThrownBy(write::call).isInstanceOf(KeeperException.NoAuthException.class);
      }
      try (PartitionManifest forged = PartitionManifest.inZooKeeper(outsider, root)) {
        forged.start();
        assertThatThrownBy(
                () ->
                    forged.advance(
                        new ManifestRecord(
                            new PartitionFileId(1, 8, 99), 10, 1, System.currentTimeMillis(), "x")))
            .isInstanceOf(KeeperException.NoAuthException.class);
      }
      assertThat(indexer.manifest().latest(1, 8).orElseThrow().id().version()).isEqualTo(3);
      // the credential's holders can
      CuratorFramework pipeline = cluster.curator();
      try (PartitionManifest own = PartitionManifest.inZooKeeper(pipeline, root)) {
        own.start();
        assertThat(
                own.advance(
                    new ManifestRecord(
                        new PartitionFileId(1, 8, 4), 10, 1, System.currentTimeMillis(), "x")))
            .isTrue();
      }
    }
  }

  @FunctionalInterface
  private interface ThrowingCall {
    void call() throws Exception;
  }
}
