package dev.mosaic.api.feedfile;

import java.util.Objects;

/**
 * One record of a snapshot file that is not a valid offer; the rest of the file is still read.
 *
 * <p>Thread safety: immutable (the raw bytes are not copied: do not modify them).
 *
 * @param file the file name
 * @param record the line number (JSON lines, from 1, the header being line 1) or the record number
 *     (delimited Protobuf, from 1, the header being record 1)
 * @param reason why it is not an offer, naming the file and the line or record
 * @param raw the record's bytes as read
 */
public record MalformedRecord(String file, long record, String reason, byte[] raw) {
  public MalformedRecord {
    Objects.requireNonNull(file, "file");
    Objects.requireNonNull(reason, "reason");
    Objects.requireNonNull(raw, "raw");
  }
}
