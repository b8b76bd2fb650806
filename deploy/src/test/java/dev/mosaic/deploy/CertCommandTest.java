package dev.mosaic.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.transport.NodeIdentity;
import dev.mosaic.transport.TransportSecurity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code mosaic cert} and the certificate check of the role commands. */
class CertCommandTest {
  @TempDir Path tmp;

  private static CommandRun run(String... args) {
    return CommandRun.of(args);
  }

  private static CommandRun issue(Path dir, String node, String dc, String role) {
    return run(
        "cert", "issue", "--dir", dir.toString(), "--node-id", node, "--dc", dc, "--role", role);
  }

  private static TransportSecurity load(Path dir, String node) {
    return TransportSecurity.fromKeyStores(
        dir.resolve(node + ".p12"),
        new char[0],
        "PKCS12",
        dir.resolve("truststore.p12"),
        new char[0],
        "PKCS12");
  }

  @Test
  void createCaThenIssueGivesNodesThatAuthenticateEachOtherWithTheirIdentity() throws Exception {
    Path dir = tmp.resolve("certs");
    CommandRun ca = run("cert", "create-ca", "--dir", dir.toString());
    assertThat(ca.exitCode()).as(ca.err()).isZero();
    assertThat(ca.out()).contains("mosaic cert issue");
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(dir.resolve("ca.p12"))))
        .isEqualTo("rw-------");
    CommandRun s = issue(dir, "s1", "dc-a", "searcher");
    assertThat(s.exitCode()).as(s.err()).isZero();
    assertThat(s.out()).contains("mosaic.transport.tls.key-store=" + dir.resolve("s1.p12"));
    CommandRun i = issue(dir, "ix", "dc-b", "INDEXER");
    assertThat(i.exitCode()).as(i.err()).isZero();

    TransportSecurity searcher = load(dir, "s1");
    TransportSecurity indexer = load(dir, "ix");
    assertThat(searcher.identity()).contains(NodeIdentity.searcher("s1", "dc-a"));
    assertThat(indexer.identity()).contains(NodeIdentity.indexer("ix", "dc-b"));

    // a TLS 1.3 handshake between them: each side sees the other's identity
    try (SSLServerSocket server =
        (SSLServerSocket) searcher.context().getServerSocketFactory().createServerSocket(0)) {
      server.setNeedClientAuth(true);
      CompletableFuture<NodeIdentity> seenByServer =
          CompletableFuture.supplyAsync(
              () -> {
                try (SSLSocket c = (SSLSocket) server.accept()) {
                  c.startHandshake();
                  return NodeIdentity.ofPeer(c.getSession());
                } catch (Exception e) {
                  throw new IllegalStateException(e);
                }
              });
      try (SSLSocket c =
          (SSLSocket)
              indexer
                  .context()
                  .getSocketFactory()
                  .createSocket("127.0.0.1", server.getLocalPort())) {
        c.startHandshake();
        assertThat(NodeIdentity.ofPeer(c.getSession()))
            .isEqualTo(NodeIdentity.searcher("s1", "dc-a"));
      }
      assertThat(seenByServer.get(30, TimeUnit.SECONDS))
          .isEqualTo(NodeIdentity.indexer("ix", "dc-b"));
    }
  }

  @Test
  void issueNamesWhatIsWrong() {
    Path dir = tmp.resolve("none");
    CommandRun noCa = issue(dir, "s1", "a", "searcher");
    assertThat(noCa.exitCode()).isNotZero();
    assertThat(noCa.err()).contains("no CA at").contains("mosaic cert create-ca");
    CommandRun badRole = issue(dir, "s1", "a", "admin");
    assertThat(badRole.err()).contains("unknown role 'admin'");
    CommandRun badName = issue(dir, "s 1", "a", "searcher");
    assertThat(badName.err()).contains("node id 's 1'");
  }

  @Test
  void aRoleWithoutACertificateWhileTlsIsOnRefusesAndSaysWhatToRun() {
    CommandRun r =
        run(
            "searcher",
            "--set",
            "mosaic.zookeeper.connect=127.0.0.1:1",
            "--set",
            "mosaic.searcher.node-id=s7",
            "--set",
            "mosaic.searcher.dc=dc-b");
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err())
        .contains("has no certificate")
        .contains("mosaic cert create-ca --dir certs")
        .contains("mosaic cert issue --dir certs --node-id s7 --dc dc-b --role searcher");
  }

  @Test
  void aRoleWhoseCertificateNamesAnotherNodeRefuses() throws Exception {
    Path dir = tmp.resolve("certs");
    assertThat(run("cert", "create-ca", "--dir", dir.toString()).exitCode()).isZero();
    assertThat(issue(dir, "s1", "dc-a", "searcher").exitCode()).isZero();
    CommandRun r =
        run(
            "indexer",
            "--set",
            "mosaic.zookeeper.connect=127.0.0.1:1",
            "--set",
            "mosaic.kafka.bootstrap-servers=127.0.0.1:1",
            "--set",
            "mosaic.indexer.node-id=s1",
            "--set",
            "mosaic.indexer.dc=dc-a",
            "--set",
            "mosaic.transport.tls.key-store=" + dir.resolve("s1.p12"),
            "--set",
            "mosaic.transport.tls.trust-store=" + dir.resolve("truststore.p12"));
    assertThat(r.exitCode()).isNotZero();
    assertThat(r.err())
        .contains("is for searcher s1@dc-a, but this node is indexer s1@dc-a")
        .contains("--role indexer");
  }
}
