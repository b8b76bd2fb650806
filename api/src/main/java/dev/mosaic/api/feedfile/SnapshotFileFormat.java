package dev.mosaic.api.feedfile;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.Optional;

/**
 * The two layouts of a partner snapshot file. Both hold a header, a {@code FeedSnapshot} without
 * offers (partner id, snapshot id, creation time), then one {@code Offer} per record.
 *
 * <ul>
 *   <li>{@link #JSON_LINES} ({@code .jsonl}): UTF-8, one JSON object per line in Protobuf's JSON
 *       mapping ({@code partner_id} or {@code partnerId}); blank lines are skipped.
 *   <li>{@link #DELIMITED_PROTOBUF} ({@code .pb}): each message preceded by its size as a varint,
 *       as {@code writeDelimitedTo} writes it.
 * </ul>
 *
 * <p>Thread safety: immutable.
 */
public enum SnapshotFileFormat {
  JSON_LINES(".jsonl"),
  DELIMITED_PROTOBUF(".pb");

  private final String extension;

  SnapshotFileFormat(String extension) {
    this.extension = extension;
  }

  /** The file name extension, dot included. */
  public String extension() {
    return extension;
  }

  /** The format a file name's extension names, if any. */
  public static Optional<SnapshotFileFormat> of(Path file) {
    String name = file.getFileName().toString();
    return Arrays.stream(values()).filter(f -> name.endsWith(f.extension)).findFirst();
  }
}
