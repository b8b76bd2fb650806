package dev.mosaic.searcher.http;

import dev.mosaic.transport.SearcherEndpoint;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.Optional;

/**
 * Which registry entries {@code /cluster} may fetch from: only {@code http://host:port} whose host
 * is the entry's own registered transport host, with nothing else in the URL (no user info, path,
 * query or fragment). A poisoned entry cannot send the searcher to an arbitrary URL (a cloud
 * metadata address, an internal admin page): at worst to another port of a host that registered
 * itself as a searcher. Who may write registry entries at all is decided by the ZooKeeper ACLs.
 *
 * <p>Thread safety: stateless.
 */
public final class PeerAddress {
  private PeerAddress() {}

  /**
   * The base address to fetch this searcher's pages from, or empty when its registered HTTP address
   * is absent or not acceptable.
   */
  public static Optional<String> of(SearcherEndpoint endpoint) {
    String address = endpoint.httpAddress();
    if (address.isEmpty()) {
      return Optional.empty();
    }
    URI uri;
    try {
      uri = new URI(address);
    } catch (URISyntaxException e) {
      return Optional.empty();
    }
    boolean bare =
        "http".equals(uri.getScheme())
            && uri.getRawUserInfo() == null
            && (uri.getRawPath() == null
                || uri.getRawPath().isEmpty()
                || uri.getRawPath().equals("/"))
            && uri.getRawQuery() == null
            && uri.getRawFragment() == null
            && uri.getPort() > 0
            && uri.getHost() != null;
    if (!bare || !sameHost(uri.getHost(), endpoint.transportHost())) {
      return Optional.empty();
    }
    return Optional.of("http://" + uri.getHost() + ":" + uri.getPort());
  }

  private static boolean sameHost(String a, String b) {
    String x = a.startsWith("[") && a.endsWith("]") ? a.substring(1, a.length() - 1) : a;
    String y = b.startsWith("[") && b.endsWith("]") ? b.substring(1, b.length() - 1) : b;
    return x.equalsIgnoreCase(y);
  }
}
