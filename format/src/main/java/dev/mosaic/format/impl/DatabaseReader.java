package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.Database;
import dev.mosaic.format.Schema;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * The codec side of one partition, read in place from a {@link MemorySegment} (a memory-mapped file
 * or an array) that {@link DatabaseOpener} checked: its schema, the readers of its field segments
 * (built on first use), its payloads (raw or in compressed blocks), its Bloom filters and its
 * layout. Searching is {@link PartitionSearcher}'s business.
 *
 * <p>Thread safety: immutable after construction; any number of threads may read concurrently. The
 * read path takes no locks. NOTE: after {@link #close()} every query throws {@link
 * IllegalStateException}; payload views of a mapped file handed out earlier throw it too once the
 * mapping is released.
 */
public final class DatabaseReader implements AutoCloseable {
  private final String source;
  private final MemorySegment data;
  private final Arena ownedArena;
  private final Schema schema;
  private final int documents;
  private final int formatVersion;

  /** Per field: segment offset and length, so readers can be rebuilt without re-validating. */
  private final long[] fieldSegments;

  /**
   * Field readers, built on first use (racy but benign: readers are immutable, final fields make
   * publication safe). Keeps the heap of an open partition small when queries touch few fields.
   */
  private final FieldReader[] fields;

  private final long payloadOffsets;
  private final int payloadWidth;
  private final long payloadData;

  /** Per field, its Bloom filter or null (format version 2). */
  private final BloomFilter[] blooms;

  /** Non-null when payloads are stored as LZ4 blocks (format version 2). */
  private final PayloadBlocks blocks;

  private volatile boolean closed;

  DatabaseReader(
      String source,
      MemorySegment data,
      Arena ownedArena,
      Schema schema,
      int documents,
      int formatVersion,
      long[] fieldSegments,
      long payloadOffsets,
      int payloadWidth,
      long payloadData,
      PayloadBlocks blocks,
      BloomFilter[] blooms) {
    this.source = source;
    this.blooms = blooms;
    this.data = data;
    this.ownedArena = ownedArena;
    this.schema = schema;
    this.documents = documents;
    this.formatVersion = formatVersion;
    this.fieldSegments = fieldSegments;
    this.fields = new FieldReader[fieldSegments.length / 2];
    this.payloadOffsets = payloadOffsets;
    this.payloadWidth = payloadWidth;
    this.payloadData = payloadData;
    this.blocks = blocks;
  }

  // ----- Database ------------------------------------------------------------------------------

  public Schema schema() {
    return schema;
  }

  public long documentCount() {
    return documents;
  }

  /** Number of documents, as an int. */
  public int documents() {
    return documents;
  }

  public long sizeInBytes() {
    return data.byteSize();
  }

  public int formatVersion() {
    return formatVersion;
  }

  /** The reader of a database the format opened (every {@link Database}). */
  public static DatabaseReader of(Database database) {
    return PartitionSearcher.of(database).reader();
  }

  /** Per field, its Bloom filter or null. */
  BloomFilter[] blooms() {
    return blooms;
  }

  /** The file name or description of the bytes. */
  public String source() {
    return source;
  }

