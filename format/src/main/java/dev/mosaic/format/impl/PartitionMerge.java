package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseMerger;
import dev.mosaic.format.Field;
import dev.mosaic.format.FileSync;
import dev.mosaic.format.PayloadCompression;
import dev.mosaic.format.Schema;
import dev.mosaic.format.io.DurableFiles;
import dev.mosaic.format.io.DurableFiles.Replace;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntHeapPriorityQueue;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;

/**
 * Merges partition databases into one file without materializing documents (see {@link
 * DatabaseMerger}). Per field: a k-way merge of the inputs' sorted value sets gives the merged
 * values and, per input, a map from its value ranks to merged ranks; postings are concatenated in
 * input order with ids shifted by each input's first merged id (so they stay ascending), per-value
 * counts are summed, and the document-to-rank index is remapped. The field segment is then encoded
 * by {@link FieldSegmentEncoder#encodeField}, so the bytes are the writer's for the same content.
 * The payload segment is streamed: raw input payloads are copied, LZ4 blocks are copied as stored
 * (or re-blocked), and the header tables are rebased.
 *
 * <p>Thread safety: stateless; each call works on its own objects.
 */
public final class PartitionMerge {
  private PartitionMerge() {}

  /** The writer's default target size of one payload block. */
  public static final int DEFAULT_BLOCK_SIZE = DatabaseWriter.DEFAULT_BLOCK_SIZE;

  /**
   * The largest target payload block size a merge accepts (8 MiB), the same as a builder's: blocks
   * may be cut up to twice their target, which stays within what a reader accepts (16 MiB).
   */
  public static final int MAX_BLOCK_SIZE = FileFormat.MAX_PAYLOAD_BLOCK_RULE;

  /** Merge options (see {@link DatabaseMerger.Builder}). */
  public record Options(
      PayloadCompression compression,
      int blockSize,
      boolean copyCompressedBlocks,
      Set<String> bloomFields,
      boolean autoBloomFilters,
      boolean verifyChecksums) {}

  /**
   * Merges {@code inputs} ({@link Path}s, opened here and closed after, or open {@link Database}s)
   * into {@code output}.
   */
  public static DatabaseMerger.Summary merge(List<Object> inputs, Path output, Options options)
      throws IOException {
    long started = System.nanoTime();
    if (inputs.isEmpty()) {
      throw new IllegalArgumentException("nothing to merge: no input partition was given");
    }
    if (Files.exists(output)) {
      throw new FileAlreadyExistsException(output.toString(), null, "merge output already exists");
    }
    List<Database> opened = new ArrayList<>();
    try {
      List<DatabaseReader> readers = new ArrayList<>();
      for (Object input : inputs) {
        Database db;
        if (input instanceof Path path) {
          db = Database.open(path, options.verifyChecksums());
          opened.add(db);
        } else if (input instanceof Database database) {
          db = database;
        } else {
          throw new IllegalArgumentException(
              "input "
                  + readers.size()
                  + " ("
                  + input
                  + ") is not a partition database read by this library; composites"
                  + " cannot be merged");
        }
        readers.add(DatabaseReader.of(db));
      }
      return new PartitionMerge.Run(readers, output, options).run(started);
    } finally {
      for (Database db : opened) {
        db.close();
      }
    }
  }

  /** One merge. */
  private static final class Run {
    final List<DatabaseReader> inputs;
    final Path output;
    final Options options;
    final Schema schema;
    final int documents;

    /** First merged id of each input, and the total at the end. */
    final int[] base;

