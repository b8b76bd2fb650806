package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.Database;
import dev.mosaic.format.Field;
import dev.mosaic.format.FileSync;
import dev.mosaic.format.Schema;
import dev.mosaic.format.io.DurableFiles;
import dev.mosaic.format.io.DurableFiles.Replace;
import it.unimi.dsi.fastutil.ints.IntArrayList;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Writes a partition as a previous partition's documents (kept by id) interleaved with new
 * documents, byte for byte as {@link DatabaseWriter} with default options writes the same documents
 * in the same order (see {@link dev.mosaic.format.DatabaseUpdate}). Nothing of a kept document is
 * decoded beyond ranks:
 *
 * <ul>
 *   <li>per field, the new documents' values are ranked as the writer ranks them; the base values
 *       some kept document uses are merged with them (one pass over two sorted lists), giving each
 *       base rank and new rank its output rank; every output document's ranks are then the base
 *       document's ranks (from the document-to-value index, or the inverted postings) or the new
 *       document's, mapped, and the segment is encoded by the writer's code from there;
 *   <li>payloads: where the output cuts a block at the same document the base cut one and goes on
 *       with that whole base block in order, the base's LZ4 block is copied as stored (both follow
 *       the same content-defined {@link PayloadBlockRule}); only blocks around a change are
 *       decompressed and compressed again.
 * </ul>
 *
 * <p>Thread safety: stateless; one call works on its own objects. The base must stay open during a
 * call.
 */
public final class PartitionUpdate {
  private PartitionUpdate() {}

  /** Marks an entry of the output order as an added document: {@code ADDED | index}. */
  public static final int ADDED = Integer.MIN_VALUE;

  /**
   * The base of an update (every {@link Database} is a partition read by this library).
   *
   * @throws IllegalStateException when it is closed
   */
  public static Database checkBase(Database base) {
    DatabaseReader.of(base).ensureOpen();
    return base;
  }

  /** Number of documents of a base checked by {@link #checkBase}. */
  public static int documents(Database base) {
    return DatabaseReader.of(base).documents();
  }

  /**
   * Writes the update.
   *
   * @param base the previous partition (checked by {@link #checkBase}), or null for a full build
   * @param dictionaryDonor for a full build, the database whose payload dictionary it compresses
   *     with instead of training one (see {@link DatabaseWriter#payloadDictionaryOf}), or null
   * @param order the output documents: a base id, or {@code ADDED | i} for document {@code i} of
   *     {@code added}
   * @param count number of entries of {@code order} used
   * @return the size of the file written
   */
  public static long write(
      Schema schema,
      Database base,
      Database dictionaryDonor,
      int[] order,
      int count,
      DocumentColumns added,
      Path output,
      boolean fsync)
      throws IOException {
    if (base == null) {
      DatabaseWriter writer = new DatabaseWriter(schema, added);
      if (dictionaryDonor != null) {
        writer.payloadDictionaryOf(dictionaryDonor);
      }
      return DurableFiles.writeChannel(output, Replace.EXISTING, sync(fsync), writer::writeTo);
    }
    DatabaseReader reader = DatabaseReader.of(base);
    reader.ensureOpen();
    Run run = new Run(schema, reader, order, count, added);
    List<SegmentFile.Segment> segments = run.segments();
    return DurableFiles.writeChannel(
        output,
        Replace.EXISTING,
        sync(fsync),
        ch -> {
          SegmentFile.Output out = new SegmentFile.Output(ch);
          SegmentFile.write(out, run.version, schema, count, segments);
          out.finish();
        });
  }

  /** One update. */
  private static final class Run {
    final Schema schema;
    final DatabaseReader base;
    final int[] order;
    final int n;
    final DocumentColumns added;
    int version;

    Run(Schema schema, DatabaseReader base, int[] order, int n, DocumentColumns added) {
      this.schema = schema;
      this.base = base;
      this.order = order;
      this.n = n;
      this.added = added;
    }

