package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.Field;
import dev.mosaic.format.FileSync;
import dev.mosaic.format.PayloadCompression;
import dev.mosaic.format.Schema;
import it.unimi.dsi.fastutil.bytes.ByteArrays;
import it.unimi.dsi.fastutil.objects.Object2IntOpenCustomHashMap;
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
import java.util.zip.CRC32C;

/**
 * Builds the bytes of one database (see {@code format/FORMAT.md}). Every field is built in time
 * linear in its number of values plus one sort of its distinct values: distinct values are
 * collected in a hash map, sorted once, and each document's values are then mapped to their rank by
 * one lookup.
 *
 * <p>Thread safety: not thread safe. NOTE: documents are kept by reference until the builder is
 * dropped; the whole database is laid out in memory (per segment at most 2 GiB) when written.
 */
public final class DatabaseWriter implements DatabaseBuilder {
  private final Schema schema;
  private final List<Document> documents = new ArrayList<>();
  private final DocumentSource source;
  private List<Segment> built;
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
    this.source = DocumentSource.of(schema, documents);
  }

  /**
   * A writer over documents given by {@code source} (read when written); {@link #add} is refused.
   */
  DatabaseWriter(Schema schema, DocumentSource source) {
    this.schema = java.util.Objects.requireNonNull(schema, "schema");
    this.source = java.util.Objects.requireNonNull(source, "source");
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public DatabaseBuilder add(Document document) {
    if (!source.addable()) {
      throw new IllegalStateException("this writer reads its documents from a fixed source");
    }
    if (document.schema() != schema && !document.schema().equals(schema)) {
      throw new IllegalArgumentException(
          "document was built for another schema: " + document.schema() + ", expected " + schema);
    }
    if (documents.size() == Integer.MAX_VALUE - 8) {
      throw new IllegalStateException(
          "a database holds at most " + documents.size() + " documents");
    }
    documents.add(document);
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
    Output out = new Output(channel);
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
    List<Segment> segments = segments();
    long total = totalLength(segments);
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

  private void write(Output out) throws IOException {
    List<Segment> segments = segments();
    writeFile(out, builtVersion, schema, source.size(), segments);
  }

  /**
   * Writes a whole file: header, directory, the segments in order with their padding, and the
   * trailer with the CRC32C of everything before it. Shared by the writer and {@link
   * PartitionMerge}.
   */
  static void writeFile(
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

  private List<Segment> segments() {
    if (built == null) {
      List<Segment> list = new ArrayList<>();
      list.add(new Segment(KIND_SCHEMA, NO_FIELD, SchemaCodec.encode(schema), null));
      List<Field> fields = schema.fields();
      blooms.clear();
      for (int i = 0; i < fields.size(); i++) {
        list.add(new Segment(kindOf(fields.get(i).role()), i, fieldSegment(fields.get(i)), null));
      }
      Segment payload = payloadSegment();
      list.add(payload);
      for (var bloom : blooms.entrySet()) {
        list.add(new Segment(KIND_BLOOM, bloom.getKey(), bloom.getValue(), null));
      }
      builtVersion = formatVersion(payload.compressed, payload.zstd, !blooms.isEmpty());
      built = list;
    }
    return built;
  }

  /** The format version a file is written with: the oldest that has the features it uses. */
  static int formatVersion(boolean compressedPayloads, boolean zstdPayloads, boolean bloomFilters) {
    if (zstdPayloads) {
      return FORMAT_VERSION_3;
    }
    return compressedPayloads || bloomFilters ? FORMAT_VERSION_2 : FORMAT_VERSION_1;
  }

  private Segment payloadSegment() {
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
    Segment rawSegment = new Segment(KIND_PAYLOAD, NO_FIELD, head, raw);
    if (compression == PayloadCompression.NONE || total == 0 || total > Integer.MAX_VALUE) {
      return rawSegment;
    }
    Segment compressed = compressedPayloadSegment(width, total);
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
  private Segment compressedPayloadSegment(int width, long total) {
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
    Segment segment = new Segment(KIND_PAYLOAD, NO_FIELD, head, blocks);
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
    FieldRanks r = FieldRanks.of(source, fieldIndex, field.name());
    if (field.role().isFilterable()
        && (bloomFields.contains(field.name())
            || (autoBloomFilters && autoBloomApplies(n, r.sorted().length)))) {
      blooms.put(fieldIndex, BloomFilter.build(r.sorted()));
    }
    return encodeRanks(field, n, r);
  }

  /**
   * One field's content in rank terms: the distinct values sorted (a value's index is its rank),
   * and each document's distinct ranks, ascending, flattened ({@code ranks[start[d], start[d +
   * 1])}).
   *
   * @param singleValued true when every document has at most one distinct value
   */
  record FieldRanks(byte[][] sorted, int[] start, int[] ranks, boolean singleValued) {

    /**
     * Builds a field's ranks. When every value of the field has one width of at most 8 bytes (the
     * numbers, timestamps, booleans; strings that happen to), the values are packed into longs,
     * whose order is the values' unsigned byte order, and ranked by one primitive sort ({@link
     * #packed}); else {@link #hashed}. Both give the same ranks.
     */
    static FieldRanks of(DocumentSource source, int fieldIndex, String name) {
      FieldRanks packed = packed(source, fieldIndex, name);
      return packed != null ? packed : hashed(source, fieldIndex, name);
    }

    /**
     * Ranks values of one width of at most 8 bytes as longs: each value packed big-endian (sign bit
     * flipped, so a signed sort is the unsigned byte order) in one pass over the documents, the
     * packed values sorted once and deduplicated, each value's rank found by binary search.
     *
     * @return null when the values differ in width, are wider than 8 bytes, or there are none
     */
    static FieldRanks packed(DocumentSource source, int fieldIndex, String name) {
      int n = source.size();
      int width = -1;
      boolean multi = false;
      long[] keys = new long[Math.max(16, n)];
      int[] start = new int[n + 1];
      int used = 0;
      for (int doc = 0; doc < n; doc++) {
        start[doc] = used;
        List<byte[]> values = source.values(doc, fieldIndex);
        int count = values.size();
        multi |= count > 1;
        if (used + count > keys.length) {
          keys = Arrays.copyOf(keys, grownLength(used, count, keys.length, name));
        }
        for (int i = 0; i < count; i++) {
          byte[] v = values.get(i);
          if (v.length != width) {
            if (width >= 0 || v.length > 8) {
              return null;
            }
            width = v.length;
          }
          long k = 0;
          for (int b = 0; b < width; b++) {
            k = k << 8 | (v[b] & 0xFF);
          }
          keys[used++] = k ^ Long.MIN_VALUE;
        }
      }
      if (width < 0) {
        return null;
      }
      start[n] = used;
      long[] distinct = Arrays.copyOf(keys, used);
      Arrays.sort(distinct);
      int m = 0;
      for (int i = 0; i < used; i++) {
        if (i == 0 || distinct[i] != distinct[m - 1]) {
          distinct[m++] = distinct[i];
        }
      }
      byte[][] sorted = new byte[m][];
      for (int r = 0; r < m; r++) {
        long k = distinct[r] ^ Long.MIN_VALUE;
        byte[] v = new byte[width];
        for (int b = width - 1; b >= 0; b--) {
          v[b] = (byte) k;
          k >>>= 8;
        }
        sorted[r] = v;
      }
      int[] ranks = new int[Math.max(16, used)];
      for (int i = 0; i < used; i++) {
        ranks[i] = Arrays.binarySearch(distinct, 0, m, keys[i]);
      }
      return compacted(sorted, start, ranks, n, multi);
    }

    /**
     * The length an array of {@code length} entries grows to so that it holds {@code used + count}.
     */
    private static int grownLength(int used, int count, int length, String name) {
      long grown = Math.max((long) used + count, length * 2L);
      if (grown > Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("field '" + name + "' has too many values: " + grown);
      }
      return (int) grown;
    }

    /**
     * Builds a field's ranks in time linear in its values plus one sort of its distinct ones: one
     * hash look-up per value gives it a provisional id (first-seen order), the distinct values are
     * sorted once, and the provisional ids are then mapped to ranks through an array.
     */
    static FieldRanks hashed(DocumentSource source, int fieldIndex, String name) {
      int n = source.size();
      Object2IntOpenCustomHashMap<byte[]> idOf =
          new Object2IntOpenCustomHashMap<>(Math.min(n, 1 << 16), ByteArrays.HASH_STRATEGY);
      idOf.defaultReturnValue(-1);
      List<byte[]> distinctValues = new ArrayList<>();
      int[] start = new int[n + 1];
      int[] ranks = new int[Math.max(16, n)];
      int used = 0;
      boolean multi = false;
      for (int doc = 0; doc < n; doc++) {
        start[doc] = used;
        List<byte[]> values = source.values(doc, fieldIndex);
        int count = values.size();
        if (used + count > ranks.length) {
          ranks = Arrays.copyOf(ranks, grownLength(used, count, ranks.length, name));
        }
        for (int i = 0; i < count; i++) {
          byte[] v = values.get(i);
          int id = idOf.putIfAbsent(v, distinctValues.size());
          if (id < 0) {
            id = distinctValues.size();
            distinctValues.add(v);
          }
          ranks[used++] = id;
        }
        multi |= count > 1;
      }
      start[n] = used;
      byte[][] sorted = distinctValues.toArray(new byte[0][]);
      Arrays.sort(sorted, Arrays::compareUnsigned);
      int[] rankOfId = new int[sorted.length];
      for (int r = 0; r < sorted.length; r++) {
        rankOfId[idOf.getInt(sorted[r])] = r;
      }
      for (int i = 0; i < used; i++) {
        ranks[i] = rankOfId[ranks[i]];
      }
      return compacted(sorted, start, ranks, n, multi);
    }

    /** With several values in some document: each document's distinct ranks, ascending. */
    private static FieldRanks compacted(
        byte[][] sorted, int[] start, int[] ranks, int n, boolean multi) {
      boolean singleValued = true;
      if (multi) {
        // each document's distinct ranks, ascending, compacted in place
        int w = 0;
        for (int doc = 0; doc < n; doc++) {
          int from = start[doc];
          int to = start[doc + 1];
          start[doc] = w;
          if (to - from > 1) {
            Arrays.sort(ranks, from, to);
          }
          for (int r = from; r < to; r++) {
            if (r == from || ranks[r] != ranks[r - 1]) {
              ranks[w++] = ranks[r];
            }
          }
          if (w - start[doc] > 1) {
            singleValued = false;
          }
        }
        start[n] = w;
      }
      return new FieldRanks(sorted, start, ranks, singleValued);
    }
  }

  /**
   * Encodes a field segment from its content in rank terms: postings grouped by rank (filterable),
   * the document-to-rank index (sortable). Shared by the writer and {@link PartitionUpdate}.
   */
  static ByteSink encodeRanks(Field field, int n, FieldRanks r) {
    String name = field.name();
    int distinct = r.sorted().length;
    int[] start = r.start();
    int[] ranks = r.ranks();
    int used = start[n];
    int[] prefix = null;
    int[] ids = null;
    if (field.role().isFilterable()) {
      prefix = new int[distinct + 1];
      for (int i = 0; i < used; i++) {
        prefix[ranks[i] + 1]++;
      }
      for (int v = 0; v < distinct; v++) {
        prefix[v + 1] += prefix[v];
      }
      ids = new int[used];
      int[] cursor = Arrays.copyOf(prefix, distinct);
      for (int doc = 0; doc < n; doc++) {
        for (int i = start[doc]; i < start[doc + 1]; i++) {
          ids[cursor[ranks[i]]++] = doc;
        }
      }
    }
    int[] docRanks = null;
    if (field.role().isSortable()) {
      docRanks = new int[n];
      if (bitWidth(distinct) > 0) {
        for (int doc = 0; doc < n; doc++) {
          if (start[doc + 1] - start[doc] != 1) {
            throw new IllegalStateException("field '" + name + "' needs one value per document");
          }
          docRanks[doc] = ranks[start[doc]];
        }
      }
    }
    return encodeField(field, n, r.sorted(), r.singleValued(), prefix, ids, docRanks);
  }

  /**
   * True when a filterable field gets a Bloom filter automatically: the partition has at least
   * {@link #AUTO_BLOOM_MIN_DOCUMENTS} documents and at least 0.8 distinct values per document.
   */
  static boolean autoBloomApplies(int documents, int distinct) {
    return documents >= AUTO_BLOOM_MIN_DOCUMENTS
        && (long) distinct * 100 >= (long) documents * AUTO_BLOOM_MIN_DISTINCT_PERCENT;
  }

  /**
   * Encodes one field segment (header, sorted value set, postings when filterable, document-to-rank
   * index when sortable) from the field's content in rank terms. Shared by the writer and by {@link
   * PartitionMerge}, so both produce the same bytes for the same content.
   *
   * @param n number of documents
   * @param sorted the distinct values in comparable-byte order (a value's index is its rank)
   * @param singleValued true when every document has at most one distinct value
   * @param prefix filterable only (else null): {@code distinct + 1} cumulative document counts
   * @param ids filterable only (else null): the documents of each rank, grouped by rank in rank
   *     order ({@code [prefix[r], prefix[r + 1])}), ascending within a rank
   * @param docRanks sortable only (else null): the rank of every document's value
   */
  static ByteSink encodeField(
      Field field,
      int n,
      byte[][] sorted,
      boolean singleValued,
      int[] prefix,
      int[] ids,
      int[] docRanks) {
    boolean filterable = field.role().isFilterable();
    boolean sortable = field.role().isSortable();
    int distinct = sorted.length;
    int width = fixedWidth(field.type());
    int idBytes = idBytes(n);
    // a close estimate of the segment's size, so the sink is not grown while encoding
    long estimate = FIELD_HEADER_SIZE + 64 + 4L * (distinct + 1);
    for (byte[] v : sorted) {
      estimate += v.length;
    }
    if (filterable) {
      estimate += 8L * (distinct + 1) + (long) prefix[distinct] * idBytes;
    }
    if (sortable) {
      estimate += ((long) n * bitWidth(distinct) + 7) / 8 + 16;
    }
    ByteSink sink = new ByteSink((int) Math.min(estimate, 1 << 30));
    int bitWidth = sortable ? bitWidth(distinct) : 0;
    sink.putInt(distinct).putInt(width).putInt(0).putInt(filterable ? idBytes : 0).putInt(bitWidth);
    sink.putInt(0).putLong(0).putLong(0).putLong(0);

    // Value set.
    sink.setLong(24, sink.size());
    if (width > 0) {
      for (byte[] v : sorted) {
        sink.putBytes(v);
      }
    } else {
      long totalBytes = 0;
      for (byte[] v : sorted) {
        totalBytes += v.length;
      }
      int offsetWidth = offsetWidth(totalBytes);
      sink.array()[20] = (byte) offsetWidth;
      int[] offsets = new int[distinct + 1];
      for (int i = 0; i < distinct; i++) {
        offsets[i + 1] = Math.addExact(offsets[i], sorted[i].length);
      }
      sink.putAll(offsets, 0, distinct + 1, offsetWidth);
      for (byte[] v : sorted) {
        sink.putBytes(v);
      }
    }
    sink.align8();

    int flags = singleValued ? FLAG_SINGLE_VALUED : 0;
    if (filterable) {
      sink.setLong(32, sink.size());
      int used = prefix[distinct];
      boolean allLists = true;
      for (int v = 0; v < distinct; v++) {
        if (!isList(prefix[v + 1] - prefix[v], idBytes, n)) {
          allLists = false;
          break;
        }
      }
      if (allLists) {
        flags |= FLAG_ALL_LISTS;
      }
      int prefixWidth = offsetWidth(used);
      long postingBytes = 0;
      for (int v = 0; v < distinct; v++) {
        int c = prefix[v + 1] - prefix[v];
        postingBytes += isList(c, idBytes, n) ? (long) c * idBytes : words(n) * 8L;
      }
      int postingWidth = offsetWidth(postingBytes);
      sink.array()[21] = (byte) prefixWidth;
      sink.array()[22] = (byte) (allLists ? 0 : postingWidth);
      sink.putAll(prefix, 0, distinct + 1, prefixWidth);
      int offsetsAt = sink.size();
      if (!allLists) {
        sink.skip(postingWidth * (distinct + 1));
      }
      int dataStart = sink.size();
      int words = words(n);
      long[] bitmap = null;
      for (int v = 0; v < distinct; v++) {
        if (!allLists) {
          sink.setUnsigned(offsetsAt + postingWidth * v, sink.size() - dataStart, postingWidth);
        }
        int from = prefix[v];
        int to = prefix[v + 1];
        if (isList(to - from, idBytes, n)) {
          sink.putAll(ids, from, to, idBytes);
        } else {
          if (bitmap == null) {
            bitmap = new long[words];
          } else {
            Arrays.fill(bitmap, 0L);
          }
          for (int i = from; i < to; i++) {
            int doc = ids[i];
            bitmap[doc >>> 6] |= 1L << doc;
          }
          sink.putLongs(bitmap, words);
        }
      }
      if (!allLists) {
        sink.setUnsigned(
            offsetsAt + postingWidth * distinct, sink.size() - dataStart, postingWidth);
      }
      sink.align8();
    }
    sink.setInt(8, flags);

    if (sortable) {
      sink.setLong(40, sink.size());
      long bits = (long) n * bitWidth;
      int bytes = (int) ((bits + 7) >>> 3);
      // a little-endian bit stream: packed into longs here, then written whole
      long[] packed = new long[(bytes + 8) >>> 3];
      if (bitWidth > 0) {
        for (int doc = 0; doc < n; doc++) {
          long bit = (long) doc * bitWidth;
          int word = (int) (bit >>> 6);
          int shift = (int) (bit & 63);
          long value = docRanks[doc] & 0xFFFF_FFFFL;
          packed[word] |= value << shift;
          if (shift + bitWidth > 64) {
            packed[word + 1] |= value >>> (64 - shift);
          }
        }
      }
      sink.putLongs(packed, packed.length);
      sink.skip(bytes + 8 - 8 * packed.length); // the last bytes of the stream are zero
      sink.align8();
    }
    return sink;
  }

  /** Bytes per entry of an offset or count table whose largest entry is {@code max}. */
  private static int offsetWidth(long max) {
    return max <= 0xFFFF ? 2 : 4;
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
        buffer = ByteBuffer.allocate(BUFFER_BYTES);
      }
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
    void write(java.lang.foreign.MemorySegment src) throws IOException {
      checkOpen();
      long len = src.byteSize();
      written += len;
      byte[] array = buffer.array();
      for (long off = 0; off < len; ) {
        int n = (int) Math.min(len - off, buffer.remaining());
        int at = buffer.position();
        java.lang.foreign.MemorySegment.copy(
            src, java.lang.foreign.ValueLayout.JAVA_BYTE, off, array, at, n);
        crc.update(array, at, n);
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
