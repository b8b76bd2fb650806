package dev.mosaic.transport;

import com.typesafe.config.Config;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;

/**
 * How transport connections are secured: mutual TLS (the default; both ends present a certificate
 * signed by the cluster CA and require the peer's), or — only as an explicit, logged opt-out —
 * plaintext. A node without valid credentials can then neither deliver, relay nor fetch: the
 * handshake fails and the refusing side logs it with the peer's address.
 *
 * <p>Sources: {@link #fromKeyStores} (production: a keystore with the node's key and chain, a
 * truststore with the cluster CA), {@link ClusterCertificates#forNode} (tests, local cluster), or
 * {@link #fromConfig} ({@code mosaic.transport.tls}, which falls back to the JVM's development CA
 * when no keystore is configured).
 *
 * <p>Thread safety: immutable; engines are made per connection.
 */
public final class TransportSecurity {
  private static final String[] PROTOCOLS = {"TLSv1.3"};

  private final SSLContext context;
  private final NodeIdentity identity;
  private final String description;

  private TransportSecurity(SSLContext context, NodeIdentity identity, String description) {
    this.context = context;
    this.identity = identity;
    this.description = description;
  }

  /**
   * Mutual TLS with a context holding this node's key material (a certificate carrying {@code
   * identity}) and the cluster CA as trust.
   */
  public static TransportSecurity mutualTls(
      SSLContext context, NodeIdentity identity, String description) {
    return new TransportSecurity(
        Objects.requireNonNull(context, "context"),
        Objects.requireNonNull(identity, "identity"),
        description);
  }

  /**
   * Mutual TLS with a context whose certificate's identity this object does not know (a node
   * starting with it cannot check that its certificate names it; peers still check).
   */
  public static TransportSecurity mutualTls(SSLContext context, String description) {
    return new TransportSecurity(Objects.requireNonNull(context, "context"), null, description);
  }

  /**
   * No encryption and no authentication. NOTE: anyone who can reach the port can then push files
   * that searchers will serve; every node start logs a warning. Only for compatibility.
   */
  public static TransportSecurity plaintext() {
    return new TransportSecurity(null, null, "PLAINTEXT (no authentication, no encryption)");
  }