    List<SegmentFile.Segment> segments() throws IOException {
      List<SegmentFile.Segment> list = new ArrayList<>();
      list.add(new SegmentFile.Segment(KIND_SCHEMA, NO_FIELD, SchemaCodec.encode(schema), null));
      List<SegmentFile.Segment> blooms = new ArrayList<>();
      List<Field> fields = schema.fields();
      for (int i = 0; i < fields.size(); i++) {
        Field field = fields.get(i);
        ByteSink segment;
        ByteSink bloom = null;
        if (field.role().isFilterable() && keptInBaseOrder()) {
          Postings postings = postings(i, field);
          segment =
              FieldSegmentEncoder.encodeField(
                  field,
                  n,
                  postings.values,
                  postings.singleValued,
                  postings.prefix,
                  postings.ids,
                  postings.docRanks);
          if (DatabaseWriter.autoBloomApplies(n, postings.values.count())) {
            BloomFilter baseBloom = base.blooms()[i];
            if (!postings.baseValueDropped && baseBloom != null) {
              // every base value stays: the base's bits plus the new values' (null when the
              // output's bit count differs from the base's)
              bloom = BloomFilter.extend(baseBloom, postings.values.count(), postings.newValues);
            }
            if (bloom == null) {
              bloom = BloomFilter.build(postings.values);
            }
          }
        } else {
          FieldRanks ranks = ranks(i, field);
          segment = FieldSegmentEncoder.encodeRanks(field, n, ranks);
          if (field.role().isFilterable()
              && DatabaseWriter.autoBloomApplies(n, ranks.sorted().length)) {
            bloom = BloomFilter.build(ranks.sorted());
          }
        }
        list.add(new SegmentFile.Segment(kindOf(field.role()), i, segment, null));
        if (bloom != null) {
          blooms.add(new SegmentFile.Segment(KIND_BLOOM, i, bloom, null));
        }
      }
      SegmentFile.Segment payload = new Payloads().segment();
      list.add(payload);
      list.addAll(blooms);
      version = SegmentFile.formatVersion(payload.compressed, payload.zstd, !blooms.isEmpty());
      return list;
    }

    // ----- fields --------------------------------------------------------------------------------

    /** Output id of every base document (-1 when dropped); null until needed. */
    private int[] newId;

    /** The output ids of the new documents, ascending; set with {@link #newId}. */
    private int[] addedAt;

    private boolean inBaseOrder;

    /**
     * Whether the kept documents keep their base order (the usual update): then each base value's
     * postings, mapped to output ids, stay ascending and are copied value by value. The same walk
     * over the output maps base ids to output ids and finds the new documents' output ids (once per
     * update, not once per field).
     */
    boolean keptInBaseOrder() {
      if (newId == null) {
        newId = new int[base.documents()];
        Arrays.fill(newId, -1);
        int[] addedIds = new int[n];
        int addedCount = 0;
        inBaseOrder = true;
        int last = -1;
        for (int p = 0; p < n; p++) {
          int e = order[p];
          if (e >= 0) {
            newId[e] = p;
            inBaseOrder &= e > last;
            last = e;
          } else {
            addedIds[addedCount++] = p;
          }
        }
        addedAt = Arrays.copyOf(addedIds, addedCount);
      }
      return inBaseOrder;
    }

    /**
     * A filterable field's output content: values, postings grouped by rank, ranks by document;
     * whether a base value is gone (no kept document has it), and the values only new documents
     * have.
     */
    record Postings(
        PackedValues values,
        int[] prefix,
        int[] ids,
        int[] docRanks,
        boolean singleValued,
        boolean baseValueDropped,
        byte[][] newValues) {}

