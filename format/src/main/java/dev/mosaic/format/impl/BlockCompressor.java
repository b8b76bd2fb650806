package dev.mosaic.format.impl;

import net.jpountz.lz4.LZ4Compressor;

/**
 * Compresses one payload block: LZ4 (format version 2) or zstd with a {@link PayloadDictionary}
 * (format version 3). Both give the same bytes for the same input on every platform (lz4-java's
 * pure-Java safe compressor; zstd at a fixed version and level, single-threaded).
 *
 * <p>Thread safety: instances are not shared between writing threads.
 */
sealed interface BlockCompressor {
  /** Upper bound of the compressed size of {@code size} bytes. */
  int maxCompressedLength(int size);

  /** Compresses {@code src[0, length)} into {@code dst}; returns the compressed length. */
  int compress(byte[] src, int length, byte[] dst);

  /** LZ4 blocks (payload flags 1). */
  static BlockCompressor lz4() {
    return new Lz4(PayloadBlocks.LZ4.fastCompressor());
  }

  /** Zstd blocks with {@code dictionary} (payload flags 2). */
  static BlockCompressor zstd(PayloadDictionary dictionary) {
    return new Zstd(dictionary);
  }

  /** LZ4 with lz4-java's safe fast compressor. */
  record Lz4(LZ4Compressor compressor) implements BlockCompressor {
    @Override
    public int maxCompressedLength(int size) {
      return compressor.maxCompressedLength(size);
    }

    @Override
    public int compress(byte[] src, int length, byte[] dst) {
      return compressor.compress(src, 0, length, dst, 0, dst.length);
    }
  }

  /** Zstd at {@link PayloadDictionary#LEVEL} with a dictionary. */
  record Zstd(PayloadDictionary dictionary) implements BlockCompressor {
    @Override
    public int maxCompressedLength(int size) {
      return PayloadDictionary.maxCompressedLength(size);
    }

    @Override
    public int compress(byte[] src, int length, byte[] dst) {
      return dictionary.compress(src, length, dst);
    }
  }
}
