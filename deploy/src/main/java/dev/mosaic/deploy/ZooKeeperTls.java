package dev.mosaic.deploy;

import com.typesafe.config.Config;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.zookeeper.client.ZKClientConfig;

/**
 * TLS to ZooKeeper's secure client port ({@code mosaic.zookeeper.tls}): the client settings of
 * ZooKeeper's own TLS support (Netty client socket, key and trust stores, host name verification),
 * handed to Curator as a {@link ZKClientConfig}. The ensemble must be set up for TLS by its
 * operators ({@code secureClientPort}, server key and trust stores); point {@code
 * mosaic.zookeeper.connect} at the secure port.
 *
 * <p>Thread safety: immutable.
 *
 * @param enabled whether to connect with TLS
 * @param keyStore the client keystore, or null (servers not requiring client certificates)
 * @param keyStorePassword its password
 * @param keyStoreType its type (PKCS12, JKS)
 * @param trustStore the truststore with the servers' CA, or null for the JVM's default
 * @param trustStorePassword its password
 * @param trustStoreType its type
 * @param hostnameVerification whether the server's host name must match its certificate
 */
record ZooKeeperTls(
    boolean enabled,
    Path keyStore,
    String keyStorePassword,
    String keyStoreType,
    Path trustStore,
    String trustStorePassword,
    String trustStoreType,
    boolean hostnameVerification) {

  /**
   * Reads {@code zookeeper.tls} of the {@code mosaic} section.
   *
   * @throws IllegalArgumentException naming the key when TLS is on and a store file is missing
   */
  static ZooKeeperTls fromConfig(Config m) {
    Config t = m.getConfig("zookeeper.tls");
    ZooKeeperTls tls =
        new ZooKeeperTls(
            t.getBoolean("enabled"),
            path(t.getString("key-store")),
            t.getString("key-store-password"),
            t.getString("key-store-type"),
            path(t.getString("trust-store")),
            t.getString("trust-store-password"),
            t.getString("trust-store-type"),
            t.getBoolean("hostname-verification"));
    if (tls.enabled) {
      requireFile(tls.keyStore, "key-store");
      requireFile(tls.trustStore, "trust-store");
    }
    return tls;
  }

  private static Path path(String s) {
    return s.isBlank() ? null : Path.of(s.strip());
  }

  private static void requireFile(Path p, String key) {
    if (p != null && !Files.isRegularFile(p)) {
      throw new IllegalArgumentException(
          "configuration key mosaic.zookeeper.tls." + key + ": no such file " + p);
    }
  }

  /** The ZooKeeper client settings: TLS ones when enabled, ZooKeeper's defaults otherwise. */
  ZKClientConfig clientConfig() {
    ZKClientConfig c = new ZKClientConfig();
    if (!enabled) {
      return c;
    }
    c.setProperty(ZKClientConfig.SECURE_CLIENT, "true");
    c.setProperty(
        ZKClientConfig.ZOOKEEPER_CLIENT_CNXN_SOCKET, "org.apache.zookeeper.ClientCnxnSocketNetty");
    if (keyStore != null) {
      c.setProperty("zookeeper.ssl.keyStore.location", keyStore.toString());
      c.setProperty("zookeeper.ssl.keyStore.password", keyStorePassword);
      c.setProperty("zookeeper.ssl.keyStore.type", keyStoreType);
    }
    if (trustStore != null) {
      c.setProperty("zookeeper.ssl.trustStore.location", trustStore.toString());
      c.setProperty("zookeeper.ssl.trustStore.password", trustStorePassword);
      c.setProperty("zookeeper.ssl.trustStore.type", trustStoreType);
    }
    c.setProperty("zookeeper.ssl.hostnameVerification", Boolean.toString(hostnameVerification));
    return c;
  }

  @Override
  public String toString() {
    // never the passwords
    return "ZooKeeperTls[enabled="
        + enabled
        + ", keyStore="
        + keyStore
        + ", trustStore="
        + trustStore
        + "]";
  }
}