    /**
     * A filterable field's output when the kept documents keep their base order: one pass over the
     * base values in order, merged with the new documents' values, writes each output value's
     * documents (the base's postings mapped to output ids, merged with the new documents having it)
     * straight into the postings; base values no kept document has are left out.
     */
    Postings postings(int index, Field field) {
      FieldRanks fresh = FieldRanks.of(added, index);
      byte[][] freshSorted = fresh.sorted();
      int[] freshStart = fresh.start();
      int[] freshRanks = fresh.ranks();
      // the output ids of the new documents having each new value, ascending
      int[] freshPrefix = new int[freshSorted.length + 1];
      for (int i = 0; i < freshStart[added.size()]; i++) {
        freshPrefix[freshRanks[i] + 1]++;
      }
      for (int v = 0; v < freshSorted.length; v++) {
        freshPrefix[v + 1] += freshPrefix[v];
      }
      int[] freshIds = new int[freshStart[added.size()]];
      int[] cursor = Arrays.copyOf(freshPrefix, freshSorted.length);
      // keptInBaseOrder() came first (postings are merged only then): addedAt is set
      for (int p : addedAt) {
        int a = order[p] & ~ADDED;
        for (int i = freshStart[a]; i < freshStart[a + 1]; i++) {
          freshIds[cursor[freshRanks[i]]++] = p;
        }
      }

      FieldReader f = base.field(index);
      int[] map = newId;
      long capacity = (long) f.countRange(0, f.valueCount) + freshIds.length;
      if (capacity > Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("field '" + field.name() + "' has too many values");
      }
      int[] ids = new int[(int) capacity];
      int[] prefix = new int[f.valueCount + freshSorted.length + 1];
      // sortable: every document has one value, so it is in one output value's postings, which
      // give its rank
      int[] docRanks = field.role().isSortable() ? new int[n] : null;
      // where the base's values start (relative to f.valueData); runs of kept ones are copied
      // out of the file at once
      int[] valueStarts = f.valueStarts();
      int freshBytes = 0;
      for (byte[] v : freshSorted) {
        freshBytes += v.length;
      }
      // the output values, in order: [0, distinct)
      PackedValues values =
          new PackedValues(
              f.valueCount + freshSorted.length, valueStarts[f.valueCount] + freshBytes);
      int distinct = 0;
      // where each new value lies among the base values (a binary search per new value, so the
      // base values are not compared one by one): its base index, or -(insertion point) - 1
      int[] freshAt = new int[freshSorted.length];
      for (int x = 0; x < freshSorted.length; x++) {
        freshAt[x] = f.find(Key.unhashed(freshSorted[x]));
      }
      int at = 0;
      int j = 0;
      int words = FileFormat.words(f.documents);
      // the tables walked value by value, copied out of the file at once
      int[] basePrefix = f.prefixTable();
      // with lists only (the usual case), every value's list follows the previous one: all ids
      // at once
      int[] allIds = f.allLists ? listIds(f, f.postings, basePrefix[f.valueCount]) : null;
      // the kept base values [runFirst, runEnd) not yet appended to values
      int runFirst = 0;
      int runEnd = 0;
      boolean baseValueDropped = false;
      byte[][] newValues = new byte[freshSorted.length][];
      int newCount = 0;
      for (int b = 0; b < f.valueCount; b++) {
        while (j < freshSorted.length && freshAt[j] < 0 && -freshAt[j] - 1 <= b) {
          // a value only new documents have
          values.appendRun(f.data, f.valueData, valueStarts, runFirst, runEnd);
          runFirst = runEnd;
          int freshFrom = at;
          at = copy(freshIds, freshPrefix[j], freshPrefix[j + 1], ids, at);
          rank(docRanks, ids, freshFrom, at, distinct);
          values.append(freshSorted[j], 0, freshSorted[j].length);
          newValues[newCount++] = freshSorted[j];
          j++;
          distinct++;
          prefix[distinct] = at;
        }
        int mine = j < freshSorted.length && freshAt[j] == b ? j++ : -1;
        int from = at;
        // the kept documents having base value b, as output ids (ascending: base order is kept)
        int p0 = basePrefix[b];
        int p1 = basePrefix[b + 1];
        if (allIds != null) {
          for (int x = p0; x < p1; x++) {
            int id = map[allIds[x]];
            if (id >= 0) {
              ids[at++] = id;
            }
          }
        } else if (isList(p1 - p0, f.idBytes, f.documents)) {
          at = mapList(f, f.postingsOf(b), p1 - p0, map, ids, at);
        } else {
          long posting = f.postingsOf(b);
          for (int w = 0; w < words; w++) {
            long word = f.data.get(FileFormat.LONG, posting + 8L * w);
            while (word != 0) {
              int id = map[(w << 6) + Long.numberOfTrailingZeros(word)];
              if (id >= 0) {
                ids[at++] = id;
              }
              word &= word - 1;
            }
          }
        }
        if (mine >= 0) {
          at = mergeInto(ids, from, at, freshIds, freshPrefix[mine], freshPrefix[mine + 1]);
        }
        if (at > from) {
          rank(docRanks, ids, from, at, distinct);
          if (runEnd != b) {
            values.appendRun(f.data, f.valueData, valueStarts, runFirst, runEnd);
            runFirst = b;
          }
          runEnd = b + 1;
          distinct++;
          prefix[distinct] = at;
        } else {
          baseValueDropped = true;
        }
      }
      values.appendRun(f.data, f.valueData, valueStarts, runFirst, runEnd);
      while (j < freshSorted.length) {
        int freshFrom = at;
        at = copy(freshIds, freshPrefix[j], freshPrefix[j + 1], ids, at);
        rank(docRanks, ids, freshFrom, at, distinct);
        values.append(freshSorted[j], 0, freshSorted[j].length);
        newValues[newCount++] = freshSorted[j];
        j++;
        distinct++;
        prefix[distinct] = at;
      }

      boolean singleValued = f.singleValued && fresh.singleValued();
      if (!singleValued) {
        // exact: the documents with several values may all be gone
        singleValued = true;
        byte[] seen = new byte[n];
        for (int i = 0; i < at; i++) {
          if (seen[ids[i]]++ != 0) {
            singleValued = false;
            break;
          }
        }
      }
      return new Postings(
          values,
          Arrays.copyOf(prefix, distinct + 1),
          ids,
          docRanks,
          singleValued,
          baseValueDropped,
          Arrays.copyOf(newValues, newCount));
    }

