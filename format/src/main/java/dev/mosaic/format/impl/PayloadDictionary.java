package dev.mosaic.format.impl;

import com.github.luben.zstd.Zstd;
import com.github.luben.zstd.ZstdCompressCtx;
import com.github.luben.zstd.ZstdDecompressCtx;
import com.github.luben.zstd.ZstdDictCompress;
import com.github.luben.zstd.ZstdDictDecompress;
import com.github.luben.zstd.ZstdException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.IntFunction;

/**
 * A zstd dictionary that payload blocks are compressed with (format version 3): trained once from a
 * sample of a partition's own payloads by the writer, kept by a rebuild by merge so that the base's
 * blocks can be copied as stored. An empty dictionary means plain zstd.
 *
 * <p>Thread safety: immutable; the digested forms are created lazily and may be created twice by
 * racing threads (both equal), so it is safe for concurrent use. NOTE: every thread that compresses
 * or decompresses keeps its own zstd contexts (native memory) for its life.
 */
final class PayloadDictionary {
  /**
   * Size a trained dictionary aims at: 8 KiB. With blocks of 2 KiB the dictionary carries most of
   * the ratio (on car offers, 4 KiB made the blocks 13% larger than 8 KiB; see format/FORMAT.md).
   */
  static final int TARGET_BYTES = 8 << 10;

  /** Payload bytes the trainer sees at most (evenly spaced documents): bounds training time. */
  static final long SAMPLE_BYTES = 64 << 10;

  /** Fewer samples than this train no dictionary (the trainer needs several). */
  static final int MIN_SAMPLES = 16;

  /** The zstd level of payload blocks: higher levels gained under 1% on car offers. */
  static final int LEVEL = 3;

  /** No dictionary: plain zstd frames. */
  static final PayloadDictionary NONE = new PayloadDictionary(new byte[0]);

  /**
   * Per thread, zstd contexts reused across blocks (creating one per call costs more than
   * decompressing a block): with a dictionary referenced per call, and plain.
   */
  private static final ThreadLocal<Contexts> CONTEXTS = ThreadLocal.withInitial(Contexts::new);

  private final byte[] bytes;
  private volatile ZstdDictCompress compress;
  private volatile ZstdDictDecompress decompress;

  PayloadDictionary(byte[] bytes) {
    this.bytes = bytes;
  }

  /**
   * Trains a dictionary on documents {@code [0, count)} whose payloads total {@code totalBytes}:
   * every {@code ceil(totalBytes / SAMPLE_BYTES)}-th document (from the first) is a sample. Always
   * the same dictionary for the same payloads; {@link #NONE} when there is too little to train on.
   */
  static PayloadDictionary train(int count, long totalBytes, IntFunction<byte[]> payload) {
    long step = Math.max(1, (totalBytes + SAMPLE_BYTES - 1) / SAMPLE_BYTES);
    List<byte[]> samples = new ArrayList<>();
    long sampled = 0;
    for (long d = 0; d < count; d += step) {
      byte[] p = payload.apply((int) d);
      if (p.length > 0) {
        samples.add(p);
        sampled += p.length;
      }
    }
    if (samples.size() < MIN_SAMPLES || sampled < 2L * TARGET_BYTES) {
      return NONE;
    }
    byte[] dictionary = new byte[TARGET_BYTES];
    long size = Zstd.trainFromBuffer(samples.toArray(new byte[0][]), dictionary);
    if (Zstd.isError(size) || size <= 0) {
      return NONE;
    }
    return new PayloadDictionary(Arrays.copyOf(dictionary, (int) size));
  }

  /**
   * The dictionary a rebuild of {@code base} keeps: its only dictionary when its payloads are zstd
   * blocks with one dictionary, else null (a new one is trained).
   */
  static PayloadDictionary inheritedFrom(DatabaseReader base) {
    PayloadBlocks blocks = base.payloadBlocks();
    return blocks != null && blocks.zstd() && blocks.dictionaryCount() == 1
        ? blocks.dictionary(0)
        : null;
  }

  /** The dictionary's bytes (not copied: do not modify). */
  byte[] bytes() {
    return bytes;
  }

  int length() {
    return bytes.length;
  }

  boolean sameBytes(PayloadDictionary other) {
    return Arrays.equals(bytes, other.bytes);
  }

  /** Compresses {@code src[0, length)} into {@code dst}; returns the compressed length. */
  int compress(byte[] src, int length, byte[] dst) {
    Contexts contexts = CONTEXTS.get();
    if (bytes.length == 0) {
      return contexts.plainCompress.compressByteArray(dst, 0, dst.length, src, 0, length);
    }
    ZstdDictCompress c = compress;
    if (c == null) {
      c = new ZstdDictCompress(bytes, LEVEL);
      compress = c;
    }
    return contexts.compress.loadDict(c).compressByteArray(dst, 0, dst.length, src, 0, length);
  }

  /**
   * Decompresses {@code src[0, length)} into {@code dst[0, size)}; returns null, or what is wrong
   * when the input is not a zstd frame of this dictionary of exactly {@code size} bytes.
   */
  String decompress(byte[] src, int length, byte[] dst, int size) {
    long produced;
    try {
      Contexts contexts = CONTEXTS.get();
      if (bytes.length == 0) {
        produced = contexts.plainDecompress.decompressByteArray(dst, 0, size, src, 0, length);
      } else {
        ZstdDictDecompress d = decompress;
        if (d == null) {
          d = new ZstdDictDecompress(bytes);
          decompress = d;
        }
        produced =
            contexts.decompress.loadDict(d).decompressByteArray(dst, 0, size, src, 0, length);
      }
    } catch (ZstdException e) {
      return "cannot decompress: " + e.getMessage();
    }
    if (Zstd.isError(produced)) {
      return "cannot decompress: " + Zstd.getErrorName(produced);
    }
    return produced == size ? null : "decompressed to " + produced + " bytes, expected " + size;
  }

  /** Upper bound of a compressed block of {@code size} bytes. */
  static int maxCompressedLength(int size) {
    return (int) Zstd.compressBound(size);
  }

  /** One thread's zstd contexts (native memory, freed with the thread's contexts by the GC). */
  private static final class Contexts {
    /**
     * Frames with a dictionary leave out its id (4 bytes of every block): a block's dictionary is
     * named by the block table, and zstd decompresses a frame without an id with the dictionary
     * referenced.
     */
    final ZstdCompressCtx compress = new ZstdCompressCtx().setLevel(LEVEL).setDictID(false);

    final ZstdCompressCtx plainCompress = new ZstdCompressCtx().setLevel(LEVEL);
    final ZstdDecompressCtx decompress = new ZstdDecompressCtx();
    final ZstdDecompressCtx plainDecompress = new ZstdDecompressCtx();
  }
}
