package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import com.github.luben.zstd.Zstd;
import dev.mosaic.format.CorruptDatabaseException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicLong;
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4Factory;

/**
 * Reads payloads stored as LZ4 blocks (format version 2) or as zstd blocks with dictionaries
 * (version 3): finds a document's block by binary search over the blocks' first documents,
 * decompresses the block into a per-thread buffer (one block per thread is kept, so consecutive
 * reads from the same block decompress once) and copies the payload out.
 *
 * <p>Thread safety: immutable; safe for concurrent use. NOTE: each thread that reads compressed
 * payloads keeps one decompressed block of at most {@link #RETAINED_BUFFER_BYTES} until it reads
 * another; larger blocks (up to {@link FileFormat#MAX_PAYLOAD_BLOCK_BYTES}) are not kept.
 */
final class PayloadBlocks {
  /** The pure-Java safe implementation: identical output on every platform, no native code. */
  static final LZ4Factory LZ4 = LZ4Factory.safeInstance();

  private static final AtomicLong IDS = new AtomicLong();

  /**
   * Largest buffers a thread keeps between reads (256 KiB each, decompressed and compressed): a
   * larger block is decompressed into buffers dropped after the read, so no thread holds megabytes
   * for the rest of its life.
   */
  static final int RETAINED_BUFFER_BYTES = 256 << 10;

  private static final ThreadLocal<Cache> CACHE = ThreadLocal.withInitial(Cache::new);

  private final long id = IDS.incrementAndGet();
  private final String source;
  private final MemorySegment data;
  private final int documents;
  private final int blockCount;
  private final long logicalOffsets;
  private final int width;
  private final long firstDocs;
  private final long blockOffsets;
  private final long blockData;
  private final int blockRule;

  /** Zstd only: the dictionaries, created from the mapping when first used; null for LZ4. */
  private final PayloadDictionary[] dictionaries;

  private final long blockDictionaries;
  private final long dictionaryOffsets;
  private final long dictionaryData;

  private PayloadBlocks(
      String source,
      MemorySegment data,
      int documents,
      int blockCount,
      long logicalOffsets,
      int width,
      long firstDocs,
      long blockOffsets,
      long blockData,
      int blockRule,
      int dictionaryCount,
      long blockDictionaries,
      long dictionaryOffsets,
      long dictionaryData) {
    this.source = source;
    this.dictionaries = dictionaryCount < 0 ? null : new PayloadDictionary[dictionaryCount];
    this.blockDictionaries = blockDictionaries;
    this.dictionaryOffsets = dictionaryOffsets;
    this.dictionaryData = dictionaryData;
    this.blockRule = blockRule;
    this.data = data;
    this.documents = documents;
    this.blockCount = blockCount;
    this.logicalOffsets = logicalOffsets;
    this.width = width;
    this.firstDocs = firstDocs;
    this.blockOffsets = blockOffsets;
    this.blockData = blockData;
  }