    /**
     * Sortable fields ({@code docRanks} not null): documents {@code ids[from, to)} get {@code
     * rank}.
     */
    private static void rank(int[] docRanks, int[] ids, int from, int to, int rank) {
      if (docRanks != null) {
        for (int i = from; i < to; i++) {
          docRanks[ids[i]] = rank;
        }
      }
    }

    /** Posting lists up to this long are read id by id, longer ones copied out in bulk. */
    private static final int SHORT_LIST = 8;

    /** Ids {@code [0, count)} of the list at {@code posting}, copied out at once. */
    private static int[] listIds(FieldReader f, long posting, int count) {
      return f.unsignedTable(posting, count, f.idBytes);
    }

    /** Scratch for a posting list's ids, read in bulk. */
    private short[] shortIds = new short[64];

    private int[] intIds = new int[64];

    /** Appends the output ids of the kept documents of a posting list; returns the new end. */
    private int mapList(FieldReader f, long posting, int count, int[] map, int[] ids, int at) {
      if (count <= SHORT_LIST) {
        // most values of a field with many distinct values have a document or two: read them in
        // place (a bulk copy costs more than it saves on so few ids)
        for (int x = 0; x < count; x++) {
          int id = map[f.id(posting, x)];
          if (id >= 0) {
            ids[at++] = id;
          }
        }
        return at;
      }
      if (f.idBytes == 2) {
        if (shortIds.length < count) {
          shortIds = new short[Math.max(count, shortIds.length * 2)];
        }
        MemorySegment.copy(f.data, FileFormat.SHORT, posting, shortIds, 0, count);
        for (int x = 0; x < count; x++) {
          int id = map[shortIds[x] & 0xFFFF];
          if (id >= 0) {
            ids[at++] = id;
          }
        }
      } else {
        if (intIds.length < count) {
          intIds = new int[Math.max(count, intIds.length * 2)];
        }
        MemorySegment.copy(f.data, FileFormat.INT, posting, intIds, 0, count);
        for (int x = 0; x < count; x++) {
          int id = map[intIds[x]];
          if (id >= 0) {
            ids[at++] = id;
          }
        }
      }
      return at;
    }

    private static int copy(int[] from, int start, int end, int[] to, int at) {
      System.arraycopy(from, start, to, at, end - start);
      return at + end - start;
    }

