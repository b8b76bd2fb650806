package dev.mosaic.transport.impl;

import dev.mosaic.transport.NodeIdentity;
import dev.mosaic.transport.SearcherDiscovery;
import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.wire.FetchRequest;
import dev.mosaic.transport.wire.FileHeader;
import java.util.Optional;

/**
 * Who may do what on a receiving node, judged on the peer's certificate ({@link NodeIdentity}),
 * never on what the peer declares: an entry push (hop 0) only from an indexer, a relay (hop 1) only
 * from a searcher of this node's DC that discovery lists there, a catch-up fetch only from a
 * searcher; the declared sender or requester node and DC must be the certificate's. With plaintext
 * (no certificate) nothing can be checked and the declared values are taken as they are (the
 * plaintext opt-out is logged at start). Also bounds the DC names used as metric tags to the DCs
 * discovery knows.
 *
 * <p>Thread safety: safe for concurrent use (reads the live discovery view).
 */
final class PeerPolicy {
  /** The metric tag of a DC that discovery does not know. */
  static final String OTHER_DC = "other";

  private final String nodeId;
  private final String dc;
  private final SearcherDiscovery discovery;

  PeerPolicy(String nodeId, String dc, SearcherDiscovery discovery) {
    this.nodeId = nodeId;
    this.dc = dc;
    this.discovery = discovery;
  }

  /** Why {@code peer} (null under plaintext) may not push {@code h}, or empty when it may. */
  Optional<String> refusePush(FileHeader h, NodeIdentity peer) {
    if (h.getHopCount() < 0 || h.getHopCount() > 1) {
      return Optional.of("bad hop count " + h.getHopCount() + " (0 = entry, 1 = relay)");
    }
    if (peer == null) {
      return Optional.empty();
    }
    Optional<String> declared = declared("sender", h.getSenderNode(), h.getSenderDc(), peer);
    if (declared.isPresent()) {
      return declared;
    }
    if (h.getHopCount() == 0) {
      return peer.role() == NodeIdentity.Role.INDEXER
          ? Optional.empty()
          : Optional.of(
              "not allowed: " + peer + " may not push an entry copy (only an indexer may)");
    }
    if (peer.role() != NodeIdentity.Role.SEARCHER || !peer.dc().equals(dc)) {
      return Optional.of(
          "not allowed: " + peer + " may not relay into " + dc + " (only its searchers may)");
    }
    for (SearcherEndpoint e : discovery.inDc(dc)) {
      if (e.nodeId().equals(peer.nodeId())) {
        return Optional.empty();
      }
    }
    return Optional.of(
        "not allowed: " + peer + " relays into " + dc + " but is not registered there");
  }

  /** Why {@code peer} (null under plaintext) may not fetch for {@code f}, or empty. */
  Optional<String> refuseFetch(FetchRequest f, NodeIdentity peer) {
    if (peer == null) {
      return Optional.empty();
    }
    Optional<String> declared =
        declared("requester", f.getRequesterNode(), f.getRequesterDc(), peer);
    if (declared.isPresent()) {
      return declared;
    }
    return peer.role() == NodeIdentity.Role.SEARCHER
        ? Optional.empty()
        : Optional.of("not allowed: " + peer + " may not fetch (only searchers catch up)");
  }

  private Optional<String> declared(String what, String node, String inDc, NodeIdentity peer) {
    if (node.equals(peer.nodeId()) && inDc.equals(peer.dc())) {
      return Optional.empty();
    }
    return Optional.of(
        "identity mismatch: the "
            + what
            + " declares "
            + node
            + "@"
            + inDc
            + " but its certificate is "
            + peer
            + " (refused by "
            + nodeId
            + ")");
  }

  /** {@code peerDc} when discovery knows it (or it is this node's), else {@link #OTHER_DC}. */
  String metricDc(String peerDc) {
    return peerDc.equals(dc) || discovery.byDc().containsKey(peerDc) ? peerDc : OTHER_DC;
  }
}
