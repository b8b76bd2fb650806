package dev.mosaic.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.zookeeper.client.ZKClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The secrets a role reads: the operator token from a file or the environment (never the command
 * line), and the ZooKeeper TLS client settings.
 */
class RoleSecretsTest {
  private static final String TOKEN = "k7Vq2m9XhTzL4pWc8sRb";

  @TempDir Path dir;

  @Test
  void theOperatorTokenComesFromTheFileFirstThenTheEnvironment() throws Exception {
    Path file = dir.resolve("token");
    Files.writeString(file, "  " + TOKEN + "  \nignored second line\n");
    Map<String, String> env = Map.of("MOSAIC_ADMIN_TOKEN", "from-the-environment-0123");
    assertThat(AdminToken.read(file, "MOSAIC_ADMIN_TOKEN", env::get)).hasValue(TOKEN);
    assertThat(AdminToken.read(null, "MOSAIC_ADMIN_TOKEN", env::get))
        .hasValue("from-the-environment-0123");
    assertThat(AdminToken.read(null, "OTHER", env::get)).isEmpty();
    assertThat(AdminToken.read(null, "", env::get)).isEmpty();
  }

  @Test
  void aShortOrUnreadableTokenIsRefusedNamingItsSourceNotTheToken() throws Exception {
    Path file = dir.resolve("short");
    Files.writeString(file, "tooshort\n");
    assertThatThrownBy(() -> AdminToken.read(file, "", k -> null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mosaic.searcher.admin-token-file")
        .hasMessageContaining("8 characters; at least 16")
        .hasMessageNotContaining("tooshort");
    assertThatThrownBy(() -> AdminToken.read(dir.resolve("missing"), "", k -> null))
        .hasMessageContaining("cannot read");
    assertThatThrownBy(() -> AdminToken.read(null, "T", k -> "short"))
        .hasMessageContaining("environment variable T (mosaic.searcher.admin-token-env)");
  }

  @Test
  void theConfigNamesWhereTheTokenIsNotTheTokenItself() {
    MosaicConfig c =
        MosaicConfig.withOverrides(
            Map.of("mosaic.searcher.admin-token-file", dir.resolve("t").toString()));
    assertThat(c.searcher.adminTokenFile).isEqualTo(dir.resolve("t"));
    assertThat(MosaicConfig.withOverrides(Map.of()).searcher.adminTokenEnv)
        .isEqualTo("MOSAIC_ADMIN_TOKEN");
  }

  @Test
  void zooKeeperTlsSetsTheSecureNettyClientWithTheStores() throws Exception {
    Path keys = Files.writeString(dir.resolve("client.p12"), "x");
    Path trust = Files.writeString(dir.resolve("ca.p12"), "x");
    MosaicConfig c =
        MosaicConfig.withOverrides(
            Map.of(
                "mosaic.zookeeper.tls.enabled", "true",
                "mosaic.zookeeper.tls.key-store", keys.toString(),
                "mosaic.zookeeper.tls.key-store-password", "kp",
                "mosaic.zookeeper.tls.trust-store", trust.toString(),
                "mosaic.zookeeper.tls.trust-store-password", "tp"));
    ZKClientConfig zk = c.zkTls.clientConfig();
    assertThat(zk.getBoolean(ZKClientConfig.SECURE_CLIENT)).isTrue();
    assertThat(zk.getProperty(ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET))
        .isEqualTo("org.apache.zookeeper.ClientCnxnSocketNetty");
    assertThat(zk.getProperty("zookeeper.ssl.keyStore.location")).isEqualTo(keys.toString());
    assertThat(zk.getProperty("zookeeper.ssl.trustStore.location")).isEqualTo(trust.toString());
    assertThat(zk.getProperty("zookeeper.ssl.trustStore.password")).isEqualTo("tp");
    assertThat(c.zkTls.toString()).doesNotContain("kp").doesNotContain("tp\"");
    // off by default: ZooKeeper's plain client
    ZKClientConfig plain = MosaicConfig.withOverrides(Map.of()).zkTls.clientConfig();
    assertThat(plain.getBoolean(ZKClientConfig.SECURE_CLIENT)).isFalse();
  }

  @Test
  void zooKeeperTlsWithAMissingStoreIsRefusedNamingTheKey() {
    assertThatThrownBy(
            () ->
                MosaicConfig.withOverrides(
                    Map.of(
                        "mosaic.zookeeper.tls.enabled",
                        "true",
                        "mosaic.zookeeper.tls.trust-store",
                        dir.resolve("nope.p12").toString())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("mosaic.zookeeper.tls.trust-store: no such file");
  }

  @Test
  void queryLimitsAreConfigurableAndCheckedAtLoad() {
    MosaicConfig c =
        MosaicConfig.withOverrides(
            Map.of("mosaic.searcher.max-facets", "4", "mosaic.searcher.query-time-budget", "2s"));
    assertThat(c.searcher.queryLimits.maxFacets()).isEqualTo(4);
    assertThat(c.searcher.queryLimits.timeBudget()).hasSeconds(2);
    assertThat(c.searcher.maxRequestBytes).isEqualTo(16L << 20);
    assertThatThrownBy(
            () -> MosaicConfig.withOverrides(Map.of("mosaic.searcher.max-result-window", "10")))
        .hasMessageContaining("mosaic.searcher.max-result-window")
        .hasMessageContaining("maxResultWindow (10) must be >= maxLimit (1000)");
  }
}