    Run(List<DatabaseReader> inputs, Path output, Options options) {
      this.inputs = inputs;
      this.output = output;
      this.options = options;
      this.schema = inputs.get(0).schema();
      for (int i = 1; i < inputs.size(); i++) {
        Schema other = inputs.get(i).schema();
        if (!other.equals(schema)) {
          throw new IllegalArgumentException(
              "input "
                  + i
                  + " ("
                  + inputs.get(i).source()
                  + ") has schema "
                  + other
                  + ", but input 0 ("
                  + inputs.get(0).source()
                  + ") has "
                  + schema
                  + ": only partitions of the same schema merge");
        }
      }
      for (String name : options.bloomFields()) {
        Field f = schema.field(name);
        if (f == null || !f.role().isFilterable()) {
          throw new IllegalArgumentException(
              "bloom filter on '" + name + "': not a filterable field of " + schema);
        }
      }
      base = new int[inputs.size() + 1];
      long total = 0;
      for (int i = 0; i < inputs.size(); i++) {
        base[i] = (int) total;
        total += inputs.get(i).documents();
        if (total > Integer.MAX_VALUE - 8) {
          throw new IllegalArgumentException(
              "the inputs hold more than " + (Integer.MAX_VALUE - 8) + " documents together");
        }
      }
      base[inputs.size()] = (int) total;
      documents = (int) total;
    }

    DatabaseMerger.Summary run(long started) throws IOException {
      List<SegmentFile.Segment> segments = new ArrayList<>();
      segments.add(
          new SegmentFile.Segment(KIND_SCHEMA, NO_FIELD, SchemaCodec.encode(schema), null));
      List<Field> fields = schema.fields();
      List<SegmentFile.Segment> blooms = new ArrayList<>();
      List<String> bloomNames = new ArrayList<>();
      try {
        for (int i = 0; i < fields.size(); i++) {
          Field field = fields.get(i);
          byte[][] sorted = mergeField(i, field, segments);
          if (wantsBloom(field, sorted.length)) {
            blooms.add(new SegmentFile.Segment(KIND_BLOOM, i, BloomFilter.build(sorted), null));
            bloomNames.add(field.name());
          }
        }
        PayloadPlan payload = planPayloads();
        segments.add(payload.segment());
        segments.addAll(blooms);
        int version =
            SegmentFile.formatVersion(payload.compressed, payload.tables.zstd(), !blooms.isEmpty());
        long size = write(segments, version);
        return new DatabaseMerger.Summary(
            output,
            inputs.size(),
            documents,
            size,
            version,
            payload.compressed,
            payload.compressed ? payload.copiedBlocks : 0,
            payload.compressed ? payload.newBlocks : 0,
            List.copyOf(bloomNames),
            System.nanoTime() - started);
      } catch (UncheckedIOException e) {
        // a damaged LZ4 block of an input (files opened without checksum verification)
        throw e.getCause();
      }
    }

    boolean wantsBloom(Field field, int distinct) {
      if (!field.role().isFilterable()) {
        return false;
      }
      // the writer's rules on the merged partition: an input's filter may have come from the
      // automatic rule on that input's statistics, which the merged partition need not meet
      return options.bloomFields().contains(field.name())
          || (options.autoBloomFilters() && DatabaseWriter.autoBloomApplies(documents, distinct));
    }

    /** Writes to a temporary file beside the output, then renames it; returns the size. */
    long write(List<SegmentFile.Segment> segments, int version) throws IOException {
      return DurableFiles.writeChannel(
          output,
          Replace.NEVER,
          FileSync.FORCE,
          ch -> {
            SegmentFile.Output out = new SegmentFile.Output(ch);
            SegmentFile.write(out, version, schema, documents, segments);
            out.finish();
          });
    }

    // ----- fields --------------------------------------------------------------------------------

