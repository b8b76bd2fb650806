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
import net.jpountz.lz4.LZ4Exception;
import net.jpountz.lz4.LZ4SafeDecompressor;

/**
 * Merges partition databases into one file without materializing documents (see {@link
 * DatabaseMerger}). Per field: a k-way merge of the inputs' sorted value sets gives the merged
 * values and, per input, a map from its value ranks to merged ranks; postings are concatenated in
 * input order with ids shifted by each input's first merged id (so they stay ascending), per-value
 * counts are summed, and the document-to-rank index is remapped. The field segment is then encoded
 * by {@link DatabaseWriter#encodeField}, so the bytes are the writer's for the same content. The
 * payload segment is streamed: raw input payloads are copied, LZ4 blocks are copied as stored (or
 * re-blocked), and the header tables are rebased.
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
        } else {
          db = (Database) input;
        }
        if (!(db instanceof DatabaseReader reader)) {
          throw new IllegalArgumentException(
              "input "
                  + readers.size()
                  + " ("
                  + db
                  + ") is not a partition database read by this library; composites and wrappers"
                  + " cannot be merged");
        }
        readers.add(reader);
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
      List<DatabaseWriter.Segment> segments = new ArrayList<>();
      segments.add(
          new DatabaseWriter.Segment(
              KIND_SCHEMA, NO_FIELD, DatabaseWriter.schemaBytes(schema), null));
      List<Field> fields = schema.fields();
      List<DatabaseWriter.Segment> blooms = new ArrayList<>();
      List<String> bloomNames = new ArrayList<>();
      try {
        for (int i = 0; i < fields.size(); i++) {
          Field field = fields.get(i);
          byte[][] sorted = mergeField(i, field, segments);
          if (wantsBloom(field, sorted.length)) {
            blooms.add(new DatabaseWriter.Segment(KIND_BLOOM, i, BloomFilter.build(sorted), null));
            bloomNames.add(field.name());
          }
        }
        PayloadPlan payload = planPayloads();
        segments.add(payload.segment());
        segments.addAll(blooms);
        int version = DatabaseWriter.formatVersion(payload.compressed, !blooms.isEmpty());
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
    long write(List<DatabaseWriter.Segment> segments, int version) throws IOException {
      return DurableFiles.writeChannel(
          output,
          Replace.NEVER,
          FileSync.FORCE,
          ch -> {
            DatabaseWriter.Output out = new DatabaseWriter.Output(ch);
            DatabaseWriter.writeFile(out, version, schema, documents, segments);
            out.flush();
          });
    }

    // ----- fields --------------------------------------------------------------------------------

    /** Adds the merged field segment to {@code segments}; returns the merged sorted values. */
    byte[][] mergeField(int index, Field field, List<DatabaseWriter.Segment> segments) {
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
          DatabaseWriter.encodeField(field, documents, sorted, singleValued, prefix, ids, docRanks);
      segments.add(new DatabaseWriter.Segment(kindOf(field.role()), index, sink, null));
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

    /** The payload segment to write: raw, or LZ4 blocks (copied and/or compressed here). */
    PayloadPlan planPayloads() {
      long total = 0;
      for (DatabaseReader input : inputs) {
        total += input.payloadBytesUncompressed();
      }
      int width = total <= 0xFFFF_FFFFL ? 4 : 8;
      long rawLength = 8 + (long) (documents + 1) * width + total;
      PayloadPlan raw = new PayloadPlan(false, width, rawLength);
      if (options.compression() == PayloadCompression.NONE
          || total == 0
          || total > Integer.MAX_VALUE
          || largestPayload() > MAX_PAYLOAD_BLOCK_BYTES) {
        return raw;
      }
      PayloadPlan lz4 = new PayloadPlan(true, width, 0);
      lz4.blocks(
          new BlockSink() {
            @Override
            public void copied(int firstDoc, MemorySegment block) {
              lz4.firstDocs.add(firstDoc);
              lz4.blockLengths.add(block.byteSize());
              lz4.copiedBlocks++;
            }

            @Override
            public void compressed(int firstDoc, byte[] block, int length) {
              lz4.firstDocs.add(firstDoc);
              lz4.blockLengths.add(length);
              lz4.newBlocks++;
            }
          });
      long blockBytes = 0;
      for (int b = 0; b < lz4.blockLengths.size(); b++) {
        blockBytes += lz4.blockLengths.getLong(b);
      }
      int blocks = lz4.firstDocs.size();
      lz4.length = 16 + (long) (documents + 1) * width + (blocks + 1) * 12L + blockBytes;
      if (options.compression() == PayloadCompression.AUTO
          && lz4.length > rawLength - rawLength / 10) {
        return raw;
      }
      return lz4;
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
      /** An input's LZ4 block taken as stored, starting at merged document {@code firstDoc}. */
      void copied(int firstDoc, MemorySegment block) throws IOException;
    }

    /** A payload segment layout and how to stream it. */
    final class PayloadPlan {
      final boolean compressed;
      final int width;
      long length;
      final IntArrayList firstDocs = new IntArrayList();
      final it.unimi.dsi.fastutil.longs.LongArrayList blockLengths =
          new it.unimi.dsi.fastutil.longs.LongArrayList();
      int copiedBlocks;
      int newBlocks;

      PayloadPlan(boolean compressed, int width, long length) {
        this.compressed = compressed;
        this.width = width;
        this.length = length;
      }

      DatabaseWriter.Segment segment() {
        int blocks = firstDocs.size();
        ByteSink head =
            new ByteSink(16 + (documents + 1) * width + (compressed ? (blocks + 1) * 12 : 0));
        if (compressed) {
          // the block rule is recorded only when every block was cut by it
          head.putInt(width)
              .putInt(PAYLOAD_FLAG_LZ4_BLOCKS)
              .putInt(blocks)
              .putInt(copiedBlocks == 0 ? options.blockSize() : 0);
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
          for (int b = 0; b < blocks; b++) {
            head.putInt(firstDocs.getInt(b));
          }
          head.putInt(documents);
          long at = 0;
          for (int b = 0; b <= blocks; b++) {
            head.putLong(at);
            if (b < blocks) {
              at += blockLengths.getLong(b);
            }
          }
        }
        long bodyLength = length - head.size();
        DatabaseWriter.Segment segment =
            new DatabaseWriter.Segment(
                KIND_PAYLOAD,
                NO_FIELD,
                head,
                bodyLength,
                compressed ? this::writeBlocks : out -> writeRaw(out));
        segment.compressed = compressed;
        return segment;
      }

      private void putOffset(ByteSink head, long offset) {
        if (width == 4) {
          head.putInt((int) offset);
        } else {
          head.putLong(offset);
        }
      }

      private void writeBlocks(DatabaseWriter.Output out) throws IOException {
        blocks(
            new BlockSink() {
              int block;

              @Override
              public void copied(int firstDoc, MemorySegment bytes) throws IOException {
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
       * re-blocked exactly as the writer blocks a database's payloads; LZ4 inputs are copied block
       * by block when {@link Options#copyCompressedBlocks()}.
       */
      void blocks(BlockSink sink) {
        try {
          PayloadBlockCutter reblocker = new PayloadBlockCutter(options.blockSize(), sink);
          for (int i = 0; i < inputs.size(); i++) {
            DatabaseReader input = inputs.get(i);
            PayloadBlocks b = input.payloadBlocks();
            if (b != null && options.copyCompressedBlocks()) {
              reblocker.close();
              for (int k = 0; k < b.blockCount(); k++) {
                sink.copied(base[i] + b.blockFirstDocument(k), b.compressedBlock(k));
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

      private void writeRaw(DatabaseWriter.Output out) throws IOException {
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
          || size > 255L * compressed.byteSize() + 64
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
      // array to array: the pure-Java decompressor is much slower on direct buffers
      MemorySegment.copy(compressed, ValueLayout.JAVA_BYTE, 0, compressedScratch, 0, length);
      byte[] result = decompressedScratch;
      LZ4SafeDecompressor decompressor = PayloadBlocks.LZ4.safeDecompressor();
      int produced;
      try {
        produced = decompressor.decompress(compressedScratch, 0, length, result, 0, (int) size);
      } catch (LZ4Exception e) {
        throw corrupt(input, k, "cannot decompress: " + e.getMessage());
      }
      if (produced != size) {
        throw corrupt(input, k, "decompressed to " + produced + " bytes, expected " + size);
      }
      return result;
    }

    private static UncheckedIOException corrupt(DatabaseReader input, int block, String problem) {
      return new UncheckedIOException(
          new CorruptDatabaseException(
              input.source(), "payload", 0, "payload block " + block + ": " + problem));
    }
  }
}
