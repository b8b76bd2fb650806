package dev.mosaic.format;

import dev.mosaic.format.impl.PartitionUpdate;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.zip.DataFormatException;
import java.util.zip.Deflater;
import java.util.zip.Inflater;

/**
 * What a {@link DatabaseUpdate} consumed, in a compact encoded form: the runs of base documents
 * kept and the documents added, in output order. A receiver holding the same base file replays it
 * with {@link #applyTo} and gets the file byte for byte (the merge is deterministic), without the
 * whole file crossing the network.
 *
 * <p>Encoding (version 1): the magic {@code MCS1}; varints: base documents, output documents, added
 * documents, length of the body once inflated; then the body, deflated: a sequence of runs, each a
 * varint {@code length << 1 | added}; a kept run is followed by a zig-zag varint of its first base
 * id minus the end of the previous kept run; an added run by its documents, each as, per schema
 * field in order, a varint count of values then each value as varint length + comparable bytes, and
 * a varint payload length + payload bytes.
 *
 * <pre>{@code
 * ChangeSet.Recorder changes = ChangeSet.recorder(base);
 * update.keep(0); changes.keep(0);
 * update.add(doc); changes.add(doc);
 * byte[] encoded = changes.encode();
 * // on the receiver, with the same base:
 * ChangeSet.decode(base.schema(), encoded).applyTo(base, output, true);
 * }</pre>
 *
 * <p>Thread safety: a decoded change set is immutable and may be applied from several threads;
 * {@link Recorder} is not thread safe.
 */
public final class ChangeSet {
  private static final byte[] MAGIC = {'M', 'C', 'S', '1'};

  /** Most a deflated body may expand (deflate's own limit is about 1032:1). */
  private static final long MAX_INFLATION = 1100;

  private final Schema schema;
  private final int baseDocuments;
  private final int[] runs;
  private final int[] starts;
  private final List<Document> added;
  private final int documents;

  private ChangeSet(
      Schema schema,
      int baseDocuments,
      int[] runs,
      int[] starts,
      List<Document> added,
      int documents) {
    this.schema = schema;
    this.baseDocuments = baseDocuments;
    this.runs = runs;
    this.starts = starts;
    this.added = added;
    this.documents = documents;
  }

  /** A recorder of the calls made on an update of {@code base}. */
  public static Recorder recorder(Database base) {
    Database checked = PartitionUpdate.checkBase(Objects.requireNonNull(base, "base"));
    return new Recorder(checked.schema(), PartitionUpdate.documents(checked));
  }

  /** Documents the base must have. */
  public int baseDocuments() {
    return baseDocuments;
  }

  /** Documents of the file the change set rebuilds. */
  public int documents() {
    return documents;
  }

  /** Documents the change set adds (upserted ones). */
  public int added() {
    return added.size();
  }

  /**
   * Rebuilds the file from {@code base} (which must be the base the change set was recorded on):
   * writes it to {@code output} as {@link DatabaseUpdate#writeTo} does.
   *
   * @throws MalformedChangeSetException when the change set does not fit the base (document count,
   *     ids, schema)
   */
  public DatabaseUpdate.Summary applyTo(Database base, Path output, boolean fsync)
      throws IOException {
    DatabaseUpdate update = DatabaseUpdate.on(base);
    int held = PartitionUpdate.documents(base);
    if (held != baseDocuments) {
      throw new MalformedChangeSetException(
          "the change set applies to a base of "
              + baseDocuments
              + " documents, the base file holds "
              + held);
    }
    try {
      int next = 0;
      for (int r = 0; r < runs.length; r++) {
        int length = runs[r] >>> 1;
        if ((runs[r] & 1) == 1) {
          for (int i = 0; i < length; i++) {
            update.add(added.get(next++));
          }
        } else {
          for (int i = 0; i < length; i++) {
            update.keep(starts[r] + i);
          }
        }
      }
    } catch (IllegalArgumentException e) {
      throw new MalformedChangeSetException(
          "the change set does not fit the base: " + e.getMessage());
    }
    return update.fsync(fsync).writeTo(output);
  }

