package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.Field;
import dev.mosaic.format.FileSync;
import dev.mosaic.format.PayloadCompression;
import dev.mosaic.format.Schema;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Builds the bytes of one database (see {@code format/FORMAT.md}): the builder's options, the
 * payload segment (raw, or cut into compressed blocks), and per field its {@link FieldRanks}
 * encoded by {@link FieldSegmentEncoder}, framed by {@link SegmentFile}. Every field is built in
 * time linear in its number of values plus one sort of its distinct values: distinct values are
 * collected in a hash map, sorted once, and each document's values are then mapped to their rank by
 * one lookup.
 *
 * <p>Thread safety: not thread safe. NOTE: documents are kept by reference until the builder is
 * dropped; the whole database is laid out in memory (per segment at most 2 GiB) when written.
 */
public final class DatabaseWriter implements DatabaseBuilder {
  private final Schema schema;

  /** The documents written: {@link #add}'s, or a fixed set given at construction. */
  private final DocumentColumns source;

  /** Whether {@link #add} may append to {@link #source} (false for a fixed set). */
  private final boolean addable;

  private List<SegmentFile.Segment> built;
  private int builtVersion;
  private PayloadCompression compression = PayloadCompression.AUTO;
  private int blockSize = DEFAULT_BLOCK_SIZE;

  /** The dictionary of {@link #payloadDictionaryOf}, or null to train one. */
  private PayloadDictionary inheritedDictionary;

  private boolean autoBloomFilters = true;
  private boolean fsync = true;
  private final java.util.Set<String> bloomFields = new java.util.HashSet<>();
  private final java.util.TreeMap<Integer, ByteSink> blooms = new java.util.TreeMap<>();

  /** Automatic Bloom filters need at least this many documents ... */
  static final int AUTO_BLOOM_MIN_DOCUMENTS = 256;

  /** ... and at least this fraction (in percent) of distinct values per document. */
  static final int AUTO_BLOOM_MIN_DISTINCT_PERCENT = 80;

  /**
   * Default target uncompressed size of one payload block: 2 KiB, two or three car offers. A random
   * fetch decompresses its whole block, and with a dictionary small blocks lose little.
   */
  static final int DEFAULT_BLOCK_SIZE = 2 * 1024;

  /** LZ4 is chosen by {@link PayloadCompression#AUTO} when it saves at least 1/10 of the bytes. */
  private static final int AUTO_MIN_SAVING_DIVISOR = 10;

  public DatabaseWriter(Schema schema) {
    this.schema = java.util.Objects.requireNonNull(schema, "schema");
    this.source = new DocumentColumns(schema.fields().size());
    this.addable = true;
  }

