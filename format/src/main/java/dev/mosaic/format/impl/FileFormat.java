package dev.mosaic.format.impl;

import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** Constants of the file format; see {@code format/FORMAT.md} for the byte layout. */
final class FileFormat {
  private FileFormat() {}

  /** "MOSAICDB" read as a little-endian long. */
  static final long MAGIC = 0x4244434941534F4DL;

  /** "MEND" read as a little-endian int: the last four bytes of every file. */
  static final int END_MAGIC = 0x444E454D;

  /** Raw payloads only; still written when no version 2 feature is used. */
  static final int FORMAT_VERSION_1 = 1;

  /** Adds LZ4 payload blocks (payload flags bit 0) and Bloom filter segments. */
  static final int FORMAT_VERSION_2 = 2;

  /** Adds zstd payload blocks with dictionaries (payload flags 2). */
  static final int FORMAT_VERSION_3 = 3;

  /** The newest version this code reads. */
  static final int MAX_FORMAT_VERSION = FORMAT_VERSION_3;

  /** Payload segment flag: payloads stored as LZ4 blocks. */
  static final int PAYLOAD_FLAG_LZ4_BLOCKS = 1;

  /** Payload segment flags value: payloads stored as zstd blocks with dictionaries (version 3). */
  static final int PAYLOAD_FLAG_ZSTD_BLOCKS = 2;

  /**
   * The largest uncompressed LZ4 payload block a writer makes (16 MiB): a block is closed before a
   * payload that would take it over this size, and payloads are stored raw when one alone is
   * larger. A reader refuses a block claiming more as corrupt, so a damaged (or hostile) file with
   * a valid checksum cannot make a query thread allocate more than this.
   */
  static final int MAX_PAYLOAD_BLOCK_BYTES = 16 << 20;

  /**
   * The largest target block size a builder or a merge accepts (8 MiB): content-defined cutting may
   * close a block up to twice its target, which must stay within {@link #MAX_PAYLOAD_BLOCK_BYTES}.
   */
  static final int MAX_PAYLOAD_BLOCK_RULE = MAX_PAYLOAD_BLOCK_BYTES / 2;

  static final int CHECKSUM_CRC32C = 1;

  static final int HEADER_SIZE = 32;
  static final int DIRECTORY_ENTRY_SIZE = 24;
  static final int TRAILER_SIZE = 16;
  static final int FIELD_HEADER_SIZE = 48;

  static final int KIND_SCHEMA = 1;
  static final int KIND_PAYLOAD = 2;
  static final int KIND_FILTERABLE = 3;
  static final int KIND_SORTABLE = 4;
  static final int KIND_FULL = 5;

  /** Format version 2: a Bloom filter over one field's values, after the payload segment. */
  static final int KIND_BLOOM = 6;

  static final int FLAG_SINGLE_VALUED = 1;
  static final int FLAG_ALL_LISTS = 2;

  static final int NO_FIELD = -1;

  static final ValueLayout.OfShort SHORT =
      ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  static final ValueLayout.OfInt INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  static final ValueLayout.OfLong LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
  static final ValueLayout.OfLong BIG_LONG =
      ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
  static final ValueLayout.OfInt BIG_INT =
      ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

  static int kindOf(FieldRole role) {
    return switch (role) {
      case FILTERABLE -> KIND_FILTERABLE;
      case SORTABLE -> KIND_SORTABLE;
      case FULL -> KIND_FULL;
    };
  }

  static String kindName(int kind) {
    return switch (kind) {
      case KIND_SCHEMA -> "schema";
      case KIND_PAYLOAD -> "payload";
      case KIND_FILTERABLE -> "filterable";
      case KIND_SORTABLE -> "sortable";
      case KIND_FULL -> "full";
      case KIND_BLOOM -> "bloom";
      default -> "unknown(" + kind + ")";
    };
  }

  static int typeCode(FieldType type) {
    return switch (type) {
      case INT -> 1;
      case LONG -> 2;
      case DOUBLE -> 3;
      case BOOLEAN -> 4;
      case STRING -> 5;
      case TIMESTAMP -> 6;
      case BYTES -> 7;
    };
  }

  /** The type of a code, or null for an unknown code. */
  static FieldType typeOf(int code) {
    return switch (code) {
      case 1 -> FieldType.INT;
      case 2 -> FieldType.LONG;
      case 3 -> FieldType.DOUBLE;
      case 4 -> FieldType.BOOLEAN;
      case 5 -> FieldType.STRING;
      case 6 -> FieldType.TIMESTAMP;
      case 7 -> FieldType.BYTES;
      default -> null;
    };
  }

  static int roleCode(FieldRole role) {
    return switch (role) {
      case FILTERABLE -> 1;
      case SORTABLE -> 2;
      case FULL -> 3;
    };
  }

  /** The role of a code, or null for an unknown code. */
  static FieldRole roleOf(int code) {
    return switch (code) {
      case 1 -> FieldRole.FILTERABLE;
      case 2 -> FieldRole.SORTABLE;
      case 3 -> FieldRole.FULL;
      default -> null;
    };
  }

  /** Fixed width in bytes of a type's comparable encoding, or 0 when variable. */
  static int fixedWidth(FieldType type) {
    return switch (type) {
      case INT -> 4;
      case LONG, DOUBLE, TIMESTAMP -> 8;
      case BOOLEAN -> 1;
      case STRING, BYTES -> 0;
    };
  }

  /** Number of 64-bit words of a bit set over {@code documents} documents. */
  static int words(int documents) {
    return (documents + 63) >>> 6;
  }

  /** Bytes of one document id in posting lists of a database of {@code documents} documents. */
  static int idBytes(int documents) {
    return documents <= 65536 ? 2 : 4;
  }

  /** True when a value with {@code count} documents is stored as a sorted id list. */
  static boolean isList(int count, int idBytes, int documents) {
    return (long) count * idBytes <= (long) words(documents) * 8;
  }

  /** Bits per entry of the document-to-value index for {@code values} distinct values. */
  static int bitWidth(int values) {
    return values <= 1 ? 0 : 32 - Integer.numberOfLeadingZeros(values - 1);
  }
}