  /**
   * The change set that turns this one's base into what {@code next} rebuilds: this one, then
   * {@code next}, as one. {@code next} must have been recorded on the output of this one (a base of
   * {@link #documents()} documents). Applied to this one's base it gives, byte for byte, the file
   * that applying this one and then {@code next} gives, as long as this one's output kept its
   * base's payload layout: a merge's output depends on the documents in output order and on the
   * layout (compression, zstd dictionary) it inherits from its base. NOTE: when a version switched
   * layouts (a small raw base grown into compressed blocks), the composed rebuild differs; a
   * receiver checks every rebuild against the manifest, so that costs a full copy, never a wrong
   * file. A sender uses it for a receiver holding an older base than the newest change set's.
   *
   * @throws MalformedChangeSetException when {@code next} does not fit this one's output (schema,
   *     document count)
   */
  public ChangeSet then(ChangeSet next) throws MalformedChangeSetException {
    Objects.requireNonNull(next, "next");
    if (!next.schema.equals(schema)) {
      throw new MalformedChangeSetException("the next change set is for another schema");
    }
    if (next.baseDocuments != documents) {
      throw new MalformedChangeSetException(
          "the next change set applies to a base of "
              + next.baseDocuments
              + " documents, this one rebuilds "
              + documents);
    }
    // where each of this one's output documents comes from: a base id, or ~i for added.get(i)
    int[] source = new int[documents];
    int at = 0;
    int nextAdded = 0;
    for (int r = 0; r < runs.length; r++) {
      int length = runs[r] >>> 1;
      for (int i = 0; i < length; i++) {
        source[at++] = (runs[r] & 1) == 1 ? ~nextAdded++ : starts[r] + i;
      }
    }
    Recorder composed = new Recorder(schema, baseDocuments);
    int taken = 0;
    for (int r = 0; r < next.runs.length; r++) {
      int length = next.runs[r] >>> 1;
      for (int i = 0; i < length; i++) {
        if ((next.runs[r] & 1) == 1) {
          composed.add(next.added.get(taken++));
        } else {
          int from = source[next.starts[r] + i];
          if (from >= 0) {
            composed.keep(from);
          } else {
            composed.add(added.get(~from));
          }
        }
      }
    }
    return decode(schema, composed.encode());
  }

  /** This change set encoded as {@link Recorder#encode} encodes it (what {@link #decode} reads). */
  public byte[] encode() {
    Recorder out = new Recorder(schema, baseDocuments);
    int taken = 0;
    for (int r = 0; r < runs.length; r++) {
      int length = runs[r] >>> 1;
      for (int i = 0; i < length; i++) {
        if ((runs[r] & 1) == 1) {
          out.add(added.get(taken++));
        } else {
          out.keep(starts[r] + i);
        }
      }
    }
    return out.encode();
  }

  /**
   * Decodes a change set recorded on a base of {@code schema}.
   *
   * @throws MalformedChangeSetException naming what is wrong (magic, truncation, counts, a value
   *     not valid for its field)
   */
  public static ChangeSet decode(Schema schema, byte[] encoded) throws MalformedChangeSetException {
    Objects.requireNonNull(schema, "schema");
    Reader head = new Reader(encoded, "header");
    if (encoded.length < MAGIC.length
        || !Arrays.equals(Arrays.copyOf(encoded, MAGIC.length), MAGIC)) {
      throw new MalformedChangeSetException(
          "not a change set: the first bytes are not " + new String(MAGIC) + " (version 1)");
    }
    head.at = MAGIC.length;
    int baseDocuments = head.count("base documents");
    int documents = head.count("documents");
    int addedCount = head.count("added documents");
    long rawLength = head.varint("body length");
    long compressed = encoded.length - head.at;
    if (rawLength < 0 || rawLength > Math.min(Integer.MAX_VALUE - 8, compressed * MAX_INFLATION)) {
      throw new MalformedChangeSetException(
          "body length " + rawLength + " is impossible for " + compressed + " deflated bytes");
    }
    if (addedCount > documents) {
      throw new MalformedChangeSetException(
          addedCount + " added documents for an output of " + documents + " documents");
    }
    byte[] body = inflate(encoded, head.at, (int) rawLength);
    Reader in = new Reader(body, "body");
    List<Integer> runList = new ArrayList<>();
    List<Integer> startList = new ArrayList<>();
    List<Document> added = new ArrayList<>(addedCount);
    int written = 0;
    int keptEnd = 0;
    while (written < documents) {
      long tag = in.varint("run");
      long length = tag >>> 1;
      if (length == 0 || length > documents - written) {
        throw new MalformedChangeSetException(
            "run of "
                + length
                + " documents at body byte "
                + in.at
                + " (documents "
                + written
                + " of "
                + documents
                + " written)");
      }
      boolean add = (tag & 1) == 1;
      int start = 0;
      if (add) {
        if (added.size() + length > addedCount) {
          throw new MalformedChangeSetException(
              "more added documents than the " + addedCount + " declared");
        }
        for (int i = 0; i < length; i++) {
          added.add(in.document(schema, added.size()));
        }
      } else {
        long first = keptEnd + unzigzag(in.varint("kept run start"));
        if (first < 0 || first + length > baseDocuments) {
          throw new MalformedChangeSetException(
              "kept run "
                  + first
                  + ".."
                  + (first + length - 1)
                  + " outside the base's documents 0.."
                  + (baseDocuments - 1));
        }
        start = (int) first;
        keptEnd = (int) (first + length);
      }
      runList.add((int) (length << 1 | (add ? 1 : 0)));
      startList.add(start);
      written += (int) length;
    }
    if (added.size() != addedCount) {
      throw new MalformedChangeSetException(
          added.size() + " added documents, the header declares " + addedCount);
    }
    if (in.at != body.length) {
      throw new MalformedChangeSetException(
          (body.length - in.at) + " bytes after the last run of the body");
    }
    return new ChangeSet(
        schema,
        baseDocuments,
        runList.stream().mapToInt(Integer::intValue).toArray(),
        startList.stream().mapToInt(Integer::intValue).toArray(),
        List.copyOf(added),
        documents);
  }