    /**
     * Merges the ascending {@code extra[from, to)} into the ascending {@code ids[start, end)} in
     * place (the array has room after {@code end}); returns the new end.
     */
    private static int mergeInto(int[] ids, int start, int end, int[] extra, int from, int to) {
      int k = to - from;
      if (k == 0) {
        return end;
      }
      int write = end + k - 1;
      int i = end - 1;
      int x = to - 1;
      while (x >= from) {
        if (i >= start && ids[i] > extra[x]) {
          ids[write--] = ids[i--];
        } else {
          ids[write--] = extra[x--];
        }
      }
      return end + k;
    }

    /** The output's content of one field in rank terms. */
    FieldRanks ranks(int index, Field field) {
      FieldRanks fresh = FieldRanks.of(added, index);
      FieldReader f = base.field(index);
      boolean byIndex = field.role().isSortable();
      int[] baseStart = null;
      int[] baseRanks = null;
      if (!byIndex) {
        baseStart = new int[f.documents + 1];
        baseRanks = invertPostings(f, baseStart);
      }

      // base values some kept document uses
      boolean[] used = new boolean[f.valueCount];
      for (int p = 0; p < n; p++) {
        int e = order[p];
        if (e >= 0) {
          if (byIndex) {
            used[f.valueIndex(e)] = true;
          } else {
            for (int i = baseStart[e]; i < baseStart[e + 1]; i++) {
              used[baseRanks[i]] = true;
            }
          }
        }
      }

      // merge the used base values with the new documents' values
      byte[][] freshSorted = fresh.sorted();
      int[] baseMap = new int[f.valueCount];
      int[] freshMap = new int[freshSorted.length];
      List<byte[]> merged = new ArrayList<>(Math.min(f.valueCount, n) + freshSorted.length);
      int j = 0;
      for (int b = 0; b < f.valueCount; b++) {
        if (!used[b]) {
          continue;
        }
        byte[] v = f.valueBytes(b);
        int c = -1;
        while (j < freshSorted.length && (c = Arrays.compareUnsigned(freshSorted[j], v)) < 0) {
          freshMap[j++] = merged.size();
          merged.add(freshSorted[j - 1]);
        }
        if (j < freshSorted.length && c == 0) {
          freshMap[j++] = merged.size();
        }
        baseMap[b] = merged.size();
        merged.add(v);
      }
      while (j < freshSorted.length) {
        freshMap[j++] = merged.size();
        merged.add(freshSorted[j - 1]);
      }
      byte[][] sorted = merged.toArray(new byte[0][]);

      // every output document's ranks
      int[] freshStart = fresh.start();
      int[] freshRanks = fresh.ranks();
      long total = freshStart[freshStart.length - 1];
      for (int p = 0; p < n; p++) {
        int e = order[p];
        if (e >= 0) {
          total += byIndex ? 1 : baseStart[e + 1] - baseStart[e];
        }
      }
      if (total > Integer.MAX_VALUE - 16) {
        throw new IllegalStateException("field '" + field.name() + "' has too many values");
      }
      int[] start = new int[n + 1];
      int[] ranks = new int[(int) total];
      int at = 0;
      boolean singleValued = true;
      for (int p = 0; p < n; p++) {
        start[p] = at;
        int e = order[p];
        if (e >= 0) {
          if (byIndex) {
            ranks[at++] = baseMap[f.valueIndex(e)];
          } else {
            for (int i = baseStart[e]; i < baseStart[e + 1]; i++) {
              ranks[at++] = baseMap[baseRanks[i]];
            }
          }
        } else {
          int a = e & ~ADDED;
          for (int i = freshStart[a]; i < freshStart[a + 1]; i++) {
            ranks[at++] = freshMap[freshRanks[i]];
          }
        }
        if (at - start[p] > 1) {
          singleValued = false;
        }
      }
      start[n] = at;
      return new FieldRanks(sorted, start, ranks, singleValued);
    }

    // ----- payloads ------------------------------------------------------------------------------

    /** The payload segment: raw, or zstd blocks copied from the base where they line up. */
    final class Payloads {
      final PayloadBlocks baseBlocks = base.payloadBlocks();

      /** Where every output document's payload starts, and where the last one ends. */
      final long[] starts = starts();

