package dev.mosaic.transport;

import java.util.Objects;

/**
 * One searcher as registered in discovery: its node id, datacenter, the address its transport
 * listens on and its HTTP API base address (empty when it has none). Immutable.
 */
public record SearcherEndpoint(
    String nodeId, String dc, String transportHost, int transportPort, String httpAddress) {
  /** Checks the fields. */
  public SearcherEndpoint {
    Objects.requireNonNull(nodeId, "nodeId");
    Objects.requireNonNull(dc, "dc");
    Objects.requireNonNull(transportHost, "transportHost");
    Objects.requireNonNull(httpAddress, "httpAddress");
    if (nodeId.isEmpty() || nodeId.contains("/") || dc.isEmpty() || dc.contains("/")) {
      throw new IllegalArgumentException(
          "node id and dc must be non-empty and free of '/': node=" + nodeId + " dc=" + dc);
    }
    if (transportPort < 0 || transportPort > 65535) {
      throw new IllegalArgumentException("transport port out of range: " + transportPort);
    }
  }

  @Override
  public String toString() {
    return nodeId + "@" + dc + "(" + transportHost + ":" + transportPort + ")";
  }
}