    /** Adds the merged field segment to {@code segments}; returns the merged sorted values. */
    byte[][] mergeField(int index, Field field, List<SegmentFile.Segment> segments) {
      int k = inputs.size();
      FieldReader[] readers = new FieldReader[k];
      int[][] rankMap = new int[k][];
      byte[][] heads = new byte[k][];
      int[] next = new int[k];
      boolean singleValued = true;
      for (int i = 0; i < k; i++) {
        readers[i] = inputs.get(i).field(index);
        rankMap[i] = new int[readers[i].valueCount];
        singleValued &= readers[i].singleValued;
      }
      // k-way merge of the sorted value sets; ties go to the lower input
      IntHeapPriorityQueue heap =
          new IntHeapPriorityQueue(
              k,
              (a, b) -> {
                int c = Arrays.compareUnsigned(heads[a], heads[b]);
                return c != 0 ? c : Integer.compare(a, b);
              });
      for (int i = 0; i < k; i++) {
        if (readers[i].valueCount > 0) {
          heads[i] = readers[i].valueBytes(0);
          heap.enqueue(i);
        }
      }
      List<byte[]> merged = new ArrayList<>();
      byte[] last = null;
      while (!heap.isEmpty()) {
        int i = heap.dequeueInt();
        byte[] v = heads[i];
        if (last == null || !Arrays.equals(last, v)) {
          merged.add(v);
          last = v;
        }
        rankMap[i][next[i]++] = merged.size() - 1;
        if (next[i] < readers[i].valueCount) {
          heads[i] = readers[i].valueBytes(next[i]);
          heap.enqueue(i);
        } else {
          heads[i] = null;
        }
      }
      byte[][] sorted = merged.toArray(new byte[0][]);
      int distinct = sorted.length;

      int[] prefix = null;
      int[] ids = null;
      if (field.role().isFilterable()) {
        prefix = new int[distinct + 1];
        long used = 0;
        for (int i = 0; i < k; i++) {
          for (int j = 0; j < readers[i].valueCount; j++) {
            int c = readers[i].count(j);
            prefix[rankMap[i][j] + 1] += c;
            used += c;
          }
        }
        if (used > Integer.MAX_VALUE - 16) {
          throw new IllegalArgumentException(
              "field '" + field.name() + "' has too many values: " + used);
        }
        for (int v = 0; v < distinct; v++) {
          prefix[v + 1] += prefix[v];
        }
        ids = new int[(int) used];
        int[] cursor = Arrays.copyOf(prefix, distinct);
        for (int i = 0; i < k; i++) {
          FieldReader f = readers[i];
          int shift = base[i];
          for (int j = 0; j < f.valueCount; j++) {
            int r = rankMap[i][j];
            cursor[r] = appendPostings(f, j, shift, ids, cursor[r]);
          }
        }
      }
      int[] docRanks = null;
      if (field.role().isSortable()) {
        docRanks = new int[documents];
        for (int i = 0; i < k; i++) {
          FieldReader f = readers[i];
          int[] map = rankMap[i];
          int shift = base[i];
          int n = f.documents;
          for (int d = 0; d < n; d++) {
            docRanks[shift + d] = map[f.valueIndex(d)];
          }
        }
      }
      ByteSink sink =
          FieldSegmentEncoder.encodeField(
              field, documents, sorted, singleValued, prefix, ids, docRanks);
      segments.add(new SegmentFile.Segment(kindOf(field.role()), index, sink, null));
      return sorted;
    }

    /** Appends the documents of value {@code j}, shifted, at {@code at}; returns the new end. */
    private static int appendPostings(FieldReader f, int j, int shift, int[] ids, int at) {
      long posting = f.postingsOf(j);
      if (f.isListAt(j)) {
        int count = f.count(j);
        for (int x = 0; x < count; x++) {
          ids[at++] = shift + f.id(posting, x);
        }
        return at;
      }
      int words = words(f.documents);
      for (int w = 0; w < words; w++) {
        long word = f.data.get(LONG, posting + 8L * w);
        while (word != 0) {
          ids[at++] = shift + (w << 6) + Long.numberOfTrailingZeros(word);
          word &= word - 1;
        }
      }
      return at;
    }

    // ----- payloads ------------------------------------------------------------------------------

