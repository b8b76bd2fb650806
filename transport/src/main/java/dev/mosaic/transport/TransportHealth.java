package dev.mosaic.transport;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/**
 * Freshness of one searcher against the partition manifest, for its {@code /health} endpoint: a
 * searcher behind the manifest for longer than {@code stale-after} is stale, so a load balancer can
 * drain it. {@link #getAsBoolean()} is true while the node is fresh (healthy).
 *
 * <p>Thread safety: safe for concurrent use; values are refreshed by the node's catch-up cycle.
 */
public interface TransportHealth extends BooleanSupplier {

  /** True unless stale. */
  @Override
  default boolean getAsBoolean() {
    return !stale();
  }

  /** Behind the manifest for longer than the configured bound. */
  boolean stale();

  /** Partitions whose held version is older than the manifest's, at the last check. */
  int partitionsBehind();

  /** How long the node has been behind continuously ({@link Duration#ZERO} when up to date). */
  Duration behindFor();

  /** One line for humans, e.g. {@code "stale: 3 partitions behind for PT6M"}. */
  String describe();
}
