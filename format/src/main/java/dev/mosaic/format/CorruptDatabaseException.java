package dev.mosaic.format;

import java.io.IOException;

/**
 * A database file or buffer that cannot be read: truncated, corrupt, wrong magic, unsupported
 * format version, or a checksum mismatch. The message names the source, the segment and the byte
 * offset where the problem was found.
 */
public class CorruptDatabaseException extends IOException {
  private final String source;
  private final String segment;
  private final long offset;

  public CorruptDatabaseException(String source, String segment, long offset, String problem) {
    super(source + ": " + problem + " (segment " + segment + ", offset " + offset + ")");
    this.source = source;
    this.segment = segment;
    this.offset = offset;
  }

  /** The file name or description of the bytes that were read. */
  public String source() {
    return source;
  }

  /** The segment being read when the problem was found ("header", "trailer", a field name...). */
  public String segment() {
    return segment;
  }

  /** The byte offset of the problem from the start of the file. */
  public long offset() {
    return offset;
  }
}
