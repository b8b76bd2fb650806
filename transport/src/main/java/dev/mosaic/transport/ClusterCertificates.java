package dev.mosaic.transport;

import java.io.IOException;
import java.io.OutputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.Objects;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x500.X500NameBuilder;
import org.bouncycastle.asn1.x500.style.BCStyle;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.ExtendedKeyUsage;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.KeyPurposeId;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.CertIOException;
import org.bouncycastle.cert.X509v3CertificateBuilder;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509ExtensionUtils;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A throwaway cluster certificate authority: an EC P-256 key and a self-signed CA certificate made
 * in memory, which issues per-node certificates (CN = node id, usable for TLS client and server
 * authentication). For tests and the local cluster, so that the default stays zero-config and still
 * runs the transport over mutual TLS; production uses real keystores ({@link
 * TransportSecurity#fromKeyStores}), which {@link #writeNodeKeyStore} and {@link #writeTrustStore}
 * can also produce.
 *
 * <pre>{@code
 * ClusterCertificates ca = ClusterCertificates.generate();
 * TransportNode.builder()....security(ca.forNode("searcher-a1"))...
 * TransportSender.builder()....security(ca.forNode("indexer-1"))...
 * }</pre>
 *
 * <p>Thread safety: safe for concurrent use. NOTE: the CA's private key lives only in this object;
 * whoever holds it can mint node certificates the whole cluster trusts — never hand it to a node.
 */
public final class ClusterCertificates {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterCertificates.class);
  private static final String SIGNATURE = "SHA256withECDSA";
  private static final Duration CLOCK_SKEW = Duration.ofHours(1);
  private static final SecureRandom RANDOM = new SecureRandom();
  private static final int SESSION_SECONDS = 3600;
  private static volatile ClusterCertificates development;

  private final String name;
  private final KeyPair caKey;
  private final X509Certificate caCertificate;
  private final Duration validity;

  private ClusterCertificates(String name, Duration validity) {
    this.name = name;
    this.validity = validity;
    try {
      this.caKey = newKeyPair();
      X500Name subject = dn(name);
      Instant now = Instant.now();
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              subject,
              serial(),
              Date.from(now.minus(CLOCK_SKEW)),
              Date.from(now.plus(validity)),
              subject,
              caKey.getPublic());
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(0));
      b.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
      b.addExtension(
          Extension.subjectKeyIdentifier, false, ext.createSubjectKeyIdentifier(caKey.getPublic()));
      this.caCertificate = sign(b, caKey);
    } catch (GeneralSecurityException | CertIOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot create the cluster CA " + name + ": " + e, e);
    }
  }

  /** A new CA named {@code mosaic-cluster-ca}, valid for 30 days. */
  public static ClusterCertificates generate() {
    return generate("mosaic-cluster-ca", Duration.ofDays(30));
  }

  /**
   * A new CA with this common name, whose certificate and the node certificates it issues are valid
   * for {@code validity} from now.
   */
  public static ClusterCertificates generate(String name, Duration validity) {
    Objects.requireNonNull(name, "name");
    if (validity.isNegative() || validity.isZero()) {
      throw new IllegalArgumentException("validity must be > 0: " + validity);
    }
    return new ClusterCertificates(name, validity);
  }

  /**
   * The development CA of this JVM, made on first use (logged once): what nodes without configured
   * keystores use. Only nodes in the same JVM trust each other through it.
   */
  public static ClusterCertificates development() {
    ClusterCertificates d = development;
    if (d == null) {
      synchronized (ClusterCertificates.class) {
        d = development;
        if (d == null) {
          d =
              generate(
                  "mosaic-development-ca-" + ProcessHandle.current().pid(), Duration.ofDays(7));
          development = d;
          LOG.warn(
              "transport TLS: no keystore configured (mosaic.transport.tls.key-store); generated a"
                  + " development cluster CA for this JVM ({}). Only nodes of this JVM trust each"
                  + " other; configure keystores signed by a real cluster CA in production",
              d.caCertificate.getSubjectX500Principal().getName());
        }
      }
    }
    return d;
  }

  /** The CA certificate every node must trust. */
  public X509Certificate caCertificate() {
    return caCertificate;
  }

  /** A certificate chain and key for {@code nodeId}, signed by this CA. */
  public KeyStore nodeKeyStore(String nodeId, char[] password) {
    try {
      KeyPair key = newKeyPair();
      X500Name subject = dn(nodeId);
      Instant now = Instant.now();
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              caCertificate,
              serial(),
              Date.from(now.minus(CLOCK_SKEW)),
              Date.from(now.plus(validity)),
              subject,
              key.getPublic());
      JcaX509ExtensionUtils ext = new JcaX509ExtensionUtils();
      b.addExtension(Extension.basicConstraints, true, new BasicConstraints(false));
      b.addExtension(Extension.keyUsage, true, new KeyUsage(KeyUsage.digitalSignature));
      b.addExtension(
          Extension.extendedKeyUsage,
          false,
          new ExtendedKeyUsage(
              new KeyPurposeId[] {KeyPurposeId.id_kp_serverAuth, KeyPurposeId.id_kp_clientAuth}));
      b.addExtension(
          Extension.authorityKeyIdentifier, false, ext.createAuthorityKeyIdentifier(caCertificate));
      X509Certificate cert = sign(b, caKey);
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry(
          "node", key.getPrivate(), password, new X509Certificate[] {cert, caCertificate});
      return ks;
    } catch (GeneralSecurityException | IOException | OperatorCreationException e) {
      throw new IllegalStateException(
          "cannot issue a certificate for node " + nodeId + ": " + e, e);
    }
  }

  /** A keystore holding only this CA's certificate, as a truststore. */
  public KeyStore trustStore() {
    try {
      KeyStore ts = KeyStore.getInstance("PKCS12");
      ts.load(null, null);
      ts.setCertificateEntry("cluster-ca", caCertificate);
      return ts;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build a truststore: " + e, e);
    }
  }

  /**
   * Mutual-TLS credentials for {@code nodeId}: a fresh node key and certificate signed by this CA,
   * trusting exactly this CA.
   */
  public TransportSecurity forNode(String nodeId) {
    char[] password = new char[0];
    KeyStore ks = nodeKeyStore(nodeId, password);
    return TransportSecurity.mutualTls(
        context(ks, password, trustStore()),
        "mutual TLS as " + nodeId + " (certificate from " + name + ")");
  }

  /** Writes a PKCS12 keystore with {@code nodeId}'s key and certificate chain to {@code file}. */
  public void writeNodeKeyStore(String nodeId, Path file, char[] password) throws IOException {
    write(nodeKeyStore(nodeId, password), file, password);
  }

  /** Writes a PKCS12 truststore holding this CA's certificate to {@code file}. */
  public void writeTrustStore(Path file, char[] password) throws IOException {
    write(trustStore(), file, password);
  }

  private static void write(KeyStore ks, Path file, char[] password) throws IOException {
    try (OutputStream out = Files.newOutputStream(file)) {
      ks.store(out, password);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot write keystore " + file + ": " + e, e);
    }
  }

  static SSLContext context(KeyStore keys, char[] keyPassword, KeyStore trust) {
    try {
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(keys, keyPassword);
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext ctx = SSLContext.getInstance("TLSv1.3");
      ctx.init(kmf.getKeyManagers(), tmf.getTrustManagers(), RANDOM);
      // resumed sessions skip certificate validation: bound how long one may be resumed
      ctx.getClientSessionContext().setSessionTimeout(SESSION_SECONDS);
      ctx.getServerSessionContext().setSessionTimeout(SESSION_SECONDS);
      return ctx;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("cannot build a TLS context: " + e, e);
    }
  }

  private static KeyPair newKeyPair() throws GeneralSecurityException {
    KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
    g.initialize(new ECGenParameterSpec("secp256r1"), RANDOM);
    return g.generateKeyPair();
  }

  private static X500Name dn(String commonName) {
    return new X500NameBuilder(BCStyle.INSTANCE)
        .addRDN(BCStyle.O, "Mosaic")
        .addRDN(BCStyle.CN, commonName)
        .build();
  }

  private static BigInteger serial() {
    return new BigInteger(127, RANDOM).add(BigInteger.ONE);
  }

  private static X509Certificate sign(X509v3CertificateBuilder b, KeyPair signer)
      throws OperatorCreationException, GeneralSecurityException {
    return new JcaX509CertificateConverter()
        .getCertificate(b.build(new JcaContentSignerBuilder(SIGNATURE).build(signer.getPrivate())));
  }
}
