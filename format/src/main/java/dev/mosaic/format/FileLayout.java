package dev.mosaic.format;

import java.util.List;

/**
 * How a partition file is laid out (see {@code format/FORMAT.md}): its segments in file order, how
 * its payloads are stored, and which fields have a Bloom filter. For inspection tools; queries
 * never need it. Immutable.
 *
 * @param segments the file's directory, in file order
 * @param payloadsCompressed whether payloads are stored as compressed blocks
 * @param payloadCodec {@code raw}, {@code lz4} (format version 2) or {@code zstd} (blocks with
 *     dictionaries, version 3)
 * @param payloadBlockCount number of compressed payload blocks (0 for raw payloads)
 * @param payloadDictionaryBytes bytes of the zstd dictionaries stored with the blocks (0 otherwise)
 * @param payloadBytesStored payload bytes as stored (compressed blocks without dictionaries, or the
 *     raw bytes)
 * @param payloadBytesUncompressed payload bytes before compression
 * @param bloomFilterFields the fields having a Bloom filter, in schema order
 */
public record FileLayout(
    List<Segment> segments,
    boolean payloadsCompressed,
    String payloadCodec,
    int payloadBlockCount,
    long payloadDictionaryBytes,
    long payloadBytesStored,
    long payloadBytesUncompressed,
    List<String> bloomFilterFields) {
  public FileLayout {
    segments = List.copyOf(segments);
    bloomFilterFields = List.copyOf(bloomFilterFields);
  }

  /**
   * One directory entry.
   *
   * @param kind {@code schema}, {@code payload}, {@code filterable}, {@code sortable}, {@code full}
   *     or {@code bloom}
   * @param field the field's name, or null for the schema and payload segments
   * @param offset where the segment starts in the file, in bytes
   * @param length its length in bytes
   */
  public record Segment(String kind, String field, long offset, long length) {}
}