  /** Validates the compressed payload segment at {@code base} (O(blocks)) and reads its tables. */
  static PayloadBlocks read(
      String source, MemorySegment data, int documents, long base, long length)
      throws CorruptDatabaseException {
    long end = base + length;
    if (length < 16) {
      throw new CorruptDatabaseException(source, "payload", base, "payload segment too short");
    }
    int width = data.get(INT, base);
    boolean zstd = data.get(INT, base + 4) == PAYLOAD_FLAG_ZSTD_BLOCKS;
    long blocks = data.get(INT, base + 8) & 0xFFFF_FFFFL;
    long logical = base + 16;
    long firstDocs = logical + (long) width * (documents + 1L);
    long blockOffsets = firstDocs + 4L * (blocks + 1);
    long blockData = blockOffsets + 8L * (blocks + 1);
    if ((width != 4 && width != 8) || blockData > end || (blocks == 0) != (documents == 0)) {
      throw new CorruptDatabaseException(
          source, "payload", base, "bad compressed payload tables (" + blocks + " blocks)");
    }
    int k = (int) blocks;
    int dictionaryCount = -1;
    long blockDictionaries = 0;
    long dictionaryOffsets = 0;
    long dictionaryData = 0;
    if (zstd) {
      long counts = blockData;
      if (counts + 8 > end) {
        throw new CorruptDatabaseException(
            source, "payload", counts, "payload dictionary table missing");
      }
      long d = data.get(INT, counts) & 0xFFFF_FFFFL;
      blockDictionaries = counts + 8;
      dictionaryOffsets = blockDictionaries + 4L * k;
      dictionaryData = dictionaryOffsets + 8L * (d + 1);
      if (d > k || dictionaryData > end) {
        throw new CorruptDatabaseException(
            source, "payload", counts, "bad payload dictionary table (" + d + " dictionaries)");
      }
      dictionaryCount = (int) d;
      long previous = 0;
      for (int i = 0; i <= dictionaryCount; i++) {
        long at = data.get(LONG, dictionaryOffsets + 8L * i);
        if (at < previous || (i == 0 && at != 0) || dictionaryData + at > end) {
          throw new CorruptDatabaseException(
              source, "payload", dictionaryOffsets + 8L * i, "bad payload dictionary offset " + i);
        }
        previous = at;
      }
      for (int b = 0; b < k; b++) {
        int dictionary = data.get(INT, blockDictionaries + 4L * b);
        if (dictionary < 0 || dictionary >= dictionaryCount) {
          throw new CorruptDatabaseException(
              source,
              "payload",
              blockDictionaries + 4L * b,
              "payload block " + b + " names dictionary " + dictionary + " of " + dictionaryCount);
        }
      }
      blockData = dictionaryData + previous;
    }
    PayloadBlocks result =
        new PayloadBlocks(
            source,
            data,
            documents,
            k,
            logical,
            width,
            firstDocs,
            blockOffsets,
            blockData,
            data.get(INT, base + 12),
            dictionaryCount,
            blockDictionaries,
            dictionaryOffsets,
            dictionaryData);
    int previousDoc = -1;
    long previousAt = 0;
    for (int b = 0; b <= k; b++) {
      int doc = data.get(INT, firstDocs + 4L * b);
      long at = data.get(LONG, blockOffsets + 8L * b);
      boolean last = b == k;
      if (doc <= previousDoc
          || (b == 0 && doc != 0)
          || (last && doc != documents)
          || doc > documents
          || at < previousAt
          || (b == 0 && at != 0)) {
        throw new CorruptDatabaseException(
            source, "payload", firstDocs + 4L * b, "bad payload block table at block " + b);
      }
      if (!last) {
        long claimed = result.logical(data.get(INT, firstDocs + 4L * b + 4)) - result.logical(doc);
        if (claimed > MAX_PAYLOAD_BLOCK_BYTES) {
          throw new CorruptDatabaseException(
              source,
              "payload",
              firstDocs + 4L * b,
              "payload block "
                  + b
                  + " claims "
                  + claimed
                  + " uncompressed bytes, more than the largest block a writer makes ("
                  + MAX_PAYLOAD_BLOCK_BYTES
                  + ")");
        }
      }
      previousDoc = doc;
      previousAt = at;
    }
    if (blockData + previousAt != end) {
      throw new CorruptDatabaseException(
          source, "payload", blockOffsets, "compressed bytes do not match the segment length");
    }
    return result;
  }

  int blockCount() {
    return blockCount;
  }

  /**
   * The target size of the {@link PayloadBlockRule} that cut every block, or 0 when unknown (files
   * written before that rule, merges that copied blocks).
   */
  int blockRule() {
    return blockRule;
  }

  /** Whether the blocks are zstd frames with dictionaries (format version 3). */
  boolean zstd() {
    return dictionaries != null;
  }

  /** Number of zstd dictionaries (0 for LZ4 blocks). */
  int dictionaryCount() {
    return dictionaries == null ? 0 : dictionaries.length;
  }

  /** The dictionary of block {@code block} (zstd blocks only). */
  int blockDictionary(int block) {
    return data.get(INT, blockDictionaries + 4L * block);
  }

