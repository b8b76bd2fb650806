package dev.mosaic.transport;

import java.security.cert.Certificate;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.regex.Pattern;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;

/**
 * Who a node is, as its certificate says: node id, datacenter and role. A node certificate issued
 * by {@link ClusterCertificates} carries it as one subject alternative name of type URI, {@code
 * urn:mosaic:node:<role>:<dc>:<node-id>} (the subject is {@code CN=<node-id>, OU=<role>, O=Mosaic}
 * for people reading it). Receivers bind every declared sender to it: a push's sender node and DC
 * must be the certificate's, an entry push must come from an {@link Role#INDEXER indexer}, a relay
 * from a {@link Role#SEARCHER searcher} of the receiver's own DC. Immutable.
 */
public record NodeIdentity(String nodeId, String dc, Role role) {
  private static final String URN = "urn:mosaic:node:";
  private static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,128}");
  private static final int SAN_URI = 6;

  /** What a node may do on the transport. */
  public enum Role {
    /** Builds partition files and pushes them to an entry searcher of each DC. */
    INDEXER,
    /** Receives, serves and relays partition files; fetches for catch-up. */
    SEARCHER;

    /** The lower-case name used in certificates and on the command line. */
    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }

    /**
     * Parses {@code indexer} or {@code searcher} (any case).
     *
     * @throws IllegalArgumentException naming the accepted values
     */
    public static Role parse(String s) {
      for (Role r : values()) {
        if (r.label().equalsIgnoreCase(s)) {
          return r;
        }
      }
      throw new IllegalArgumentException(
          "unknown role '" + s + "': expected one of indexer, searcher");
    }
  }

  /** Checks the fields: node id and DC are 1–128 characters of {@code [A-Za-z0-9._-]}. */
  public NodeIdentity {
    Objects.requireNonNull(role, "role");
    check("node id", nodeId);
    check("dc", dc);
  }

  private static void check(String what, String value) {
    if (value == null || !NAME.matcher(value).matches()) {
      throw new IllegalArgumentException(
          what + " '" + value + "' must be 1-128 characters of A-Z, a-z, 0-9, '.', '_', '-'");
    }
  }

  /** An indexer identity. */
  public static NodeIdentity indexer(String nodeId, String dc) {
    return new NodeIdentity(nodeId, dc, Role.INDEXER);
  }

  /** A searcher identity. */
  public static NodeIdentity searcher(String nodeId, String dc) {
    return new NodeIdentity(nodeId, dc, Role.SEARCHER);
  }

  /** The subject alternative name (URI) that carries this identity in a certificate. */
  public String uri() {
    return URN + role.label() + ":" + dc + ":" + nodeId;
  }

  /**
   * The identity a certificate carries.
   *
   * @throws IllegalArgumentException when it carries none, or more than one, naming the subject
   */
  public static NodeIdentity of(X509Certificate certificate) {
    List<NodeIdentity> found = new ArrayList<>();
    Collection<List<?>> names;
    try {
      names = certificate.getSubjectAlternativeNames();
    } catch (CertificateParsingException e) {
      throw new IllegalArgumentException(
          "unreadable subject alternative names in " + certificate.getSubjectX500Principal(), e);
    }
    if (names != null) {
      for (List<?> n : names) {
        if (n.size() == 2
            && Integer.valueOf(SAN_URI).equals(n.get(0))
            && n.get(1) instanceof String s
            && s.startsWith(URN)) {
          found.add(parse(s, certificate));
        }
      }
    }
    if (found.size() != 1) {
      throw new IllegalArgumentException(
          "certificate "
              + certificate.getSubjectX500Principal()
              + (found.isEmpty()
                  ? " carries no Mosaic node identity (a subject alternative name "
                  : " carries several Mosaic node identities (subject alternative names ")
              + URN
              + "<role>:<dc>:<node-id>); issue node certificates with `mosaic cert issue`");
    }
    return found.get(0);
  }

  /**
   * The identity of the peer of a completed TLS handshake.
   *
   * @throws IllegalArgumentException when the peer presented no certificate or one without an
   *     identity
   */
  public static NodeIdentity ofPeer(SSLSession session) {
    try {
      Certificate[] chain = session.getPeerCertificates();
      if (chain.length == 0 || !(chain[0] instanceof X509Certificate leaf)) {
        throw new IllegalArgumentException("the peer presented no X.509 certificate");
      }
      return of(leaf);
    } catch (SSLPeerUnverifiedException e) {
      throw new IllegalArgumentException("the peer is not authenticated: " + e.getMessage(), e);
    }
  }

  private static NodeIdentity parse(String uri, X509Certificate certificate) {
    String[] parts = uri.substring(URN.length()).split(":", -1);
    if (parts.length != 3) {
      throw new IllegalArgumentException(
          "malformed node identity '" + uri + "' in " + certificate.getSubjectX500Principal());
    }
    return new NodeIdentity(parts[2], parts[1], Role.parse(parts[0]));
  }

  @Override
  public String toString() {
    return role.label() + " " + nodeId + "@" + dc;
  }
}