    /**
     * The payload segment to write: raw, or compressed blocks (copied and/or compressed here): zstd
     * blocks unless {@link PayloadCompression#LZ4} is asked for.
     */
    PayloadPlan planPayloads() {
      long total = 0;
      for (DatabaseReader input : inputs) {
        total += input.payloadBytesUncompressed();
      }
      int width = total <= 0xFFFF_FFFFL ? 4 : 8;
      long rawLength = 8 + (long) (documents + 1) * width + total;
      PayloadPlan raw = new PayloadPlan(false, width, rawLength, PayloadBlockTables.lz4(), null);
      if (options.compression() == PayloadCompression.NONE
          || total == 0
          || total > Integer.MAX_VALUE
          || largestPayload() > MAX_PAYLOAD_BLOCK_BYTES) {
        return raw;
      }
      PayloadPlan plan =
          options.compression() == PayloadCompression.LZ4
              ? new PayloadPlan(true, width, 0, PayloadBlockTables.lz4(), null)
              : zstdPlan(width);
      plan.blocks(
          new BlockSink() {
            @Override
            public void copied(int firstDoc, MemorySegment block, int dictionary) {
              plan.firstDocs.add(firstDoc);
              plan.blockLengths.add(block.byteSize());
              plan.copiedBlocks++;
              if (plan.tables.zstd()) {
                plan.tables.blockDictionary().add(dictionary);
              }
            }

            @Override
            public void compressed(int firstDoc, byte[] block, int length) {
              plan.firstDocs.add(firstDoc);
              plan.blockLengths.add(length);
              plan.newBlocks++;
              if (plan.tables.zstd()) {
                plan.tables.blockDictionary().add(plan.reblockDictionary);
              }
            }
          });
      long blockBytes = 0;
      for (int b = 0; b < plan.blockLengths.size(); b++) {
        blockBytes += plan.blockLengths.getLong(b);
      }
      int blocks = plan.firstDocs.size();
      plan.length = plan.tables.headLength(documents, width, blocks) + blockBytes;
      if (options.compression() == PayloadCompression.AUTO
          && plan.length > rawLength - rawLength / 10) {
        return raw;
      }
      return plan;
    }

    /**
     * The zstd layout's dictionaries: those of the copied inputs (equal ones once), then one
     * trained on the payloads that are re-blocked (as the writer trains on a partition's), if any.
     */
    private PayloadPlan zstdPlan(int width) {
      List<PayloadDictionary> dictionaries = new ArrayList<>();
      IntArrayList reblockedInputs = new IntArrayList();
      long reblockedBytes = 0;
      for (int i = 0; i < inputs.size(); i++) {
        DatabaseReader input = inputs.get(i);
        PayloadBlocks b = input.payloadBlocks();
        if (copies(b, true)) {
          for (int d = 0; d < b.dictionaryCount(); d++) {
            indexOf(dictionaries, b.dictionary(d));
          }
        } else {
          reblockedInputs.add(i);
          reblockedBytes += input.payloadBytesUncompressed();
        }
      }
      PayloadDictionary trained = null;
      int reblockDictionary = -1;
      if (!reblockedInputs.isEmpty()) {
        int[] starts = new int[reblockedInputs.size() + 1];
        for (int r = 0; r < reblockedInputs.size(); r++) {
          starts[r + 1] = starts[r] + inputs.get(reblockedInputs.getInt(r)).documents();
        }
        trained =
            PayloadDictionary.train(
                starts[reblockedInputs.size()],
                reblockedBytes,
                j -> {
                  int r = Arrays.binarySearch(starts, j);
                  r = r >= 0 ? r : -r - 2;
                  while (starts[r + 1] == j) {
                    r++; // skip inputs without documents
                  }
                  return inputs.get(reblockedInputs.getInt(r)).payloadBytes(j - starts[r]);
                });
        reblockDictionary = indexOf(dictionaries, trained);
      }
      PayloadPlan plan =
          new PayloadPlan(
              true,
              width,
              0,
              new PayloadBlockTables(List.copyOf(dictionaries), new IntArrayList()),
              trained);
      plan.reblockDictionary = reblockDictionary;
      return plan;
    }

    /** The index of a dictionary with {@code d}'s bytes, added at the end when there is none. */
    private static int indexOf(List<PayloadDictionary> dictionaries, PayloadDictionary d) {
      for (int i = 0; i < dictionaries.size(); i++) {
        if (dictionaries.get(i).sameBytes(d)) {
          return i;
        }
      }
      dictionaries.add(d);
      return dictionaries.size() - 1;
    }

    /** Whether an input's blocks are copied as stored into an output of zstd or LZ4 blocks. */
    private boolean copies(PayloadBlocks b, boolean zstdOutput) {
      return b != null && options.copyCompressedBlocks() && b.zstd() == zstdOutput;
    }

