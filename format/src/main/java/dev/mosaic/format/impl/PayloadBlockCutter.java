package dev.mosaic.format.impl;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Groups consecutive payloads into blocks where the {@link PayloadBlockRule} cuts them and
 * compresses each block with a {@link BlockCompressor} (LZ4, or zstd with a dictionary: the same
 * bytes on every platform). Used by the writer, the merger's re-blocking and {@link
 * PartitionUpdate}, so all cut and compress alike.
 *
 * <p>Thread safety: not thread safe; one per writing thread.
 */
final class PayloadBlockCutter {
  /** Receives each compressed block. */
  interface Sink {
    /**
     * A block of documents from {@code firstDoc}: {@code block[0, length)}, valid during the call.
     */
    void compressed(int firstDoc, byte[] block, int length) throws IOException;
  }

  private final PayloadBlockRule rule;
  private final Sink sink;
  private final BlockCompressor compressor;
  private byte[] buffer;
  private byte[] target = new byte[0];
  private int size;
  private int blockStart = -1;

  PayloadBlockCutter(int blockSize, BlockCompressor compressor, Sink sink) {
    this.rule = new PayloadBlockRule(blockSize);
    this.compressor = compressor;
    this.sink = sink;
    this.buffer = new byte[Math.min(blockSize, 1 << 20) * 2 + 1024];
  }

  /** The rule's target size (recorded in the payload segment). */
  int blockSize() {
    return rule.target();
  }

  /** Whether documents were added since the last block ended. */
  boolean pending() {
    return blockStart >= 0;
  }

  /** Appends document {@code doc}'s payload {@code src[offset, offset + length)}. */
  void add(int doc, byte[] src, int offset, int length) throws IOException {
    int at = reserve(doc, length);
    System.arraycopy(src, offset, buffer, at, length);
    cutMaybe(length);
  }

  /** Appends document {@code doc}'s payload, {@code length} bytes of {@code src} at offset. */
  void add(int doc, MemorySegment src, long offset, int length) throws IOException {
    int at = reserve(doc, length);
    MemorySegment.copy(src, ValueLayout.JAVA_BYTE, offset, buffer, at, length);
    cutMaybe(length);
  }

  /** Ends the current block, if any (at the end of the documents, or of a run). */
  void close() throws IOException {
    if (blockStart >= 0) {
      flush();
    }
  }

  private int reserve(int doc, int length) throws IOException {
    if (blockStart >= 0 && PayloadBlocks.closesBefore(size, length)) {
      flush(); // no block grows past the largest one readers accept
    }
    if (blockStart < 0) {
      blockStart = doc;
    }
    if (size + length > buffer.length) {
      buffer = Arrays.copyOf(buffer, Math.max(size + length, buffer.length * 2));
    }
    int at = size;
    size += length;
    return at;
  }

  private void cutMaybe(int length) throws IOException {
    if (rule.endsAfter(size, buffer, size - length, length)) {
      flush();
    }
  }

  private void flush() throws IOException {
    int max = compressor.maxCompressedLength(size);
    if (target.length < max) {
      target = new byte[max];
    }
    int len = compressor.compress(buffer, size, target);
    sink.compressed(blockStart, target, len);
    blockStart = -1;
    size = 0;
  }
}