      private long[] starts() {
        long[] baseLogical = baseBlocks != null ? baseBlocks.logicalTable() : null;
        long[] result = new long[n + 1];
        long offset = 0;
        for (int p = 0; p < n; p++) {
          result[p] = offset;
          int e = order[p];
          if (e < 0) {
            offset += added.payload(e & ~ADDED).length;
          } else if (baseLogical != null) {
            offset += baseLogical[e + 1] - baseLogical[e];
          } else {
            offset += base.rawPayloadOffset(e + 1) - base.rawPayloadOffset(e);
          }
        }
        result[n] = offset;
        return result;
      }

      byte[] bytes(int p) {
        int e = order[p];
        return e < 0 ? added.payload(e & ~ADDED) : base.payloadBytes(e);
      }

      SegmentFile.Segment segment() throws IOException {
        long total = starts[n];
        int width = total <= 0xFFFF_FFFFL ? 4 : 8;
        long rawLength = 8 + (long) (n + 1) * width + total;
        if (total == 0 || total > Integer.MAX_VALUE) {
          return raw(width, rawLength);
        }
        PayloadDictionary inherited = PayloadDictionary.inheritedFrom(base);
        PayloadDictionary dictionary =
            inherited != null ? inherited : PayloadDictionary.train(n, total, this::bytes);
        Blocks blocks = blocks(dictionary, inherited != null);
        PayloadBlockTables tables = PayloadBlockTables.zstd(dictionary, blocks.count());
        long compressedLength = tables.headLength(n, width, blocks.count()) + blocks.bytes;
        if (compressedLength > rawLength - rawLength / 10) {
          return raw(width, rawLength);
        }
        ByteSink head = new ByteSink((int) tables.headLength(n, width, blocks.count()));
        tables.putHeader(head, width, blocks.count(), DatabaseWriter.DEFAULT_BLOCK_SIZE);
        putOffsets(head, width);
        tables.putTables(head, n, blocks.firstDocs, blocks::length);
        SegmentFile.Segment segment =
            new SegmentFile.Segment(
                KIND_PAYLOAD,
                NO_FIELD,
                head,
                blocks.bytes,
                out -> {
                  int b = 0;
                  while (b < blocks.count()) {
                    int k = blocks.baseBlock.getInt(b);
                    if (k >= 0) {
                      // base blocks copied one after the other lie one after the other in the
                      // base: written as one range
                      int end = b + 1;
                      while (end < blocks.count() && blocks.baseBlock.getInt(end) == k + end - b) {
                        end++;
                      }
                      out.write(baseBlocks.compressedBlocks(k, k + end - b));
                      b = end;
                    } else {
                      byte[] bytes = (byte[]) blocks.data.get(b++);
                      out.write(bytes, 0, bytes.length);
                    }
                  }
                });
        segment.compressed = true;
        segment.zstd = true;
        return segment;
      }

      private void putOffsets(ByteSink head, int width) {
        for (int p = 0; p <= n; p++) {
          if (width == 4) {
            head.putInt((int) starts[p]);
          } else {
            head.putLong(starts[p]);
          }
        }
      }

      private SegmentFile.Segment raw(int width, long rawLength) {
        ByteSink head = new ByteSink(8 + (n + 1) * width);
        head.putInt(width).putInt(0);
        putOffsets(head, width);
        return new SegmentFile.Segment(
            KIND_PAYLOAD,
            NO_FIELD,
            head,
            rawLength - head.size(),
            out -> {
              for (int p = 0; p < n; p++) {
                int e = order[p];
                if (e >= 0 && baseBlocks == null) {
                  out.write(base.rawPayloads(e, e + 1));
                } else {
                  byte[] b = bytes(p);
                  out.write(b, 0, b.length);
                }
              }
            });
      }

