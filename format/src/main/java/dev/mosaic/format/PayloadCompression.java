package dev.mosaic.format;

/**
 * How a builder stores a partition's payloads (see {@code format/FORMAT.md}, "Payload segment").
 * Compressed payloads are grouped in blocks of consecutive documents, each block compressed on its
 * own (zstd with a dictionary trained on the partition's payloads, or LZ4), so reading one payload
 * decompresses one block.
 *
 * <p>Thread safety: immutable.
 */
public enum PayloadCompression {
  /**
   * Payloads stored raw; the file stays format version 1 unless another version 2 feature is on.
   */
  NONE,
  /** Payloads always stored as LZ4 blocks (format version 2). */
  LZ4,
  /**
   * Payloads always stored as zstd blocks with a dictionary trained on a sample of the partition's
   * payloads and stored once in the file (format version 3).
   */
  ZSTD,
  /**
   * Zstd blocks as {@link #ZSTD} when they make the payload segment at least 10% smaller than raw,
   * raw otherwise (the default). The choice is made per partition at build time by compressing and
   * comparing sizes.
   */
  AUTO
}
