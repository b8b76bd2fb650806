package dev.mosaic.api;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

/**
 * Routes offers to partitions by dedup key: offers that may be duplicates of each other share a
 * dedup key and so land in the same partition. The hash is xxHash64 (seed 0) of the key's UTF-8
 * bytes, so the routing is the same on every machine, JVM and run.
 *
 * <p>Thread safety: stateless, safe from any thread.
 */
public final class OfferPartitioning {
  private static final XXHash64 HASH = XXHashFactory.safeInstance().hash64();

  private OfferPartitioning() {}

  /**
   * The partition of a dedup key among {@code partitionCount} partitions, in {@code [0,
   * partitionCount)}.
   *
   * @throws IllegalArgumentException if {@code partitionCount < 1}
   */
  public static int partitionOf(String dedupKey, int partitionCount) {
    Objects.requireNonNull(dedupKey, "dedupKey");
    if (partitionCount < 1) {
      throw new IllegalArgumentException("partitionCount must be >= 1, got " + partitionCount);
    }
    byte[] bytes = dedupKey.getBytes(StandardCharsets.UTF_8);
    return (int) Long.remainderUnsigned(HASH.hash(bytes, 0, bytes.length, 0L), partitionCount);
  }
}