      /**
       * The output's blocks, cut by the rule and compressed with {@code dictionary}; base blocks
       * are copied where they line up when {@code inherited} (the dictionary is the base's).
       */
      Blocks blocks(PayloadDictionary dictionary, boolean inherited) throws IOException {
        Blocks blocks = new Blocks();
        PayloadBlockCutter cutter =
            new PayloadBlockCutter(
                DatabaseWriter.DEFAULT_BLOCK_SIZE,
                BlockCompressor.zstd(dictionary),
                (firstDoc, block, length) ->
                    blocks.compressed(firstDoc, Arrays.copyOf(block, length)));
        boolean copyable = inherited && baseBlocks.blockRule() == cutter.blockSize();
        int lastBaseBlock = copyable ? baseBlocks.blockCount() - 1 : -1;
        int p = 0;
        while (p < n) {
          int e = order[p];
          if (copyable && !cutter.pending() && e >= 0) {
            // a block of the base starting here is copied when the output goes on with all of it
            int k = baseBlocks.blockStartingAt(e);
            int len = k < 0 ? 0 : baseBlocks.blockFirstDocument(k + 1) - e;
            if (k >= 0
                && (k < lastBaseBlock || p + len == n)
                && p + len <= n
                && consecutive(p, e, len)) {
              blocks.copied(p, k, baseBlocks.compressedBlock(k));
              p += len;
              continue;
            }
          }
          byte[] bytes = bytes(p);
          cutter.add(p, bytes, 0, bytes.length);
          p++;
        }
        cutter.close();
        return blocks;
      }

      /** Whether output documents {@code [p, p + len)} are base documents {@code e, e + 1, ...}. */
      private boolean consecutive(int p, int e, int len) {
        for (int i = 0; i < len; i++) {
          if (order[p + i] != e + i) {
            return false;
          }
        }
        return true;
      }
    }

    /** The output's blocks in order: copied base blocks and blocks compressed here. */
    static final class Blocks {
      final IntArrayList firstDocs = new IntArrayList();
      final List<Object> data = new ArrayList<>();

      /** Per block, the base block it copies, or -1 when compressed here. */
      final IntArrayList baseBlock = new IntArrayList();

      long bytes;

      int count() {
        return firstDocs.size();
      }

      long length(int b) {
        Object block = data.get(b);
        return block instanceof MemorySegment s ? s.byteSize() : ((byte[]) block).length;
      }

      void copied(int firstDoc, int base, MemorySegment block) {
        firstDocs.add(firstDoc);
        data.add(block);
        baseBlock.add(base);
        bytes += block.byteSize();
      }

      void compressed(int firstDoc, byte[] block) {
        firstDocs.add(firstDoc);
        data.add(block);
        baseBlock.add(-1);
        bytes += block.length;
      }
    }
  }

  /**
   * Each document's value ranks of a filterable field, ascending, from its postings: fills {@code
   * start} ({@code documents + 1} entries) and returns the flattened ranks.
   */
  static int[] invertPostings(FieldReader f, int[] start) {
    int n = f.documents;
    for (int j = 0; j < f.valueCount; j++) {
      forEachDocument(f, j, d -> start[d + 1]++);
    }
    for (int d = 0; d < n; d++) {
      start[d + 1] += start[d];
    }
    int[] ranks = new int[start[n]];
    int[] cursor = Arrays.copyOf(start, n);
    for (int j = 0; j < f.valueCount; j++) {
      int rank = j;
      forEachDocument(f, j, d -> ranks[cursor[d]++] = rank);
    }
    return ranks;
  }

  interface DocConsumer {
    void accept(int doc);
  }

  /** Calls {@code action} for every document having value {@code j}, ascending. */
  static void forEachDocument(FieldReader f, int j, DocConsumer action) {
    long posting = f.postingsOf(j);
    if (f.isListAt(j)) {
      int c = f.count(j);
      for (int x = 0; x < c; x++) {
        action.accept(f.id(posting, x));
      }
      return;
    }
    int words = FileFormat.words(f.documents);
    for (int w = 0; w < words; w++) {
      long word = f.data.get(FileFormat.LONG, posting + 8L * w);
      while (word != 0) {
        action.accept((w << 6) + Long.numberOfTrailingZeros(word));
        word &= word - 1;
      }
    }
  }

  private static FileSync sync(boolean fsync) {
    return fsync ? FileSync.FORCE : FileSync.CALLER_SYNCS;
  }
}
