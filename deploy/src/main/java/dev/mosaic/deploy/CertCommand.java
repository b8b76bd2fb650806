package dev.mosaic.deploy;

import dev.mosaic.transport.ClusterCertificates;
import dev.mosaic.transport.NodeIdentity;
import dev.mosaic.transport.TransportSecurity;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code mosaic cert}: the cluster's transport certificates, the way {@code cockroach cert} or
 * {@code elasticsearch-certutil} make them. {@code create-ca} makes the cluster CA once ({@code
 * <dir>/ca.p12}, the CA key: keep it off the nodes) and the truststore every node needs ({@code
 * <dir>/truststore.p12}); {@code issue} makes one node's keystore ({@code <dir>/<node-id>.p12}),
 * whose certificate carries the node id, DC and role that receivers check. Files are PKCS12,
 * readable only by their owner; their passwords come from the environment ({@code
 * MOSAIC_CA_PASSWORD} for the CA, {@code MOSAIC_KEY_STORE_PASSWORD} for a node keystore; empty when
 * unset), never from the command line.
 *
 * <p>Also the check the role commands run before starting: with TLS on, a role without a configured
 * certificate refuses to start and says what to run.
 */
@Command(
    name = "cert",
    mixinStandardHelpOptions = true,
    description = "Makes the cluster CA and node certificates for the transport's mutual TLS.",
    subcommands = {CertCommand.CreateCa.class, CertCommand.Issue.class})
final class CertCommand implements Runnable {
  static final String CA_FILE = "ca.p12";
  static final String TRUST_FILE = "truststore.p12";
  static final String CA_PASSWORD_ENV = "MOSAIC_CA_PASSWORD";
  static final String KEY_STORE_PASSWORD_ENV = "MOSAIC_KEY_STORE_PASSWORD";

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    throw new CommandLine.ParameterException(
        spec.commandLine(), "missing command: create-ca or issue (try --help)");
  }

  private static char[] password(String env) {
    String v = System.getenv(env);
    return v == null ? new char[0] : v.toCharArray();
  }

  /** {@code cert create-ca}. */
  @Command(
      name = "create-ca",
      mixinStandardHelpOptions = true,
      description =
          "Creates the cluster CA (<dir>/ca.p12, password from $"
              + CA_PASSWORD_ENV
              + ") and the truststore every node uses (<dir>/truststore.p12).")
  static final class CreateCa implements Callable<Integer> {
    @Option(names = "--dir", required = true, description = "Directory of the certificates.")
    Path dir;

    @Option(names = "--name", defaultValue = "mosaic-cluster-ca", description = "CA name (CN).")
    String name;

    @Option(names = "--days", defaultValue = "3650", description = "CA validity in days.")
    int days;

    @Option(
        names = "--overwrite",
        description = "Replace an existing CA (every node needs new certificates).")
    boolean overwrite;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      if (days <= 0) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--days must be > 0: " + days);
      }
      Path ca = dir.resolve(CA_FILE);
      if (Files.exists(ca) && !overwrite) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            ca + " exists; a new CA invalidates every node certificate (use --overwrite to do it)");
      }
      Files.createDirectories(dir);
      ClusterCertificates certs = ClusterCertificates.generate(name, Duration.ofDays(days));
      certs.writeCa(ca, password(CA_PASSWORD_ENV));
      certs.writeTrustStore(dir.resolve(TRUST_FILE), new char[0]);
      PrintWriter out = spec.commandLine().getOut();
      out.printf(
          "created the cluster CA %s (keep it off the nodes) and the truststore %s%n"
              + "next, for every node: mosaic cert issue --dir %s --node-id <id> --dc <dc>"
              + " --role <searcher|indexer>%n",
          ca, dir.resolve(TRUST_FILE), dir);
      out.flush();
      return 0;
    }
  }

  /** {@code cert issue}. */
  @Command(
      name = "issue",
      mixinStandardHelpOptions = true,
      description =
          "Issues a node certificate carrying its node id, DC and role: <dir>/<node-id>.p12"
              + " (password from $"
              + KEY_STORE_PASSWORD_ENV
              + "), signed by <dir>/ca.p12.")
  static final class Issue implements Callable<Integer> {
    @Option(names = "--dir", required = true, description = "Directory holding ca.p12.")
    Path dir;

    @Option(
        names = "--node-id",
        required = true,
        description = "The node's id (its node-id setting).")
    String nodeId;

    @Option(names = "--dc", required = true, description = "The node's datacenter.")
    String dc;

    @Option(names = "--role", required = true, description = "searcher or indexer.")
    String role;

    @Option(
        names = "--days",
        defaultValue = "365",
        description = "Validity in days (at most the CA's).")
    int days;

    @Option(names = "--out", description = "Keystore file (default <dir>/<node-id>.p12).")
    Path out;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
      NodeIdentity node;
      try {
        node = new NodeIdentity(nodeId, dc, NodeIdentity.Role.parse(role));
      } catch (IllegalArgumentException e) {
        throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
      }
      if (days <= 0) {
        throw new CommandLine.ParameterException(spec.commandLine(), "--days must be > 0: " + days);
      }
      Path ca = dir.resolve(CA_FILE);
      if (!Files.exists(ca)) {
        throw new CommandLine.ParameterException(
            spec.commandLine(),
            "no CA at " + ca + "; run `mosaic cert create-ca --dir " + dir + "` first");
      }
      ClusterCertificates certs =
          ClusterCertificates.load(ca, password(CA_PASSWORD_ENV), Duration.ofDays(days));
      Path file = out != null ? out : dir.resolve(nodeId + ".p12");
      certs.writeNodeKeyStore(node, file, password(KEY_STORE_PASSWORD_ENV));
      PrintWriter w = spec.commandLine().getOut();
      w.printf(
          "issued %s: %s%nstart the node with%n"
              + "  --set mosaic.transport.tls.key-store=%s"
              + " --set mosaic.transport.tls.trust-store=%s%n"
              + "(and mosaic.transport.tls.key-store-password set to $%s when it is not empty)%n",
          node, file, file, dir.resolve(TRUST_FILE), KEY_STORE_PASSWORD_ENV);
      w.flush();
      return 0;
    }
  }

  /**
   * What a role command checks before it starts: with TLS on, a certificate for {@code self} must
   * be configured and must carry exactly {@code self} (a node of its own JVM-made CA could talk to
   * nobody).
   *
   * @throws IllegalStateException saying what to run when no certificate is configured
   * @throws IllegalArgumentException when the configured one cannot be read or names another node
   */
  static void requireCertificate(MosaicConfig config, NodeIdentity self) {
    var tls = config.config().getConfig("mosaic.transport.tls");
    if (!tls.getBoolean("enabled")) {
      return;
    }
    if (tls.getString("key-store").isEmpty()) {
      throw new IllegalStateException(
          String.format(
              "transport TLS is on but this %s has no certificate"
                  + " (mosaic.transport.tls.key-store is empty). Make the cluster CA once with"
                  + " `mosaic cert create-ca --dir certs`, issue this node's certificate with"
                  + " `mosaic cert issue --dir certs --node-id %s --dc %s --role %s`, then start"
                  + " it with --set mosaic.transport.tls.key-store=certs/%s.p12"
                  + " --set mosaic.transport.tls.trust-store=certs/truststore.p12"
                  + " (see deploy/README.md, \"Running in production\")",
              self.role().label(), self.nodeId(), self.dc(), self.role().label(), self.nodeId()));
    }
    TransportSecurity.fromConfig(config.config(), self);
  }
}