  private static byte[] inflate(byte[] encoded, int from, int rawLength)
      throws MalformedChangeSetException {
    Inflater inflater = new Inflater();
    try {
      inflater.setInput(encoded, from, encoded.length - from);
      byte[] body = new byte[rawLength];
      byte[] scratch = new byte[1];
      int n = 0;
      while (!inflater.finished()) {
        int remaining = inflater.getRemaining();
        int got =
            n < rawLength ? inflater.inflate(body, n, rawLength - n) : inflater.inflate(scratch);
        if (n >= rawLength && got > 0) {
          throw new MalformedChangeSetException(
              "the deflated body gives more than the " + rawLength + " bytes the header declares");
        }
        n += got;
        if (got == 0
            && (inflater.needsInput()
                || inflater.needsDictionary()
                || (!inflater.finished() && inflater.getRemaining() == remaining))) {
          break; // no progress: corrupt bytes must not spin here forever
        }
      }
      if (n != rawLength || !inflater.finished() || inflater.getRemaining() != 0) {
        throw new MalformedChangeSetException(
            "the deflated body gives "
                + n
                + (inflater.finished() ? "" : "+")
                + " bytes, the header declares "
                + rawLength
                + (inflater.getRemaining() != 0
                    ? "; " + inflater.getRemaining() + " bytes after its end"
                    : ""));
      }
      return body;
    } catch (DataFormatException e) {
      throw new MalformedChangeSetException(
          "the body is not valid deflate data: " + e.getMessage());
    } finally {
      inflater.end();
    }
  }

  private static long unzigzag(long v) {
    return (v >>> 1) ^ -(v & 1);
  }

  private static long zigzag(long v) {
    return (v << 1) ^ (v >> 63);
  }

  /**
   * Records the {@link DatabaseUpdate#keep} and {@link DatabaseUpdate#add} calls of one update, in
   * order, and encodes them. Calls are checked as the update checks them. Not thread safe.
   */
  public static final class Recorder {
    private final Schema schema;
    private final int baseDocuments;
    private final ByteArrayOutputStream body = new ByteArrayOutputStream();
    private final ByteArrayOutputStream pendingDocs = new ByteArrayOutputStream();
    private int documents;
    private int addedCount;
    private boolean runIsAdd;
    private int runLength;
    private int runStart;
    private int keptEnd;

    private Recorder(Schema schema, int baseDocuments) {
      this.schema = schema;
      this.baseDocuments = baseDocuments;
    }

    /** Records {@link DatabaseUpdate#keep(int)}. */
    public Recorder keep(int baseDocId) {
      if (baseDocId < 0 || baseDocId >= baseDocuments) {
        throw new IllegalArgumentException(
            "keep(" + baseDocId + "): the base has " + baseDocuments + " documents");
      }
      if (runLength > 0 && !runIsAdd && baseDocId == runStart + runLength) {
        runLength++;
      } else {
        flush();
        runIsAdd = false;
        runStart = baseDocId;
        runLength = 1;
      }
      documents++;
      return this;
    }

    /** Records {@link DatabaseUpdate#add(Document)}. */
    public Recorder add(Document document) {
      if (!document.schema().equals(schema)) {
        throw new IllegalArgumentException("document was built for another schema");
      }
      if (runLength == 0 || !runIsAdd) {
        flush();
        runIsAdd = true;
        runLength = 0;
      }
      List<Field> fields = schema.fields();
      for (int f = 0; f < fields.size(); f++) {
        int count = document.valueCount(f);
        writeVarint(pendingDocs, count);
        for (int i = 0; i < count; i++) {
          writeBytes(pendingDocs, document.value(f, i));
        }
      }
      writeBytes(pendingDocs, document.payload());
      runLength++;
      documents++;
      addedCount++;
      return this;
    }