  /**
   * Mutual TLS from files: {@code keyStore} holds this node's private key and certificate chain
   * (the key protected by the keystore's password), {@code trustStore} the cluster CA certificate.
   * Types are {@code PKCS12} or {@code JKS}.
   *
   * @throws IllegalArgumentException naming the file that cannot be read or holds no usable entry
   */
  public static TransportSecurity fromKeyStores(
      Path keyStore,
      char[] keyStorePassword,
      String keyStoreType,
      Path trustStore,
      char[] trustStorePassword,
      String trustStoreType) {
    KeyStore keys = load(keyStore, keyStorePassword, keyStoreType, "key-store");
    KeyStore trust = load(trustStore, trustStorePassword, trustStoreType, "trust-store");
    try {
      if (trust.size() == 0) {
        throw new IllegalArgumentException("trust-store " + trustStore + " holds no certificate");
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("trust-store " + trustStore + ": " + e.getMessage(), e);
    }
    NodeIdentity identity = identityOf(keys, keyStore);
    try {
      return mutualTls(
          ClusterCertificates.context(keys, keyStorePassword, trust),
          identity,
          "mutual TLS as " + identity + " with " + keyStore + ", trusting " + trustStore);
    } catch (IllegalStateException e) {
      throw new IllegalArgumentException(
          "key-store " + keyStore + " / trust-store " + trustStore + ": " + e.getMessage(), e);
    }
  }

  private static NodeIdentity identityOf(KeyStore keys, Path file) {
    try {
      for (String alias : Collections.list(keys.aliases())) {
        if (keys.isKeyEntry(alias) && keys.getCertificate(alias) instanceof X509Certificate c) {
          return NodeIdentity.of(c);
        }
      }
    } catch (GeneralSecurityException e) {
      throw new IllegalArgumentException("key-store " + file + ": " + e.getMessage(), e);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("key-store " + file + ": " + e.getMessage(), e);
    }
    throw new IllegalArgumentException("key-store " + file + " holds no private key entry");
  }

  private static KeyStore load(Path file, char[] password, String type, String what) {
    try (InputStream in = Files.newInputStream(file)) {
      KeyStore ks = KeyStore.getInstance(type);
      ks.load(in, password);
      return ks;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot read " + what + " " + file + " (" + type + "): " + e.getMessage(), e);
    }
  }

  /**
   * Reads {@code mosaic.transport.tls} of {@code config} for the node {@code self}: {@code enabled
   * = false} gives {@link #plaintext()}; an empty {@code key-store} gives credentials for {@code
   * self} from the JVM's {@link ClusterCertificates#development() development CA} (logged once;
   * only nodes of this JVM trust it); otherwise {@link #fromKeyStores}, whose certificate must
   * carry exactly {@code self}.
   *
   * @throws IllegalArgumentException when a file cannot be read, or the certificate names another
   *     node, DC or role
   */
  public static TransportSecurity fromConfig(Config config, NodeIdentity self) {
    Config c = config.getConfig("mosaic.transport.tls");
    if (!c.getBoolean("enabled")) {
      return plaintext();
    }
    String keyStore = c.getString("key-store");
    if (keyStore.isEmpty()) {
      return ClusterCertificates.development().forNode(self);
    }
    String trustStore = c.getString("trust-store");
    if (trustStore.isEmpty()) {
      throw new IllegalArgumentException(
          "mosaic.transport.tls.trust-store must be set when key-store is (" + keyStore + ")");
    }
    TransportSecurity s =
        fromKeyStores(
            Path.of(keyStore),
            c.getString("key-store-password").toCharArray(),
            c.getString("key-store-type"),
            Path.of(trustStore),
            c.getString("trust-store-password").toCharArray(),
            c.getString("trust-store-type"));
    s.requireIdentity(self);
    return s;
  }

  /**
   * Checks that this node's certificate carries {@code self} (when the identity is known).
   *
   * @throws IllegalArgumentException naming both identities
   */
  public void requireIdentity(NodeIdentity self) {
    if (identity != null && !identity.equals(self)) {
      throw new IllegalArgumentException(
          "the transport certificate ("
              + description
              + ") is for "
              + identity
              + ", but this node is "
              + self
              + "; issue one with `mosaic cert issue --node-id "
              + self.nodeId()
              + " --dc "
              + self.dc()
              + " --role "
              + self.role().label()
              + "`");
    }
  }

  /** The identity this node's certificate carries, when known. */
  public Optional<NodeIdentity> identity() {
    return Optional.ofNullable(identity);
  }

  /** Whether connections use TLS; false only for {@link #plaintext()}. */
  public boolean encrypted() {
    return context != null;
  }

  /** A server-side engine that requires the client's certificate (one per connection). */
  public SSLEngine newServerEngine() {
    SSLEngine e = engine();
    e.setUseClientMode(false);
    e.setNeedClientAuth(true);
    return e;
  }

  /** A client-side engine presenting this node's certificate (one per connection). */
  public SSLEngine newClientEngine() {
    SSLEngine e = engine(null, -1);
    e.setUseClientMode(true);
    return e;
  }

  /**
   * A client-side engine for connections to {@code peerHost:peerPort}: the peer's address lets
   * later connections resume the TLS session (no certificate exchange and path validation again).
   */
  public SSLEngine newClientEngine(String peerHost, int peerPort) {
    SSLEngine e = engine(peerHost, peerPort);
    e.setUseClientMode(true);
    return e;
  }

  private SSLEngine engine() {
    return engine(null, -1);
  }

  private SSLEngine engine(String peerHost, int peerPort) {
    if (context == null) {
      throw new IllegalStateException("plaintext transport has no TLS engine");
    }
    SSLEngine e =
        peerHost == null ? context.createSSLEngine() : context.createSSLEngine(peerHost, peerPort);
    SSLParameters p = e.getSSLParameters();
    p.setProtocols(PROTOCOLS);
    e.setSSLParameters(p);
    return e;
  }

  /**
   * The TLS context (null for plaintext), e.g. for tools and tests speaking the protocol over raw
   * sockets.
   */
  public SSLContext context() {
    return context;
  }

  /** The TLS protocols enabled. */
  public List<String> protocols() {
    return encrypted() ? List.of(PROTOCOLS) : List.of();
  }

  @Override
  public String toString() {
    return description;
  }
}