    /** The largest payload of any input (stored raw when over the largest block). */
    private long largestPayload() {
      long largest = 0;
      for (DatabaseReader input : inputs) {
        largest = Math.max(largest, input.largestPayload());
      }
      return largest;
    }

    /** Receives the payload blocks of the result in order. */
    interface BlockSink extends PayloadBlockCutter.Sink {
      /**
       * An input's block taken as stored, starting at merged document {@code firstDoc}, with the
       * output's dictionary {@code dictionary} (zstd; 0 for LZ4).
       */
      void copied(int firstDoc, MemorySegment block, int dictionary) throws IOException;
    }

    /** A payload segment layout and how to stream it. */
    final class PayloadPlan {
      final boolean compressed;
      final int width;
      long length;
      final PayloadBlockTables tables;

      /** Zstd: the dictionary of re-blocked payloads (null when none or LZ4), and its index. */
      final PayloadDictionary trained;

      int reblockDictionary = -1;
      final IntArrayList firstDocs = new IntArrayList();
      final it.unimi.dsi.fastutil.longs.LongArrayList blockLengths =
          new it.unimi.dsi.fastutil.longs.LongArrayList();
      int copiedBlocks;
      int newBlocks;

      PayloadPlan(
          boolean compressed,
          int width,
          long length,
          PayloadBlockTables tables,
          PayloadDictionary trained) {
        this.compressed = compressed;
        this.width = width;
        this.length = length;
        this.tables = tables;
        this.trained = trained;
      }

      SegmentFile.Segment segment() {
        int blocks = firstDocs.size();
        ByteSink head =
            new ByteSink(
                compressed
                    ? (int) tables.headLength(documents, width, blocks)
                    : 8 + (documents + 1) * width);
        if (compressed) {
          // the block rule is recorded only when every block was cut by it
          tables.putHeader(head, width, blocks, copiedBlocks == 0 ? options.blockSize() : 0);
        } else {
          head.putInt(width).putInt(0);
        }
        long offset = 0;
        for (DatabaseReader input : inputs) {
          int n = input.documents();
          PayloadBlocks b = input.payloadBlocks();
          for (int d = 0; d < n; d++) {
            putOffset(head, offset + (b != null ? b.logical(d) : input.rawPayloadOffset(d)));
          }
          offset += input.payloadBytesUncompressed();
        }
        putOffset(head, offset);
        if (compressed) {
          tables.putTables(head, documents, firstDocs, blockLengths::getLong);
        }
        long bodyLength = length - head.size();
        SegmentFile.Segment segment =
            new SegmentFile.Segment(
                KIND_PAYLOAD,
                NO_FIELD,
                head,
                bodyLength,
                compressed ? this::writeBlocks : out -> writeRaw(out));
        segment.compressed = compressed;
        segment.zstd = compressed && tables.zstd();
        return segment;
      }

      private void putOffset(ByteSink head, long offset) {
        if (width == 4) {
          head.putInt((int) offset);
        } else {
          head.putLong(offset);
        }
      }

      private void writeBlocks(SegmentFile.Output out) throws IOException {
        blocks(
            new BlockSink() {
              int block;

              @Override
              public void copied(int firstDoc, MemorySegment bytes, int dictionary)
                  throws IOException {
                check(bytes.byteSize());
                out.write(bytes);
              }

              @Override
              public void compressed(int firstDoc, byte[] bytes, int length) throws IOException {
                check(length);
                out.write(bytes, 0, length);
              }

              private void check(long length) {
                if (length != blockLengths.getLong(block++)) {
                  throw new IllegalStateException("block " + (block - 1) + " changed size");
                }
              }
            });
      }