    private void flush() {
      if (runLength == 0) {
        return;
      }
      writeVarint(body, (long) runLength << 1 | (runIsAdd ? 1 : 0));
      if (runIsAdd) {
        body.writeBytes(pendingDocs.toByteArray());
        pendingDocs.reset();
      } else {
        writeVarint(body, zigzag((long) runStart - keptEnd));
        keptEnd = runStart + runLength;
      }
      runLength = 0;
    }

    /** The encoded change set of the calls recorded so far. */
    public byte[] encode() {
      flush();
      byte[] raw = body.toByteArray();
      ByteArrayOutputStream out = new ByteArrayOutputStream(raw.length / 2 + 64);
      out.writeBytes(MAGIC);
      writeVarint(out, baseDocuments);
      writeVarint(out, documents);
      writeVarint(out, addedCount);
      writeVarint(out, raw.length);
      Deflater deflater = new Deflater(Deflater.DEFAULT_COMPRESSION, false);
      try {
        deflater.setInput(raw);
        deflater.finish();
        byte[] buffer = new byte[8192];
        while (!deflater.finished()) {
          int n = deflater.deflate(buffer);
          out.write(buffer, 0, n);
        }
      } finally {
        deflater.end();
      }
      return out.toByteArray();
    }

    private static void writeBytes(ByteArrayOutputStream out, byte[] bytes) {
      writeVarint(out, bytes.length);
      out.writeBytes(bytes);
    }
  }

  private static void writeVarint(ByteArrayOutputStream out, long v) {
    while ((v & ~0x7FL) != 0) {
      out.write((int) ((v & 0x7F) | 0x80));
      v >>>= 7;
    }
    out.write((int) v);
  }

  /** Reads varints and documents from one byte array, naming positions in its errors. */
  private static final class Reader {
    private final byte[] bytes;
    private final String part;
    private int at;

    Reader(byte[] bytes, String part) {
      this.bytes = bytes;
      this.part = part;
    }

    long varint(String what) throws MalformedChangeSetException {
      long v = 0;
      for (int shift = 0; shift < 64; shift += 7) {
        if (at >= bytes.length) {
          throw new MalformedChangeSetException(
              "truncated " + part + ": ends at byte " + at + " inside " + what);
        }
        byte b = bytes[at++];
        v |= (long) (b & 0x7F) << shift;
        if (b >= 0) {
          return v;
        }
      }
      throw new MalformedChangeSetException(
          "varint over 64 bits in the " + part + " at byte " + at + " (" + what + ")");
    }

    int count(String what) throws MalformedChangeSetException {
      long v = varint(what);
      if (v < 0 || v > Integer.MAX_VALUE - 8) {
        throw new MalformedChangeSetException(what + " " + v + " out of range");
      }
      return (int) v;
    }

    byte[] bytes(String what) throws MalformedChangeSetException {
      long n = varint(what + " length");
      if (n < 0 || n > bytes.length - at) {
        throw new MalformedChangeSetException(
            what
                + " of "
                + n
                + " bytes at "
                + part
                + " byte "
                + at
                + ", only "
                + (bytes.length - at)
                + " left");
      }
      byte[] v = Arrays.copyOfRange(bytes, at, at + (int) n);
      at += (int) n;
      return v;
    }

    Document document(Schema schema, int index) throws MalformedChangeSetException {
      Document.Builder b = Document.builder(schema);
      for (Field f : schema.fields()) {
        int n = count("value count of field '" + f.name() + "' of added document " + index);
        if (n > bytes.length - at) {
          throw new MalformedChangeSetException(
              n + " values of field '" + f.name() + "' in added document " + index);
        }
        for (int i = 0; i < n; i++) {
          byte[] encoded = bytes("value of field '" + f.name() + "' of added document " + index);
          try {
            Object value = f.type().decode(encoded);
            if (!Arrays.equals(f.type().encode(value), encoded)) {
              throw new IllegalArgumentException("not the canonical encoding of " + f.type());
            }
            b.add(f.name(), value);
          } catch (RuntimeException e) {
            throw new MalformedChangeSetException(
                "added document " + index + ", field '" + f.name() + "': " + e.getMessage());
          }
        }
      }
      b.payload(bytes("payload of added document " + index));
      try {
        return b.build();
      } catch (IllegalArgumentException e) {
        throw new MalformedChangeSetException("added document " + index + ": " + e.getMessage());
      }
    }
  }
}