  /**
   * A writer over documents given by {@code source} (read when written); {@link #add} is refused.
   */
  DatabaseWriter(Schema schema, DocumentColumns source) {
    this.schema = java.util.Objects.requireNonNull(schema, "schema");
    this.source = java.util.Objects.requireNonNull(source, "source");
    this.addable = false;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public DatabaseBuilder add(Document document) {
    if (!addable) {
      throw new IllegalStateException("this writer reads its documents from a fixed source");
    }
    if (document.schema() != schema && !document.schema().equals(schema)) {
      throw new IllegalArgumentException(
          "document was built for another schema: " + document.schema() + ", expected " + schema);
    }
    source.add(document);
    built = null;
    return this;
  }

  @Override
  public DatabaseBuilder payloadCompression(PayloadCompression compression) {
    this.compression = java.util.Objects.requireNonNull(compression, "compression");
    built = null;
    return this;
  }

  @Override
  public DatabaseBuilder payloadDictionaryOf(dev.mosaic.format.Database base) {
    DatabaseReader reader = DatabaseReader.of(java.util.Objects.requireNonNull(base, "base"));
    this.inheritedDictionary = PayloadDictionary.inheritedFrom(reader);
    built = null;
    return this;
  }

  @Override
  public DatabaseBuilder payloadBlockSize(int bytes) {
    if (bytes <= 0 || bytes > FileFormat.MAX_PAYLOAD_BLOCK_RULE) {
      throw new IllegalArgumentException(
          "payload block size must be in [1, "
              + FileFormat.MAX_PAYLOAD_BLOCK_RULE
              + "], got "
              + bytes);
    }
    this.blockSize = bytes;
    built = null;
    return this;
  }

  @Override
  public DatabaseBuilder bloomFilter(String field) {
    Field f = schema.field(field);
    if (f == null || !f.role().isFilterable()) {
      throw new IllegalArgumentException(
          "bloom filter on '" + field + "': not a filterable field of " + schema);
    }
    bloomFields.add(field);
    built = null;
    return this;
  }

  @Override
  public DatabaseBuilder autoBloomFilters(boolean enabled) {
    this.autoBloomFilters = enabled;
    built = null;
    return this;
  }

  @Override
  public DatabaseBuilder fsync(boolean fsync) {
    this.fsync = fsync;
    return this;
  }

  @Override
  public int documentCount() {
    return source.size();
  }

  @Override
  public void writeTo(WritableByteChannel channel) throws IOException {
    SegmentFile.Output out = new SegmentFile.Output(channel);
    write(out);
    out.finish();
  }

  @Override
  public void writeTo(OutputStream out) throws IOException {
    writeTo(Channels.newChannel(out));
    out.flush();
  }

  @Override
  public void writeTo(Path file) throws IOException {
    writeTo(file, fsync ? FileSync.FORCE : FileSync.CALLER_SYNCS);
  }

  @Override
  public void writeTo(Path file, FileSync sync) throws IOException {
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.WRITE,
            StandardOpenOption.TRUNCATE_EXISTING)) {
      writeTo(ch);
      if (sync == FileSync.FORCE) {
        ch.force(true);
      }
    }
  }

  @Override
  public byte[] toByteArray() {
    List<SegmentFile.Segment> segments = segments();
    long total = SegmentFile.totalLength(segments);
    if (total > Integer.MAX_VALUE - 16) {
      throw new IllegalStateException("database of " + total + " bytes does not fit an array");
    }
    byte[] result = new byte[(int) total];
    ByteBuffer target = ByteBuffer.wrap(result);
    try {
      writeTo(
          new WritableByteChannel() {
            @Override
            public int write(ByteBuffer src) {
              int n = src.remaining();
              target.put(src);
              return n;
            }

            @Override
            public boolean isOpen() {
              return true;
            }

            @Override
            public void close() {}
          });
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: writing to memory", e);
    }
    return result;
  }

  // ---------------------------------------------------------------------------------------------

  private void write(SegmentFile.Output out) throws IOException {
    List<SegmentFile.Segment> segments = segments();
    SegmentFile.write(out, builtVersion, schema, source.size(), segments);
  }

  private List<SegmentFile.Segment> segments() {
    if (built == null) {
      List<SegmentFile.Segment> list = new ArrayList<>();
      list.add(new SegmentFile.Segment(KIND_SCHEMA, NO_FIELD, SchemaCodec.encode(schema), null));
      List<Field> fields = schema.fields();
      blooms.clear();
      for (int i = 0; i < fields.size(); i++) {
        list.add(
            new SegmentFile.Segment(
                kindOf(fields.get(i).role()), i, fieldSegment(fields.get(i)), null));
      }
      SegmentFile.Segment payload = payloadSegment();
      list.add(payload);
      for (var bloom : blooms.entrySet()) {
        list.add(new SegmentFile.Segment(KIND_BLOOM, bloom.getKey(), bloom.getValue(), null));
      }
      builtVersion = SegmentFile.formatVersion(payload.compressed, payload.zstd, !blooms.isEmpty());
      built = list;
    }
    return built;
  }

  private SegmentFile.Segment payloadSegment() {
    int n = source.size();
    long total = 0;
    for (int d = 0; d < n; d++) {
      total += source.payloadLength(d);
    }
    int width = total <= 0xFFFF_FFFFL ? 4 : 8;
    ByteSink head = new ByteSink(8 + (n + 1) * width);
    head.putInt(width).putInt(0);
    long offset = 0;
    for (int i = 0; i <= n; i++) {
      if (width == 4) {
        head.putInt((int) offset);
      } else {
        head.putLong(offset);
      }
      if (i < n) {
        offset += source.payloadLength(i);
      }
    }
    List<byte[]> raw =
        new java.util.AbstractList<>() {
          @Override
          public byte[] get(int index) {
            return source.payload(index);
          }

          @Override
          public int size() {
            return n;
          }
        };
    SegmentFile.Segment rawSegment = new SegmentFile.Segment(KIND_PAYLOAD, NO_FIELD, head, raw);
    if (compression == PayloadCompression.NONE || total == 0 || total > Integer.MAX_VALUE) {
      return rawSegment;
    }
    SegmentFile.Segment compressed = compressedPayloadSegment(width, total);
    if (compressed == null) {
      return rawSegment; // one payload alone is over the largest block: stored raw
    }
    if (compression == PayloadCompression.AUTO
        && compressed.length()
            > rawSegment.length() - rawSegment.length() / AUTO_MIN_SAVING_DIVISOR) {
      return rawSegment;
    }
    return compressed;
  }

  /**
   * The compressed block layout of the payload segment (LZ4: version 2, flags 1; zstd with a
   * dictionary: version 3, flags 2): logical offsets as in the raw layout, then the block tables
   * (and dictionaries), then the blocks. Null when one payload alone is over {@link
   * FileFormat#MAX_PAYLOAD_BLOCK_BYTES}.
   */
  private SegmentFile.Segment compressedPayloadSegment(int width, long total) {
    int n = source.size();
    for (int d = 0; d < n; d++) {
      if (source.payloadLength(d) > MAX_PAYLOAD_BLOCK_BYTES) {
        return null;
      }
    }
    PayloadBlockTables tables;
    BlockCompressor compressor;
    if (compression == PayloadCompression.LZ4) {
      tables = PayloadBlockTables.lz4();
      compressor = BlockCompressor.lz4();
    } else {
      PayloadDictionary dictionary =
          inheritedDictionary != null
              ? inheritedDictionary
              : PayloadDictionary.train(n, total, source::payload);
      tables = PayloadBlockTables.zstd(dictionary, 0);
      compressor = BlockCompressor.zstd(dictionary);
    }
    List<byte[]> blocks = new ArrayList<>();
    it.unimi.dsi.fastutil.ints.IntArrayList firstDocs =
        new it.unimi.dsi.fastutil.ints.IntArrayList();
    PayloadBlockCutter cutter =
        new PayloadBlockCutter(
            blockSize,
            compressor,
            (firstDoc, block, length) -> {
              blocks.add(Arrays.copyOf(block, length));
              firstDocs.add(firstDoc);
            });
    try {
      for (int d = 0; d < n; d++) {
        byte[] p = source.payload(d);
        cutter.add(d, p, 0, p.length);
      }
      cutter.close();
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: blocks are kept in memory", e);
    }
    int k = blocks.size();
    if (tables.zstd()) {
      tables = PayloadBlockTables.zstd(tables.dictionaries().getFirst(), k);
    }
    ByteSink head = new ByteSink((int) tables.headLength(n, width, k));
    tables.putHeader(head, width, k, cutter.blockSize());
    long offset = 0;
    for (int i = 0; i <= n; i++) {
      if (width == 4) {
        head.putInt((int) offset);
      } else {
        head.putLong(offset);
      }
      if (i < n) {
        offset += source.payloadLength(i);
      }
    }
    tables.putTables(head, n, firstDocs, b -> blocks.get(b).length);
    SegmentFile.Segment segment = new SegmentFile.Segment(KIND_PAYLOAD, NO_FIELD, head, blocks);
    segment.compressed = true;
    segment.zstd = tables.zstd();
    return segment;
  }

  /**
   * Builds a field segment: header, sorted value set, postings (filterable), doc→value (sortable).
   */
  private ByteSink fieldSegment(Field field) {
    int fieldIndex = schema.fields().indexOf(field);
    int n = source.size();
    FieldRanks r = FieldRanks.of(source, fieldIndex);
    if (field.role().isFilterable()
        && (bloomFields.contains(field.name())
            || (autoBloomFilters && autoBloomApplies(n, r.sorted().length)))) {
      blooms.put(fieldIndex, BloomFilter.build(r.sorted()));
    }
    return FieldSegmentEncoder.encodeRanks(field, n, r);
  }

  /**
   * True when a filterable field gets a Bloom filter automatically: the partition has at least
   * {@link #AUTO_BLOOM_MIN_DOCUMENTS} documents and at least 0.8 distinct values per document.
   */
  static boolean autoBloomApplies(int documents, int distinct) {
    return documents >= AUTO_BLOOM_MIN_DOCUMENTS
        && (long) distinct * 100 >= (long) documents * AUTO_BLOOM_MIN_DISTINCT_PERCENT;
  }
}