  /** Zstd dictionary {@code i}, created from the mapping on first use (benign race: equal). */
  PayloadDictionary dictionary(int i) {
    PayloadDictionary d = dictionaries[i];
    if (d == null) {
      long from = data.get(LONG, dictionaryOffsets + 8L * i);
      long to = data.get(LONG, dictionaryOffsets + 8L * i + 8);
      d =
          new PayloadDictionary(
              data.asSlice(dictionaryData + from, to - from)
                  .toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
      dictionaries[i] = d;
    }
    return d;
  }

  /** Total bytes of the zstd dictionaries stored (0 for LZ4 blocks). */
  long dictionaryBytes() {
    return dictionaries == null ? 0 : data.get(LONG, dictionaryOffsets + 8L * dictionaries.length);
  }

  /** Total compressed bytes of the blocks. */
  long compressedBytes() {
    return data.get(LONG, blockOffsets + 8L * blockCount);
  }

  /** Total uncompressed payload bytes. */
  long uncompressedBytes() {
    return logical(documents);
  }

  /** First document of block {@code block}, for {@code block} in {@code [0, blockCount]}. */
  int blockFirstDocument(int block) {
    return data.get(INT, firstDocs + 4L * block);
  }

  /** The bytes of one block, as stored (used by {@link PartitionMerge} to copy blocks). */
  MemorySegment compressedBlock(int block) {
    long at = data.get(LONG, blockOffsets + 8L * block);
    return data.asSlice(blockData + at, data.get(LONG, blockOffsets + 8L * block + 8) - at);
  }

  /**
   * The bytes of blocks {@code [from, to)} as stored, one after the other (what {@link
   * PartitionUpdate} copies when it keeps a run of blocks).
   */
  MemorySegment compressedBlocks(int from, int to) {
    long at = data.get(LONG, blockOffsets + 8L * from);
    return data.asSlice(blockData + at, data.get(LONG, blockOffsets + 8L * to) - at);
  }

  /** Where a document's payload starts in the uncompressed concatenation ({@code [0, n]}). */
  long logical(int document) {
    return width == 4
        ? data.get(INT, logicalOffsets + 4L * document) & 0xFFFF_FFFFL
        : data.get(LONG, logicalOffsets + 8L * document);
  }

  /**
   * Where every document's payload starts in the uncompressed concatenation, and where the last one
   * ends ({@code documents + 1} entries), copied out at once.
   */
  long[] logicalTable() {
    long[] table = new long[documents + 1];
    if (width == 4) {
      int[] ints = new int[documents + 1];
      MemorySegment.copy(data, INT, logicalOffsets, ints, 0, ints.length);
      for (int i = 0; i < ints.length; i++) {
        table[i] = ints[i] & 0xFFFF_FFFFL;
      }
    } else {
      MemorySegment.copy(data, LONG, logicalOffsets, table, 0, table.length);
    }
    return table;
  }

  /** Length of a document's payload, without decompressing. */
  long length(int document) {
    return logical(document + 1) - logical(document);
  }

  /** A copy of a document's payload (the document id is checked by the caller). */
  byte[] payload(int document) {
    long from = logical(document);
    long to = logical(document + 1);
    if (to == from) {
      return new byte[0];
    }
    int block = blockOf(document);
    long blockStart = logical(data.get(INT, firstDocs + 4L * block));
    long blockEnd = logical(data.get(INT, firstDocs + 4L * block + 4));
    if (from < blockStart || to < from || to > blockEnd) {
      throw corrupt(
          block,
          "payload offsets of document " + document + " [" + from + ", " + to + ") lie outside it");
    }
    int length = (int) (to - from);
    Cache cache = CACHE.get();
    if (cache.owner != id || cache.block != block) {
      int size = blockSize(block, blockStart);
      if (size > RETAINED_BUFFER_BYTES) {
        // too large to keep per thread: decompress into a throwaway cache
        Cache once = new Cache();
        decompress(block, blockStart, size, once);
        cache.owner = 0;
        cache = once;
      } else {
        decompress(block, blockStart, size, cache);
      }
    }
    byte[] result = new byte[length];
    System.arraycopy(cache.buffer, (int) (from - blockStart), result, 0, length);
    return result;
  }

  /** The block whose first document is {@code document}, or -1 when it starts none. */
  int blockStartingAt(int document) {
    int block = blockOf(document);
    return blockFirstDocument(block) == document ? block : -1;
  }

  /** Bytes of this thread's retained buffers (tests check the retention bound). */
  static long retainedBytes() {
    Cache c = CACHE.get();
    return (long) c.buffer.length + c.compressed.length;
  }

  /** Whether a writer closes a block holding {@code size} bytes before adding {@code length}. */
  static boolean closesBefore(int size, int length) {
    return size > 0 && (long) size + length > MAX_PAYLOAD_BLOCK_BYTES;
  }

  private int blockSize(int block, long blockStart) {
    long size = logical(data.get(INT, firstDocs + 4L * block + 4)) - blockStart;
    if (size < 0 || size > MAX_PAYLOAD_BLOCK_BYTES) {
      throw corrupt(
          block,
          "claims "
              + size
              + " uncompressed bytes, more than the largest block a writer makes ("
              + MAX_PAYLOAD_BLOCK_BYTES
              + ")");
    }
    return (int) size;
  }

  private int blockOf(int document) {
    int lo = 0;
    int hi = blockCount - 1;
    while (lo < hi) {
      int mid = (lo + hi + 1) >>> 1;
      if (data.get(INT, firstDocs + 4L * mid) <= document) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }

  /** What {@link Zstd#getFrameContentSize} returns for bytes that are not a zstd frame. */
  private static final long ZSTD_CONTENT_SIZE_ERROR = -2;

  private void decompress(int block, long blockStart, int size, Cache cache) {
    long at = data.get(LONG, blockOffsets + 8L * block);
    long compressedLength = data.get(LONG, blockOffsets + 8L * block + 8) - at;
    // LZ4 expands at most about 255-fold: a larger claimed size is damage, not data to allocate
    if (size < 0
        || (!zstd() && size > 255L * compressedLength + 64)
        || compressedLength > Integer.MAX_VALUE) {
      throw corrupt(
          block, "claims " + size + " bytes from " + compressedLength + " compressed bytes");
    }
    cache.owner = 0;
    // Copy the compressed block to the heap first: the decompressors' array paths are several
    // times faster than their ByteBuffer paths over a mapping.
    if (cache.compressed.length < compressedLength) {
      cache.compressed =
          new byte
              [(int)
                  Math.min(
                      Math.max(compressedLength, cache.compressed.length * 2L),
                      Math.max(compressedLength, RETAINED_BUFFER_BYTES))];
    }
    MemorySegment.copy(
        data,
        java.lang.foreign.ValueLayout.JAVA_BYTE,
        blockData + at,
        cache.compressed,
        0,
        (int) compressedLength);
    if (zstd()) {
      // a zstd frame states its content size: check it before allocating what the offsets claim
      // (damaged offsets could otherwise make every read of the block allocate up to 16 MiB)
      long content = Zstd.getFrameContentSize(cache.compressed, 0, (int) compressedLength);
      if (content == ZSTD_CONTENT_SIZE_ERROR) {
        throw corrupt(block, "is not a zstd frame");
      }
      if (content >= 0 && content != size) {
        throw corrupt(
            block,
            "is a zstd frame of " + content + " bytes, its offsets claim " + size + " bytes");
      }
    }
    if (cache.buffer.length < size) {
      cache.buffer =
          new byte
              [Math.min(
                  Math.max(size, cache.buffer.length * 2), Math.max(size, RETAINED_BUFFER_BYTES))];
    }
    String problem = decode(block, cache.compressed, (int) compressedLength, cache.buffer, size);
    if (problem != null) {
      throw corrupt(block, problem);
    }
    cache.owner = id;
    cache.block = block;
  }

  /**
   * Decompresses block {@code block}, whose stored bytes are {@code src[0, length)}, into {@code
   * dst[0, size)}; returns null, or what is wrong with the block.
   */
  String decode(int block, byte[] src, int length, byte[] dst, int size) {
    if (zstd()) {
      return dictionary(blockDictionary(block)).decompress(src, length, dst, size);
    }
    long produced;
    try {
      produced = LZ4.safeDecompressor().decompress(src, 0, length, dst, 0, size);
    } catch (LZ4Exception e) {
      return "cannot decompress: " + e.getMessage();
    }
    return produced == size ? null : "decompressed to " + produced + " bytes, expected " + size;
  }

  private UncheckedIOException corrupt(int block, String problem) {
    return new UncheckedIOException(
        new CorruptDatabaseException(
            source,
            "payload",
            blockOffsets + 8L * block,
            "payload block " + block + ": " + problem));
  }

  /** One thread's last decompressed block. */
  private static final class Cache {
    long owner;
    int block = -1;
    byte[] buffer = new byte[0];
    byte[] compressed = new byte[0];
  }
}