  public String toString() {
    return "Database{" + source + ", " + documents + " documents}";
  }

  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    CLOSES.incrementAndGet();
    if (ownedArena != null) {
      ownedArena.close();
    }
  }

  /**
   * Number of {@link #close()} calls on any reader so far: a composite that found all its
   * partitions open need not look at them again (1024 cold objects) until this changes.
   */
  static final java.util.concurrent.atomic.AtomicLong CLOSES =
      new java.util.concurrent.atomic.AtomicLong();

  /** The lifetime of the memory this reader reads (its mapping's arena). */
  MemorySegment.Scope scope() {
    return data.scope();
  }

  void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("database " + source + " is closed");
    }
  }

  /**
   * A document's payload (empty when none); see {@link Database#payload(int)}.
   *
   * <p>For raw payloads (format version 1, or version 2 without compression) this is a zero-copy
   * slice of the mapping. NOTE: for LZ4-compressed payloads it decompresses the document's block
   * (kept per thread, so reading consecutive documents decompresses each block once) and returns a
   * read-only segment over a fresh heap array holding a copy of the payload.
   */
  public MemorySegment payload(int document) {
    ensureOpen();
    checkDocument(document);
    if (blocks != null) {
      return MemorySegment.ofArray(blocks.payload(document)).asReadOnly();
    }
    long from;
    long to;
    if (payloadWidth == 4) {
      from = data.get(INT, payloadOffsets + 4L * document) & 0xFFFF_FFFFL;
      to = data.get(INT, payloadOffsets + 4L * document + 4) & 0xFFFF_FFFFL;
    } else {
      from = data.get(LONG, payloadOffsets + 8L * document);
      to = data.get(LONG, payloadOffsets + 8L * document + 8);
    }
    long total =
        payloadWidth == 4
            ? data.get(INT, payloadOffsets + 4L * documents) & 0xFFFF_FFFFL
            : data.get(LONG, payloadOffsets + 8L * documents);
    if (from < 0 || to < from || to > total) {
      throw new UncheckedIOException(
          new CorruptDatabaseException(
              source,
              "payload",
              payloadOffsets + (long) payloadWidth * document,
              "payload of document "
                  + document
                  + " at ["
                  + from
                  + ", "
                  + to
                  + ") is out of bounds"));
    }
    return data.asSlice(payloadData + from, to - from);
  }

  public byte[] payloadBytes(int document) {
    ensureOpen();
    checkDocument(document);
    if (blocks != null) {
      return blocks.payload(document);
    }
    return payload(document).toArray(ValueLayout.JAVA_BYTE);
  }

  /**
   * One directory entry: kind ({@code schema}, {@code payload}, {@code filterable}, {@code
   * sortable}, {@code full}, {@code bloom}), field name (null for schema and payload), offset and
   * length in bytes.
   */
  public record SegmentInfo(String kind, String field, long offset, long length) {}

  /** The directory, in file order. */
  public java.util.List<SegmentInfo> segments() {
    ensureOpen();
    int count = data.get(INT, 24);
    java.util.List<SegmentInfo> result = new java.util.ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      long entry = HEADER_SIZE + (long) DIRECTORY_ENTRY_SIZE * i;
      int field = data.get(INT, entry + 4);
      result.add(
          new SegmentInfo(
              kindName(data.get(ValueLayout.JAVA_BYTE, entry)),
              field < 0 ? null : schema.fields().get(field).name(),
              data.get(LONG, entry + 8),
              data.get(LONG, entry + 16)));
    }
    return result;
  }

  public java.util.Optional<dev.mosaic.format.FileLayout> layout() {
    return java.util.Optional.of(
        new dev.mosaic.format.FileLayout(
            segments().stream()
                .map(
                    seg ->
                        new dev.mosaic.format.FileLayout.Segment(
                            seg.kind(), seg.field(), seg.offset(), seg.length()))
                .toList(),
            payloadsCompressed(),
            blocks == null ? "raw" : blocks.zstd() ? "zstd" : "lz4",
            payloadBlockCount(),
            blocks == null ? 0 : blocks.dictionaryBytes(),
            payloadBytesStored(),
            payloadBytesUncompressed(),
            schema.fields().stream()
                .map(dev.mosaic.format.Field::name)
                .filter(this::hasBloomFilter)
                .toList()));
  }

  /** True when the field has a Bloom filter in this partition. */
  public boolean hasBloomFilter(String field) {
    int i = Plan.indexOf(schema, field);
    return i >= 0 && blooms[i] != null;
  }

  /**
   * False when the field's Bloom filter proves no document has the value; true when it may (or the
   * field has no filter).
   */
  public boolean mightContain(String field, Object value) {
    ensureOpen();
    int i = Plan.indexOf(schema, field);
    if (i < 0) {
      throw new IllegalArgumentException("unknown field '" + field + "'");
    }
    return blooms[i] == null
        || blooms[i].mightContain(BloomFilter.hash(schema.fields().get(i).type().encode(value)));
  }

  /** True when this database stores its payloads as LZ4 blocks. */
  public boolean payloadsCompressed() {
    return blocks != null;
  }

  /** Number of LZ4 payload blocks, 0 for raw payloads. */
  public int payloadBlockCount() {
    return blocks == null ? 0 : blocks.blockCount();
  }

  /** Total payload bytes before compression (the raw payload bytes for raw payloads). */
  public long payloadBytesUncompressed() {
    if (blocks != null) {
      return blocks.uncompressedBytes();
    }
    return payloadWidth == 4
        ? data.get(INT, payloadOffsets + 4L * documents) & 0xFFFF_FFFFL
        : data.get(LONG, payloadOffsets + 8L * documents);
  }

  /** Payload bytes as stored in the file (compressed blocks, or the raw payload bytes). */
  public long payloadBytesStored() {
    return blocks != null ? blocks.compressedBytes() : payloadBytesUncompressed();
  }

  /** The LZ4 payload blocks, or null when payloads are raw (used by {@link PartitionMerge}). */
  PayloadBlocks payloadBlocks() {
    ensureOpen();
    return blocks;
  }

  /**
   * Raw payloads only: the payload bytes of documents {@code [from, to)}, which lie back to back
   * (used by {@link PartitionMerge}).
   */
  MemorySegment rawPayloads(int from, int to) {
    ensureOpen();
    long start = rawPayloadOffset(from);
    return data.asSlice(payloadData + start, rawPayloadOffset(to) - start);
  }

  /** The length of the largest payload (O(documents), no decompression). */
  long largestPayload() {
    ensureOpen();
    long largest = 0;
    for (int d = 0; d < documents; d++) {
      long length =
          blocks != null ? blocks.length(d) : rawPayloadOffset(d + 1) - rawPayloadOffset(d);
      largest = Math.max(largest, length);
    }
    return largest;
  }

  /** Raw payloads only: where document {@code document}'s payload starts ({@code [0, n]}). */
  long rawPayloadOffset(int document) {
    return payloadWidth == 4
        ? data.get(INT, payloadOffsets + 4L * document) & 0xFFFF_FFFFL
        : data.get(LONG, payloadOffsets + 8L * document);
  }

  private void checkDocument(int document) {
    if (document < 0 || document >= documents) {
      throw new IndexOutOfBoundsException(
          "document " + document + " outside [0, " + documents + ") in " + source);
    }
  }

  public Object sortableValue(int document, String field) {
    FieldReader f = sortableField(field);
    return f.field.type().decode(sortableBytes(f, document));
  }

  public byte[] sortableBytes(int document, String field) {
    return sortableBytes(sortableField(field), document);
  }

  private byte[] sortableBytes(FieldReader f, int document) {
    ensureOpen();
    checkDocument(document);
    return f.valueBytes(f.valueIndex(document));
  }

  private FieldReader sortableField(String name) {
    FieldReader f = field(Plan.indexOf(schema, name));
    if (!f.field.role().isSortable()) {
      throw new IllegalArgumentException(
          "field '"
              + name
              + "' is "
              + f.field.role()
              + ", not sortable: it has no value per document");
    }
    return f;
  }

  FieldReader field(int index) {
    FieldReader f = fields[index];
    if (f == null) {
      try {
        f =
            new FieldReader(
                data,
                schema.fields().get(index),
                documents,
                fieldSegments[2 * index],
                fieldSegments[2 * index + 1],
                source);
      } catch (CorruptDatabaseException e) {
        throw new IllegalStateException("validated at open: " + e.getMessage(), e);
      }
      fields[index] = f;
    }
    return f;
  }
}
