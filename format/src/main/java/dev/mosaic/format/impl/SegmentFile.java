package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.Schema;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The file framing shared by every writer ({@link DatabaseWriter}, {@link PartitionMerge}, {@link
 * PartitionUpdate}): the segments to write, the header and directory before them, their padding,
 * and the trailer with the CRC32C of everything before it; {@link DatabaseOpener} checks them.
 *
 * <p>Thread safety: stateless; an {@link Output} belongs to one write.
 */
final class SegmentFile {
  private SegmentFile() {}

  /** The length of the file holding {@code segments}. */
  static long totalLength(List<Segment> segments) {
    long total = HEADER_SIZE + (long) DIRECTORY_ENTRY_SIZE * segments.size();
    for (Segment s : segments) {
      total += align8(s.length());
    }
    return total + TRAILER_SIZE;
  }

  private static long align8(long v) {
    return (v + 7) & ~7L;
  }

  /**
   * Writes a whole file: header, directory, the segments in order with their padding, and the
   * trailer with the CRC32C of everything before it. Shared by the writer and {@link
   * PartitionMerge}.
   */
  static void write(
      Output out, int builtVersion, Schema schema, int documentCount, List<Segment> segments)
      throws IOException {
    long total = totalLength(segments);
    ByteSink head = new ByteSink(HEADER_SIZE + DIRECTORY_ENTRY_SIZE * segments.size());
    head.putLong(MAGIC)
        .putInt(builtVersion)
        .putInt(schema.version())
        .putByte(CHECKSUM_CRC32C)
        .skip(3)
        .putInt(documentCount)
        .putInt(segments.size())
        .putInt(0);
    long offset = HEADER_SIZE + (long) DIRECTORY_ENTRY_SIZE * segments.size();
    for (Segment s : segments) {
      head.putByte(s.kind)
          .putByte(0)
          .putShort(0)
          .putInt(s.field)
          .putLong(offset)
          .putLong(s.length());
      offset += align8(s.length());
    }
    out.write(head.array(), 0, head.size());
    byte[] zeros = new byte[8];
    for (Segment s : segments) {
      s.writeTo(out);
      int pad = (int) (align8(s.length()) - s.length());
      out.write(zeros, 0, pad);
    }
    ByteSink tail = new ByteSink(8);
    tail.putLong(total);
    out.write(tail.array(), 0, 8);
    ByteSink crc = new ByteSink(8);
    crc.putInt((int) out.crc.getValue()).putInt(END_MAGIC);
    out.write(crc.array(), 0, 8);
  }

  /** The format version a file is written with: the oldest that has the features it uses. */
  static int formatVersion(boolean compressedPayloads, boolean zstdPayloads, boolean bloomFilters) {
    if (zstdPayloads) {
      return FORMAT_VERSION_3;
    }
    return compressedPayloads || bloomFilters ? FORMAT_VERSION_2 : FORMAT_VERSION_1;
  }

  /**
   * One segment to write: in-memory bytes, plus the documents' payloads for the payload segment.
   */
  static final class Segment {
    final int kind;
    final int field;
    final ByteSink head;
    final List<byte[]> payloads;
    final Body body;
    final long length;
    boolean compressed;

    /** Compressed payloads stored as zstd blocks (format version 3). */
    boolean zstd;

    Segment(int kind, int field, ByteSink head, List<byte[]> payloads) {
      this.kind = kind;
      this.field = field;
      this.head = head;
      this.payloads = payloads;
      this.body = null;
      long len = head.size();
      if (payloads != null) {
        for (byte[] p : payloads) {
          len += p.length;
        }
      }
      this.length = len;
    }

    /** A segment whose bytes after {@code head} are streamed by {@code body} when written. */
    Segment(int kind, int field, ByteSink head, long bodyLength, Body body) {
      this.kind = kind;
      this.field = field;
      this.head = head;
      this.payloads = null;
      this.body = body;
      this.length = head.size() + bodyLength;
    }

    long length() {
      return length;
    }

    void writeTo(Output out) throws IOException {
      out.write(head.array(), 0, head.size());
      if (payloads != null) {
        for (byte[] p : payloads) {
          out.write(p, 0, p.length);
        }
      }
      if (body != null) {
        long before = out.written;
        body.writeTo(out);
        if (out.written - before != length - head.size()) {
          throw new IllegalStateException(
              "segment body wrote "
                  + (out.written - before)
                  + " bytes, announced "
                  + (length - head.size()));
        }
      }
    }
  }

  /** Streams the bytes of a segment after its head. */
  interface Body {
    void writeTo(Output out) throws IOException;
  }

  /**
   * Buffered output to a channel, computing the CRC32C of everything written. Its 64 KiB buffer is
   * taken from the thread's spare (allocating and zeroing one per file cost a few percent of a
   * rebuild) and handed back by {@link #finish}.
   */
  static final class Output {
    private static final int BUFFER_BYTES = 1 << 16;

    /** Per thread, the buffer of the last finished output (null while an output uses it). */
    private static final ThreadLocal<ByteBuffer> SPARE = new ThreadLocal<>();

    final WritableByteChannel channel;
    final ByteBuffer buffer;
    private final MemorySegment bufferSegment;
    final CRC32C crc = new CRC32C();
    long written;
    private boolean finished;

    Output(WritableByteChannel channel) {
      this.channel = channel;
      ByteBuffer spare = SPARE.get();
      if (spare != null) {
        SPARE.set(null);
        spare.clear();
        buffer = spare;
      } else {
        // direct: a channel writes it as it is, where a heap buffer is first copied into a
        // temporary direct one
        buffer = ByteBuffer.allocateDirect(BUFFER_BYTES);
      }
      bufferSegment = MemorySegment.ofBuffer(buffer);
    }

    void write(byte[] b, int off, int len) throws IOException {
      checkOpen();
      crc.update(b, off, len);
      written += len;
      while (len > 0) {
        int n = Math.min(len, buffer.remaining());
        buffer.put(b, off, n);
        off += n;
        len -= n;
        if (!buffer.hasRemaining()) {
          drain();
        }
      }
    }

    /** Writes bytes of a memory segment (a mapped input, for instance). */
    void write(MemorySegment src) throws IOException {
      checkOpen();
      long len = src.byteSize();
      written += len;
      for (long off = 0; off < len; ) {
        int n = (int) Math.min(len - off, buffer.remaining());
        int at = buffer.position();
        MemorySegment.copy(src, off, bufferSegment, at, n);
        crc.update(buffer.slice(at, n));
        buffer.position(at + n);
        off += n;
        if (!buffer.hasRemaining()) {
          drain();
        }
      }
    }

    private void checkOpen() {
      if (finished) {
        throw new IllegalStateException("output already finished: its buffer is reused");
      }
    }

    private void drain() throws IOException {
      buffer.flip();
      while (buffer.hasRemaining()) {
        channel.write(buffer);
      }
      buffer.clear();
    }

    void flush() throws IOException {
      drain();
    }

    /**
     * Writes what is buffered and hands the buffer back to the thread for its next output; nothing
     * may be written after.
     */
    void finish() throws IOException {
      if (finished) {
        throw new IllegalStateException("output already finished");
      }
      drain();
      finished = true;
      SPARE.set(buffer);
    }
  }
}
