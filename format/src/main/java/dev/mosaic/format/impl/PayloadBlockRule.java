package dev.mosaic.format.impl;

import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;

/**
 * Where the writer ends an LZ4 payload block: a content-defined rule, so that inserting or removing
 * a document changes only the block(s) around it and every other block of a rebuild is the same
 * bytes (what {@link PartitionUpdate} copies). With target size {@code T}, a block ends after a
 * document when
 *
 * <ul>
 *   <li>the block's payloads reach {@code 2T} bytes, or
 *   <li>they reach {@code T/2} bytes and the document's payload is a "cut point": the high 32 bits
 *       of the XXH64 (seed 0) of its bytes, unsigned, are below {@code 2^32 * min(1, 2 * length /
 *       T)} (a document ends a block with probability proportional to its length, about one cut per
 *       {@code T/2} bytes, so blocks average about {@code T}),
 * </ul>
 *
 * and the last block ends with the last document. The decision depends only on the payloads since
 * the block started: two sequences of documents that start a block at the same document and agree
 * from there on cut it at the same place.
 *
 * <p>Thread safety: immutable.
 */
final class PayloadBlockRule {
  private static final XXHash64 HASH = XXHashFactory.safeInstance().hash64();

  private final int target;
  private final long min;
  private final long max;

  PayloadBlockRule(int target) {
    if (target <= 0) {
      throw new IllegalArgumentException("payload block size must be positive, got " + target);
    }
    this.target = target;
    this.min = Math.max(1, target / 2);
    this.max = 2L * target;
  }

  /** The target size, recorded in the payload segment as the rule that chose its blocks. */
  int target() {
    return target;
  }

  /**
   * Whether the block ends after a document whose payload is {@code payload[offset, offset +
   * length)}, the block's payloads (that one included) totalling {@code blockBytes}.
   */
  boolean endsAfter(long blockBytes, byte[] payload, int offset, int length) {
    if (blockBytes >= max) {
      return true;
    }
    if (blockBytes < min || length == 0) {
      return false;
    }
    if (2L * length >= target) {
      return true;
    }
    long threshold = ((long) length << 33) / target;
    return (HASH.hash(payload, offset, length, 0) >>> 32) < threshold;
  }
}
