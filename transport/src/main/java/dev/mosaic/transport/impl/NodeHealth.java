package dev.mosaic.transport.impl;

import dev.mosaic.transport.TransportHealth;
import java.time.Duration;

/** {@link TransportHealth} refreshed by the catch-up cycle. */
final class NodeHealth implements TransportHealth {
  private final Duration staleAfter;
  private volatile int behind;
  private volatile long behindSinceNanos;

  NodeHealth(Duration staleAfter) {
    this.staleAfter = staleAfter;
  }

  synchronized void update(int partitionsBehind) {
    if (partitionsBehind > 0 && behind == 0) {
      behindSinceNanos = System.nanoTime();
    }
    behind = partitionsBehind;
  }

  @Override
  public boolean stale() {
    return behindFor().compareTo(staleAfter) > 0;
  }

  @Override
  public int partitionsBehind() {
    return behind;
  }

  @Override
  public Duration behindFor() {
    return behind == 0 ? Duration.ZERO : Duration.ofNanos(System.nanoTime() - behindSinceNanos);
  }

  @Override
  public String describe() {
    if (behind == 0) {
      return "fresh: up to date with the manifest";
    }
    return (stale() ? "stale: " : "catching up: ")
        + behind
        + " partitions behind the manifest for "
        + behindFor()
        + " (stale-after "
        + staleAfter
        + ")";
  }

  @Override
  public String toString() {
    return describe();
  }
}
