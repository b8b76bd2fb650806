package dev.mosaic.transport;

import dev.mosaic.format.io.DurableFiles;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.PrivateKey;
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
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
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
 * A cluster certificate authority: an EC P-256 key and a self-signed CA certificate, which issues
 * per-node certificates carrying the node's {@link NodeIdentity} (node id, DC, role; usable for TLS
 * client and server authentication). Made in memory for tests and the local cluster ({@link
 * #generate()}); for production, {@code mosaic cert create-ca} stores one with {@link #writeCa} and
 * {@code mosaic cert issue} {@link #load loads} it to write node keystores ({@link
 * #writeNodeKeyStore}) and the truststore ({@link #writeTrustStore}) that {@link
 * TransportSecurity#fromKeyStores} reads.
 *
 * <pre>{@code
 * ClusterCertificates ca = ClusterCertificates.generate();
 * TransportNode.builder()....security(ca.forNode(NodeIdentity.searcher("searcher-a1", "dc-a")))...
 * TransportSender.builder()....security(ca.forNode(NodeIdentity.indexer("indexer-1", "dc-a")))...
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
  private static final String CA_ALIAS = "cluster-ca";
  private static final String NODE_ALIAS = "node";
  private static volatile ClusterCertificates development;

  private final String name;
  private final KeyPair caKey;
  private final X509Certificate caCertificate;
  private final Duration validity;

  private ClusterCertificates(
      String name, Duration validity, KeyPair caKey, X509Certificate caCertificate) {
    this.name = name;
    this.validity = validity;
    this.caKey = caKey;
    this.caCertificate = caCertificate;
  }

  private static ClusterCertificates create(String name, Duration validity) {
    try {
      KeyPair caKey = newKeyPair();
      X500Name subject = dn(name, null);
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
      return new ClusterCertificates(name, validity, caKey, sign(b, caKey));
    } catch (GeneralSecurityException | CertIOException | OperatorCreationException e) {
      throw new IllegalStateException("cannot create the cluster CA " + name + ": " + e, e);
    }
  }

  /**
   * The CA stored by {@link #writeCa} in a PKCS12 file (entry {@code cluster-ca}); node
   * certificates it issues are valid for {@code validity} from the moment they are issued.
   *
   * @throws IllegalArgumentException naming the file when it cannot be read or holds no CA key
   */
  public static ClusterCertificates load(Path file, char[] password, Duration validity) {
    try (InputStream in = Files.newInputStream(file)) {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(in, password);
      if (!(ks.getKey(CA_ALIAS, password) instanceof PrivateKey key)
          || !(ks.getCertificate(CA_ALIAS) instanceof X509Certificate cert)) {
        throw new IllegalArgumentException(
            file + " holds no CA key entry '" + CA_ALIAS + "' (made by `mosaic cert create-ca`?)");
      }
      String cn =
          X500Name.getInstance(cert.getSubjectX500Principal().getEncoded())
              .getRDNs(BCStyle.CN)[0]
              .getFirst()
              .getValue()
              .toString();
      return new ClusterCertificates(cn, validity, new KeyPair(cert.getPublicKey(), key), cert);
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot read the cluster CA " + file + ": " + e, e);
    }
  }

  /**
   * Writes this CA's key and certificate to a PKCS12 file readable only by its owner (where the
   * file system has POSIX permissions). NOTE: whoever reads it can mint certificates the whole
   * cluster trusts; keep it off the nodes.
   */
  public void writeCa(Path file, char[] password) throws IOException {
    try {
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry(CA_ALIAS, caKey.getPrivate(), password, new X509Certificate[] {caCertificate});
      write(ks, file, password);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot write the CA to " + file + ": " + e, e);
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
    return create(name, validity);
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

  /**
   * A key and certificate chain for {@code node}, signed by this CA: subject {@code CN=<node id>,
   * OU=<role>, O=Mosaic} and the identity as a subject alternative name ({@link NodeIdentity#uri}).
   */
  public KeyStore nodeKeyStore(NodeIdentity node, char[] password) {
    String nodeId = node.nodeId();
    try {
      KeyPair key = newKeyPair();
      X500Name subject = dn(nodeId, node.role().label());
      Instant now = Instant.now();
      X509v3CertificateBuilder b =
          new JcaX509v3CertificateBuilder(
              caCertificate,
              serial(),
              Date.from(now.minus(CLOCK_SKEW)),
              // never beyond the CA's own validity
              Date.from(min(now.plus(validity), caCertificate.getNotAfter().toInstant())),
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
      b.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(new GeneralName(GeneralName.uniformResourceIdentifier, node.uri())));
      X509Certificate cert = sign(b, caKey);
      KeyStore ks = KeyStore.getInstance("PKCS12");
      ks.load(null, null);
      ks.setKeyEntry(
          NODE_ALIAS, key.getPrivate(), password, new X509Certificate[] {cert, caCertificate});
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
      ts.setCertificateEntry(CA_ALIAS, caCertificate);
      return ts;
    } catch (GeneralSecurityException | IOException e) {
      throw new IllegalStateException("cannot build a truststore: " + e, e);
    }
  }

  /**
   * Mutual-TLS credentials for {@code node}: a fresh node key and certificate signed by this CA,
   * trusting exactly this CA.
   */
  public TransportSecurity forNode(NodeIdentity node) {
    char[] password = new char[0];
    KeyStore ks = nodeKeyStore(node, password);
    return TransportSecurity.mutualTls(
        context(ks, password, trustStore()),
        node,
        "mutual TLS as " + node + " (certificate from " + name + ")");
  }

  /** Writes a PKCS12 keystore with {@code node}'s key and certificate chain to {@code file}. */
  public void writeNodeKeyStore(NodeIdentity node, Path file, char[] password) throws IOException {
    write(nodeKeyStore(node, password), file, password);
  }

  /** Writes a PKCS12 truststore holding this CA's certificate to {@code file}. */
  public void writeTrustStore(Path file, char[] password) throws IOException {
    write(trustStore(), file, password);
  }

  /**
   * Writes a keystore durably, readable by its owner only where the file system has POSIX modes.
   */
  private static void write(KeyStore ks, Path file, char[] password) throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try {
      ks.store(bytes, password);
    } catch (GeneralSecurityException e) {
      throw new IOException("cannot write keystore " + file + ": " + e, e);
    }
    if (file.getFileSystem().supportedFileAttributeViews().contains("posix")) {
      DurableFiles.write(
          file,
          bytes.toByteArray(),
          PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } else {
      DurableFiles.write(file, bytes.toByteArray());
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

  private static X500Name dn(String commonName, String unit) {
    X500NameBuilder b = new X500NameBuilder(BCStyle.INSTANCE).addRDN(BCStyle.O, "Mosaic");
    if (unit != null) {
      b.addRDN(BCStyle.OU, unit);
    }
    return b.addRDN(BCStyle.CN, commonName).build();
  }

  private static Instant min(Instant a, Instant b) {
    return a.isBefore(b) ? a : b;
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
