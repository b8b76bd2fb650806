package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.Field;
import dev.mosaic.format.Schema;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.zip.CRC32C;

/**
 * Opens partition files: maps them (or wraps bytes), checks the header, the trailer, the directory,
 * every segment's bounds and (when asked) the whole-file checksum, and builds the {@link
 * DatabaseReader} over the checked offsets.
 *
 * <p>Thread safety: stateless.
 */
public final class DatabaseOpener {
  private DatabaseOpener() {}

  /** Maps a file with its own shared arena, which {@link DatabaseReader#close()} closes. */
  public static DatabaseReader open(Path file, boolean verifyChecksum) throws IOException {
    Arena arena = Arena.ofShared();
    try {
      return mapInto(file, arena, arena, verifyChecksum);
    } catch (IOException | RuntimeException | Error e) {
      arena.close();
      throw e;
    }
  }

  /**
   * Maps a file with its own confined arena, which {@link DatabaseReader#close()} closes: usable by
   * the opening thread only, and closed without the handshake with every thread that closing a
   * shared arena costs.
   */
  public static DatabaseReader openConfined(Path file, boolean verifyChecksum) throws IOException {
    Arena arena = Arena.ofConfined();
    try {
      return mapInto(file, arena, arena, verifyChecksum);
    } catch (IOException | RuntimeException | Error e) {
      arena.close();
      throw e;
    }
  }

  /** Maps a file into a caller-owned arena. */
  public static DatabaseReader map(Path file, Arena arena, boolean verifyChecksum)
      throws IOException {
    return mapInto(file, arena, null, verifyChecksum);
  }

  private static DatabaseReader mapInto(Path file, Arena arena, Arena owned, boolean verify)
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

  /** Reads a database from bytes (not copied), verifying the checksum. */
  public static DatabaseReader fromBytes(byte[] bytes) throws CorruptDatabaseException {
    return read(
        MemorySegment.ofArray(bytes).asReadOnly(), "bytes[" + bytes.length + "]", null, true);
  }

  /** Verifies a file completely (structure and checksum) without keeping it open. */
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
}
