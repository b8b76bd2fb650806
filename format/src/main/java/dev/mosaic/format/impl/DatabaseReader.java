package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.Database;
import dev.mosaic.format.DocumentProcessor;
import dev.mosaic.format.Field;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Query;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * One database read in place from a {@link MemorySegment}: a memory-mapped file or an array.
 * Opening checks the structure (header, directory, every segment's bounds) and builds a few small
 * objects holding offsets; nothing else is read until a query needs it.
 *
 * <p>Thread safety: immutable after construction; any number of threads may query concurrently. The
 * read path takes no locks; each query allocates its own scratch bit sets, sized to this partition.
 * NOTE: after {@link #close()} every query throws {@link IllegalStateException}; payload views of a
 * mapped file handed out earlier throw it too once the mapping is released.
 */
public final class DatabaseReader implements Database {
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

  /** Evaluates conditions on this partition. */
  private final ConditionEvaluator evaluator;

  private volatile boolean closed;

  private DatabaseReader(
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
    this.evaluator = new ConditionEvaluator(this::field, documents, blooms);
  }

  // ----- opening -------------------------------------------------------------------------------

  public static Database open(Path file, boolean verifyChecksum) throws IOException {
    Arena arena = Arena.ofShared();
    try {
      return mapInto(file, arena, arena, verifyChecksum);
    } catch (IOException | RuntimeException | Error e) {
      arena.close();
      throw e;
    }
  }

  public static Database map(Path file, Arena arena, boolean verifyChecksum) throws IOException {
    return mapInto(file, arena, null, verifyChecksum);
  }

  private static Database mapInto(Path file, Arena arena, Arena owned, boolean verify)
      throws IOException {
    String source = file.toString();
    MemorySegment data;
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      long size = ch.size();
      if (size < HEADER_SIZE + TRAILER_SIZE) {
        throw new CorruptDatabaseException(
            source,
            "header",
            size,
            "truncated: " + size + " bytes, shorter than header and trailer");
      }
      data = ch.map(FileChannel.MapMode.READ_ONLY, 0, size, arena);
    }
    return read(data, source, owned, verify);
  }

  public static Database fromBytes(byte[] bytes) throws CorruptDatabaseException {
    return read(
        MemorySegment.ofArray(bytes).asReadOnly(), "bytes[" + bytes.length + "]", null, true);
  }

  public static Schema verify(Path file) throws IOException {
    try (Arena arena = Arena.ofConfined()) {
      return mapInto(file, arena, null, true).schema();
    }
  }

  private static DatabaseReader read(
      MemorySegment data, String source, Arena owned, boolean verifyChecksum)
      throws CorruptDatabaseException {
    try {
      return readChecked(data, source, owned, verifyChecksum);
    } catch (IndexOutOfBoundsException e) {
      // the segment's bounds checks caught a structure pointing outside the file
      throw new CorruptDatabaseException(
          source, "structure", 0, "an offset or length points outside the file: " + e.getMessage());
    }
  }

  private static DatabaseReader readChecked(
      MemorySegment data, String source, Arena owned, boolean verifyChecksum)
      throws CorruptDatabaseException {
    long size = data.byteSize();
    if (size < HEADER_SIZE + TRAILER_SIZE) {
      throw new CorruptDatabaseException(
          source, "header", size, "truncated: " + size + " bytes, shorter than header and trailer");
    }
    if (data.get(LONG, 0) != MAGIC) {
      throw new CorruptDatabaseException(source, "header", 0, "wrong magic: not a Mosaic database");
    }
    int version = data.get(INT, 8);
    if (version < FORMAT_VERSION_1 || version > MAX_FORMAT_VERSION) {
      throw new CorruptDatabaseException(
          source,
          "header",
          8,
          "unsupported format version "
              + version
              + " (this reader reads 1 to "
              + MAX_FORMAT_VERSION
              + ")");
    }
    int schemaVersion = data.get(INT, 12);
    int checksumKind = data.get(ValueLayout.JAVA_BYTE, 16);
    if (checksumKind != CHECKSUM_CRC32C) {
      throw new CorruptDatabaseException(
          source, "header", 16, "unknown checksum kind " + checksumKind);
    }
    int documents = data.get(INT, 20);
    int segmentCount = data.get(INT, 24);
    if (documents < 0) {
      throw new CorruptDatabaseException(
          source, "header", 20, "negative document count " + documents);
    }
    long trailer = size - TRAILER_SIZE;
    if (data.get(INT, size - 4) != END_MAGIC) {
      throw new CorruptDatabaseException(
          source, "trailer", size - 4, "truncated or corrupt: no end marker in the last 4 bytes");
    }
    long declared = data.get(LONG, trailer);
    if (declared != size) {
      throw new CorruptDatabaseException(
          source,
          "trailer",
          trailer,
          "length mismatch: trailer says " + declared + " bytes, found " + size);
    }
    if (verifyChecksum) {
      verifyChecksum(data, source);
    }
    long directoryEnd = HEADER_SIZE + (long) DIRECTORY_ENTRY_SIZE * segmentCount;
    if (segmentCount < 2 || directoryEnd > trailer) {
      throw new CorruptDatabaseException(
          source, "directory", 24, "bad segment count " + segmentCount);
    }
    long[] offsets = new long[segmentCount];
    long[] lengths = new long[segmentCount];
    int[] kinds = new int[segmentCount];
    int[] fieldIndexes = new int[segmentCount];
    long previousEnd = directoryEnd;
    for (int i = 0; i < segmentCount; i++) {
      long entry = HEADER_SIZE + (long) DIRECTORY_ENTRY_SIZE * i;
      kinds[i] = data.get(ValueLayout.JAVA_BYTE, entry);
      fieldIndexes[i] = data.get(INT, entry + 4);
      offsets[i] = data.get(LONG, entry + 8);
      lengths[i] = data.get(LONG, entry + 16);
      if (offsets[i] < previousEnd || lengths[i] < 0 || lengths[i] > trailer - offsets[i]) {
        throw new CorruptDatabaseException(
            source,
            "directory",
            entry,
            "segment "
                + i
                + " ("
                + kindName(kinds[i])
                + ") at "
                + offsets[i]
                + " length "
                + lengths[i]
                + " is out of bounds");
      }
      previousEnd = offsets[i] + lengths[i];
    }
    if (kinds[0] != KIND_SCHEMA) {
      throw new CorruptDatabaseException(
          source, "directory", HEADER_SIZE, "first segment is not the schema");
    }
    Schema schema = SchemaCodec.decode(data, offsets[0], lengths[0], source);
    if (schema.version() != schemaVersion) {
      throw new CorruptDatabaseException(
          source,
          "schema",
          offsets[0],
          "schema version " + schema.version() + " but header says " + schemaVersion);
    }
    int fieldCount = schema.fields().size();
    int bloomCount = segmentCount - fieldCount - 2;
    if (bloomCount < 0 || (version < FORMAT_VERSION_2 && bloomCount != 0)) {
      throw new CorruptDatabaseException(
          source, "directory", 24, segmentCount + " segments for " + fieldCount + " fields");
    }
    long[] fieldSegments = new long[2 * fieldCount];
    for (int i = 0; i < fieldCount; i++) {
      int s = i + 1;
      Field f = schema.fields().get(i);
      long entry = HEADER_SIZE + (long) DIRECTORY_ENTRY_SIZE * s;
      if (kinds[s] != kindOf(f.role()) || fieldIndexes[s] != i) {
        throw new CorruptDatabaseException(
            source,
            "directory",
            entry,
            "segment " + s + " should be field " + i + " (" + f.name() + ")");
      }
      new FieldReader(data, f, documents, offsets[s], lengths[s], source); // validates
      fieldSegments[2 * i] = offsets[s];
      fieldSegments[2 * i + 1] = lengths[s];
    }
    int p = fieldCount + 1;
    if (kinds[p] != KIND_PAYLOAD) {
      throw new CorruptDatabaseException(
          source,
          "directory",
          HEADER_SIZE + (long) DIRECTORY_ENTRY_SIZE * p,
          "segment " + p + " is not the payload");
    }
    BloomFilter[] blooms = new BloomFilter[fieldCount];
    int previousBloom = -1;
    for (int s = p + 1; s < segmentCount; s++) {
      int field = fieldIndexes[s];
      if (kinds[s] != KIND_BLOOM
          || field <= previousBloom
          || field >= fieldCount
          || !schema.fields().get(field).role().isFilterable()) {
        throw new CorruptDatabaseException(
            source,
            "directory",
            HEADER_SIZE + (long) DIRECTORY_ENTRY_SIZE * s,
            "segment "
                + s
                + " is not a bloom filter of a filterable field after field "
                + previousBloom);
      }
      blooms[field] = BloomFilter.read(source, data, offsets[s], lengths[s]);
      previousBloom = field;
    }
    long base = offsets[p];
    if (lengths[p] < 8) {
      throw new CorruptDatabaseException(source, "payload", base, "payload segment too short");
    }
    int payloadFlags = data.get(INT, base + 4);
    if (payloadFlags != 0
        && !(payloadFlags == PAYLOAD_FLAG_LZ4_BLOCKS && version >= FORMAT_VERSION_2)
        && !(payloadFlags == PAYLOAD_FLAG_ZSTD_BLOCKS && version >= FORMAT_VERSION_3)) {
      throw new CorruptDatabaseException(
          source,
          "payload",
          base + 4,
          "unknown payload flags " + payloadFlags + " for format version " + version);
    }
    if (payloadFlags != 0) {
      PayloadBlocks blocks = PayloadBlocks.read(source, data, documents, base, lengths[p]);
      return new DatabaseReader(
          source, data, owned, schema, documents, version, fieldSegments, 0, 0, 0, blocks, blooms);
    }
    int width = data.get(INT, base);
    long table = base + 8;
    long payloadData = table + (long) width * (documents + 1L);
    if ((width != 4 && width != 8) || payloadData > base + lengths[p]) {
      throw new CorruptDatabaseException(source, "payload", base, "bad payload offset table");
    }
    long payloadEnd =
        payloadData
            + (width == 4
                ? data.get(INT, table + 4L * documents) & 0xFFFF_FFFFL
                : data.get(LONG, table + 8L * documents));
    if (payloadEnd != base + lengths[p]) {
      throw new CorruptDatabaseException(
          source, "payload", table, "payload bytes do not match the segment length");
    }
    return new DatabaseReader(
        source,
        data,
        owned,
        schema,
        documents,
        version,
        fieldSegments,
        table,
        width,
        payloadData,
        null,
        blooms);
  }

  private static void verifyChecksum(MemorySegment data, String source)
      throws CorruptDatabaseException {
    long covered = data.byteSize() - 8;
    CRC32C crc = new CRC32C();
    for (long off = 0; off < covered; ) {
      long n = Math.min(covered - off, 1 << 30);
      crc.update(data.asSlice(off, n).asByteBuffer());
      off += n;
    }
    int stored = data.get(INT, covered);
    int computed = (int) crc.getValue();
    if (stored != computed) {
      throw new CorruptDatabaseException(
          source,
          "trailer",
          covered,
          String.format("checksum mismatch: stored CRC32C %08x, computed %08x", stored, computed));
    }
  }

  // ----- Database ------------------------------------------------------------------------------

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public long documentCount() {
    return documents;
  }

  /** Number of documents, as an int. */
  public int documents() {
    return documents;
  }

  @Override
  public long sizeInBytes() {
    return data.byteSize();
  }

  @Override
  public int formatVersion() {
    return formatVersion;
  }

  /** The file name or description of the bytes. */
  public String source() {
    return source;
  }

  @Override
  public String toString() {
    return "Database{" + source + ", " + documents + " documents}";
  }

  @Override
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
   * {@inheritDoc}
   *
   * <p>For raw payloads (format version 1, or version 2 without compression) this is a zero-copy
   * slice of the mapping. NOTE: for LZ4-compressed payloads it decompresses the document's block
   * (kept per thread, so reading consecutive documents decompresses each block once) and returns a
   * read-only segment over a fresh heap array holding a copy of the payload.
   */
  @Override
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

  @Override
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

  @Override
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

  @Override
  public Object sortableValue(int document, String field) {
    FieldReader f = sortableField(field);
    return f.field.type().decode(sortableBytes(f, document));
  }

  @Override
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

  @Override
  public dev.mosaic.format.CompiledQuery compile(
      Query query,
      java.util.List<dev.mosaic.format.query.Facet> facets,
      java.util.List<dev.mosaic.format.query.Stats> stats) {
    return Plan.compile(schema, query, facets, stats);
  }

  @Override
  public long count(dev.mosaic.format.CompiledQuery query) {
    Plan plan = Plan.of(query, schema);
    ensureOpen();
    return count(plan.condition);
  }

  @Override
  public void execute(dev.mosaic.format.CompiledQuery query, DocumentProcessor processor) {
    Plan plan = Plan.of(query, schema);
    ensureOpen();
    execute(plan, processor);
  }

  @Override
  public dev.mosaic.format.Aggregation aggregate(dev.mosaic.format.CompiledQuery query) {
    Aggregator aggregator = new Aggregator(schema, Plan.of(query, schema));
    aggregator.add(this);
    return aggregator.result();
  }

  /** The total, aggregation and page from one evaluation of the condition. */
  @Override
  public dev.mosaic.format.Page page(dev.mosaic.format.CompiledQuery query) {
    Plan plan = Plan.of(query, schema);
    Aggregator aggregator = new Aggregator(schema, plan);
    ensureOpen();
    Matches m = evaluate(plan.condition);
    long total = aggregator.add(this, m, -1);
    java.util.List<dev.mosaic.format.Hit> hits = new java.util.ArrayList<>();
    if (total > 0 && plan.limit > 0) {
      emit(plan, m, (doc, db) -> hits.add(new dev.mosaic.format.Hit(0, doc, this)));
    }
    dev.mosaic.format.Aggregation aggregation = aggregator.result();
    return new dev.mosaic.format.Page(aggregation.count(), hits, aggregation);
  }

  @Override
  public dev.mosaic.format.Explanation explain(dev.mosaic.format.CompiledQuery query) {
    Plan plan = Plan.of(query, schema);
    ensureOpen();
    return explain(plan, "partition " + source);
  }

  /**
   * The trace of a query on this partition, named {@code name} (see {@link PartitionExplainer}).
   */
  dev.mosaic.format.Explanation explain(Plan plan, String name) {
    return new PartitionExplainer(this, schema, blooms).explain(plan, name);
  }

  // ----- execution -----------------------------------------------------------------------------

  long count(Plan.Node node) {
    return count(node, null);
  }

  /** Number of matches, with leaf ranks resolved as in {@link #evaluate(Plan.Node, int[])}. */
  long count(Plan.Node node, int[] resolved) {
    if (node instanceof Plan.Not not) {
      return documents - count(not.child(), resolved);
    }
    return count(evaluate(node, resolved));
  }

  void execute(Plan plan, DocumentProcessor processor) {
    if (plan.limit == 0) {
      return;
    }
    emit(plan, evaluate(plan.condition), processor);
  }

  /** Emits the plan's page of matches {@code m} of its condition. */
  private void emit(Plan plan, Matches m, DocumentProcessor processor) {
    if (m.kind == Matches.NONE) {
      return;
    }
    if (!plan.ordered()) {
      emitInDocumentOrder(m, plan.skip, plan.limit, processor);
      return;
    }
    int[] docs = Ordering.top(this, m, plan.orderFields, plan.descending, plan.wanted());
    for (int i = plan.skip; i < docs.length; i++) {
      if (!processor.process(docs[i], this)) {
        return;
      }
    }
  }

  /**
   * Emits matches in document order after skipping {@code skip}, at most {@code limit}.
   *
   * @return the number of matches skipped (when fewer than skip matched) as a negative number, or
   *     the count emitted; -1L << 62 when the processor stopped
   */
  long emitInDocumentOrder(Matches m, long skip, long limit, DocumentProcessor processor) {
    long seen = 0;
    long end = skip + limit;
    if (m.kind == Matches.ALL) {
      for (int doc = (int) Math.min(skip, documents); doc < documents && doc < end; doc++) {
        if (!processor.process(doc, this)) {
          return STOPPED;
        }
      }
      return Math.max(0, Math.min(end, documents) - skip);
    }
    if (m.kind == Matches.IDS) {
      int count = m.from;
      for (int i = (int) Math.min(skip, count); i < count && i < end; i++) {
        if (!processor.process(m.ids[i], this)) {
          return STOPPED;
        }
      }
      return Math.max(0, Math.min(end, count) - skip);
    }
    if (m.singleValue() && m.field.isListAt(m.from)) {
      FieldReader f = m.field;
      int count = f.count(m.from);
      long at = f.postingsOf(m.from);
      for (int i = (int) Math.min(skip, count); i < count && i < end; i++) {
        if (!processor.process(f.id(at, i), this)) {
          return STOPPED;
        }
      }
      return Math.max(0, Math.min(end, count) - skip);
    }
    long[] bits = materialize(m);
    for (int w = 0; w < bits.length; w++) {
      long word = bits[w];
      while (word != 0) {
        int doc = (w << 6) + Long.numberOfTrailingZeros(word);
        word &= word - 1;
        if (seen >= skip) {
          if (!processor.process(doc, this)) {
            return STOPPED;
          }
        }
        seen++;
        if (seen >= end) {
          return seen - skip;
        }
      }
    }
    return Math.max(0, seen - skip);
  }

  static final long STOPPED = -1L << 62;

  /** A slot of a resolved-ranks array whose value was not looked up: search the value set. */
  static final int UNRESOLVED = Integer.MIN_VALUE;

  Matches evaluate(Plan.Node node) {
    return evaluator.evaluate(node, null);
  }

  /** See {@link ConditionEvaluator#evaluate(Plan.Node, int[])}. */
  Matches evaluate(Plan.Node node, int[] resolved) {
    return evaluator.evaluate(node, resolved);
  }

  long count(Matches m) {
    return evaluator.count(m);
  }

  /** A fresh bit set of the matches (per-query scratch). */
  long[] materialize(Matches m) {
    return evaluator.materialize(m);
  }

  /** The matching documents, ascending (a fresh array, or the matches' own ids). */
  int[] documentIds(Matches m) {
    return evaluator.documentIds(m);
  }

  /** Schema encoding shared with the writer. */
  static final class SchemaCodec {
    private SchemaCodec() {}

    /**
     * Decoded schemas by their encoded bytes, so that the many partitions of one schema share one
     * {@link Schema} instance (a few hundred bytes each otherwise). Bounded: cleared when full.
     */
    private static final java.util.concurrent.ConcurrentHashMap<java.nio.ByteBuffer, Schema> CACHE =
        new java.util.concurrent.ConcurrentHashMap<>();

    private static final int CACHE_LIMIT = 64;

    static Schema decode(MemorySegment data, long base, long length, String source)
        throws CorruptDatabaseException {
      if (length > 1 << 20) {
        return parse(data, base, length, source);
      }
      java.nio.ByteBuffer key =
          java.nio.ByteBuffer.wrap(data.asSlice(base, length).toArray(ValueLayout.JAVA_BYTE));
      Schema cached = CACHE.get(key);
      if (cached != null) {
        return cached;
      }
      Schema schema = parse(data, base, length, source);
      if (CACHE.size() >= CACHE_LIMIT) {
        CACHE.clear();
      }
      Schema raced = CACHE.putIfAbsent(key, schema);
      return raced != null ? raced : schema;
    }

    private static Schema parse(MemorySegment data, long base, long length, String source)
        throws CorruptDatabaseException {
      long end = base + length;
      long at = base;
      try {
        int version = data.get(INT, at);
        at += 4;
        int len = data.get(SHORT, at) & 0xFFFF;
        at += 2;
        String payloadType = string(data, at, len, end);
        at += len;
        int count = data.get(INT, at);
        at += 4;
        if (count < 0 || count > length) {
          throw new CorruptDatabaseException(source, "schema", at - 4, "bad field count " + count);
        }
        Schema.Builder b = Schema.builder().version(version).payloadType(payloadType);
        for (int i = 0; i < count; i++) {
          len = data.get(SHORT, at) & 0xFFFF;
          at += 2;
          String name = string(data, at, len, end);
          at += len;
          FieldType type = typeOf(data.get(ValueLayout.JAVA_BYTE, at));
          FieldRole role = roleOf(data.get(ValueLayout.JAVA_BYTE, at + 1));
          if (type == null || role == null) {
            throw new CorruptDatabaseException(
                source, "schema", at, "unknown type or role of field '" + name + "'");
          }
          at += 2;
          b.field(name, type, role);
        }
        if (at > end) {
          throw new CorruptDatabaseException(source, "schema", end, "schema exceeds its segment");
        }
        return b.build();
      } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
        throw new CorruptDatabaseException(
            source, "schema", at, "unreadable schema: " + e.getMessage());
      }
    }

    private static String string(MemorySegment data, long at, int len, long end) {
      if (at + len > end) {
        throw new IndexOutOfBoundsException(
            "string of " + len + " bytes exceeds the schema segment");
      }
      byte[] b = new byte[len];
      MemorySegment.copy(data, ValueLayout.JAVA_BYTE, at, b, 0, len);
      return new String(b, StandardCharsets.UTF_8);
    }
  }
}