      /**
       * The blocks of the result in order: maximal runs of inputs that are not copied are
       * re-blocked exactly as the writer blocks a database's payloads; inputs compressed as the
       * output is are copied block by block when {@link Options#copyCompressedBlocks()}.
       */
      void blocks(BlockSink sink) {
        try {
          PayloadBlockCutter reblocker =
              new PayloadBlockCutter(
                  options.blockSize(),
                  tables.zstd()
                      ? BlockCompressor.zstd(trained != null ? trained : PayloadDictionary.NONE)
                      : BlockCompressor.lz4(),
                  sink);
          for (int i = 0; i < inputs.size(); i++) {
            DatabaseReader input = inputs.get(i);
            PayloadBlocks b = input.payloadBlocks();
            if (copies(b, tables.zstd())) {
              reblocker.close();
              int[] dictionaries = new int[b.dictionaryCount()];
              for (int d = 0; d < dictionaries.length; d++) {
                dictionaries[d] = indexOf(tables.dictionaries(), b.dictionary(d));
              }
              for (int k = 0; k < b.blockCount(); k++) {
                sink.copied(
                    base[i] + b.blockFirstDocument(k),
                    b.compressedBlock(k),
                    b.zstd() ? dictionaries[b.blockDictionary(k)] : 0);
              }
              continue;
            }
            int n = input.documents();
            if (b == null) {
              MemorySegment all = input.rawPayloads(0, n);
              for (int d = 0; d < n; d++) {
                long from = input.rawPayloadOffset(d);
                reblocker.add(base[i] + d, all, from, (int) (input.rawPayloadOffset(d + 1) - from));
              }
            } else {
              for (int k = 0; k < b.blockCount(); k++) {
                int from = b.blockFirstDocument(k);
                int to = b.blockFirstDocument(k + 1);
                byte[] block = decompress(input, b, k);
                long start = b.logical(from);
                MemorySegment s = MemorySegment.ofArray(block);
                for (int d = from; d < to; d++) {
                  reblocker.add(
                      base[i] + d,
                      s,
                      b.logical(d) - start,
                      (int) (b.logical(d + 1) - b.logical(d)));
                }
              }
            }
          }
          reblocker.close();
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      }

      private void writeRaw(SegmentFile.Output out) throws IOException {
        for (DatabaseReader input : inputs) {
          PayloadBlocks b = input.payloadBlocks();
          if (b == null) {
            out.write(input.rawPayloads(0, input.documents()));
          } else {
            for (int k = 0; k < b.blockCount(); k++) {
              byte[] block = decompress(input, b, k);
              out.write(
                  block,
                  0,
                  (int)
                      (b.logical(b.blockFirstDocument(k + 1))
                          - b.logical(b.blockFirstDocument(k))));
            }
          }
        }
      }
    }

    /** Reused buffers for decompressing input blocks. */
    private byte[] compressedScratch = new byte[0];

    private byte[] decompressedScratch = new byte[0];

    /**
     * Decompresses one block of an input, checking its size; the bytes are the returned array's
     * first {@code logical(last) - logical(first)} bytes, valid until the next call.
     */
    private byte[] decompress(DatabaseReader input, PayloadBlocks b, int k) {
      long from = b.logical(b.blockFirstDocument(k));
      long to = b.logical(b.blockFirstDocument(k + 1));
      MemorySegment compressed = b.compressedBlock(k);
      long size = to - from;
      if (size < 0
          || size > MAX_PAYLOAD_BLOCK_BYTES
          || (!b.zstd() && size > 255L * compressed.byteSize() + 64)
          || compressed.byteSize() > Integer.MAX_VALUE) {
        throw corrupt(input, k, "claims " + size + " bytes from " + compressed.byteSize());
      }
      int length = (int) compressed.byteSize();
      if (compressedScratch.length < length) {
        compressedScratch = new byte[Math.max(length, compressedScratch.length * 2)];
      }
      if (decompressedScratch.length < size) {
        decompressedScratch = new byte[(int) Math.max(size, decompressedScratch.length * 2L)];
      }
      // array to array: the decompressors are much slower on direct buffers
      MemorySegment.copy(compressed, ValueLayout.JAVA_BYTE, 0, compressedScratch, 0, length);
      String problem = b.decode(k, compressedScratch, length, decompressedScratch, (int) size);
      if (problem != null) {
        throw corrupt(input, k, problem);
      }
      return decompressedScratch;
    }

    private static UncheckedIOException corrupt(DatabaseReader input, int block, String problem) {
      return new UncheckedIOException(
          new CorruptDatabaseException(
              input.source(), "payload", 0, "payload block " + block + ": " + problem));
    }
  }
}
