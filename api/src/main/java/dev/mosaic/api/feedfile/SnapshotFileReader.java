package dev.mosaic.api.feedfile;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.schema.ProtoTypes;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Reads partner snapshot files ({@link SnapshotFileFormat}) into a {@link FeedSnapshot}.
 *
 * <p>The header is the file's first record: a {@code FeedSnapshot} with a partner id and no offers.
 * Every later record is one {@code Offer}; an offer with no partner id takes the header's. A record
 * that is not a valid offer (bad JSON, an unknown field, a wrong value, bytes that do not parse, a
 * record over {@code maxRecordBytes}) is reported as a {@link MalformedRecord} naming the file and
 * line or record number, and left out. A file that cannot be read as a whole (no or a bad header, a
 * delimited file cut in the middle of a record) is refused with a {@link
 * MalformedSnapshotFileException}: a full snapshot missing its tail would delete offers.
 *
 * <p>Offers whose payload is an {@code Any} ({@code other}) are read from JSON with the type
 * registry given (by default the api module's own types).
 *
 * <p>Thread safety: immutable, safe from any thread.
 */
public final class SnapshotFileReader {
  /** Largest record accepted by default: 4 MiB. */
  public static final int DEFAULT_MAX_RECORD_BYTES = 4 << 20;

  private final JsonFormat.Parser json;
  private final int maxRecordBytes;

  /** A reader with the api module's types and {@link #DEFAULT_MAX_RECORD_BYTES}. */
  public SnapshotFileReader() {
    this(ProtoTypes.builtIn().typeRegistry(), DEFAULT_MAX_RECORD_BYTES);
  }

  /**
   * A reader resolving {@code Any} payloads in JSON through {@code registry}, refusing records over
   * {@code maxRecordBytes}.
   */
  public SnapshotFileReader(JsonFormat.TypeRegistry registry, int maxRecordBytes) {
    if (maxRecordBytes < 1) {
      throw new IllegalArgumentException("maxRecordBytes must be >= 1, got " + maxRecordBytes);
    }
    this.json = JsonFormat.parser().usingTypeRegistry(Objects.requireNonNull(registry, "registry"));
    this.maxRecordBytes = maxRecordBytes;
  }

  /**
   * Reads a snapshot file, its format given by its extension.
   *
   * @throws MalformedSnapshotFileException naming the file when the extension is unknown or the
   *     file cannot be read as a whole
   * @throws IOException if the file cannot be read
   */
  public SnapshotFile read(Path file) throws IOException {
    String name = file.getFileName().toString();
    SnapshotFileFormat format =
        SnapshotFileFormat.of(file)
            .orElseThrow(
                () ->
                    new MalformedSnapshotFileException(
                        name + ": unknown snapshot file extension; use .jsonl or .pb"));
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file), 1 << 16)) {
      return read(in, format, name);
    }
  }

  /**
   * Reads a snapshot file's content.
   *
   * @param name the file name, for messages
   */
  public SnapshotFile read(InputStream in, SnapshotFileFormat format, String name)
      throws IOException {
    return switch (format) {
      case JSON_LINES -> readJsonLines(in, name);
      case DELIMITED_PROTOBUF -> readDelimited(in, name);
    };
  }

  private SnapshotFile readJsonLines(InputStream in, String name) throws IOException {
    FeedSnapshot.Builder snapshot = null;
    List<MalformedRecord> malformed = new ArrayList<>();
    LineReader lines = new LineReader(in, maxRecordBytes);
    long lineNumber = 0;
    byte[] line;
    while ((line = lines.next()) != null) {
      lineNumber++;
      String where = name + " line " + lineNumber;
      if (lines.overlong()) {
        if (snapshot == null) {
          throw new MalformedSnapshotFileException(
              where + ": the header is over " + maxRecordBytes + " bytes");
        }
        malformed.add(
            new MalformedRecord(
                name, lineNumber, where + ": over " + maxRecordBytes + " bytes", line));
        continue;
      }
      String text = new String(line, StandardCharsets.UTF_8);
      if (text.isBlank()) {
        continue;
      }
      if (snapshot == null) {
        snapshot = header(where, () -> parseJson(text, FeedSnapshot.newBuilder()).build());
        continue;
      }
      try {
        snapshot.addOffers(withPartner(parseJson(text, Offer.newBuilder()), snapshot));
      } catch (InvalidProtocolBufferException e) {
        malformed.add(
            new MalformedRecord(
                name, lineNumber, where + ": not an Offer: " + e.getMessage(), line));
      }
    }
    if (snapshot == null) {
      throw new MalformedSnapshotFileException(name + ": empty file; the header line is missing");
    }
    return new SnapshotFile(snapshot.build(), malformed);
  }

  private SnapshotFile readDelimited(InputStream stream, String name) throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(stream);
    FeedSnapshot.Builder snapshot = null;
    List<MalformedRecord> malformed = new ArrayList<>();
    long record = 0;
    while (!in.isAtEnd()) {
      record++;
      int offset = in.getTotalBytesRead();
      String where = name + " record " + record + " at byte " + offset;
      byte[] bytes;
      try {
        int length = in.readRawVarint32();
        if (length < 0 || length > maxRecordBytes) {
          throw new MalformedSnapshotFileException(
              where
                  + ": size "
                  + length
                  + " is not in [0, "
                  + maxRecordBytes
                  + "]; the file is"
                  + " not delimited Protobuf or is damaged");
        }
        bytes = in.readRawBytes(length);
      } catch (InvalidProtocolBufferException e) {
        throw new MalformedSnapshotFileException(
            where + ": the file ends inside a record (truncated or damaged): " + e.getMessage(), e);
      }
      if (snapshot == null) {
        snapshot = header(where, () -> FeedSnapshot.parseFrom(bytes));
        continue;
      }
      try {
        snapshot.addOffers(withPartner(Offer.newBuilder().mergeFrom(bytes), snapshot));
      } catch (InvalidProtocolBufferException e) {
        malformed.add(
            new MalformedRecord(name, record, where + ": not an Offer: " + e.getMessage(), bytes));
      }
    }
    if (snapshot == null) {
      throw new MalformedSnapshotFileException(name + ": empty file; the header record is missing");
    }
    return new SnapshotFile(snapshot.build(), malformed);
  }

  private static FeedSnapshot.Builder header(String where, HeaderParser parser)
      throws MalformedSnapshotFileException {
    FeedSnapshot header;
    try {
      header = parser.parse();
    } catch (InvalidProtocolBufferException e) {
      throw new MalformedSnapshotFileException(
          where + ": the header is not a FeedSnapshot: " + e.getMessage(), e);
    }
    if (header.getPartnerId().isEmpty()) {
      throw new MalformedSnapshotFileException(where + ": the header has no partner_id");
    }
    if (header.getOffersCount() > 0) {
      throw new MalformedSnapshotFileException(
          where + ": the header holds offers; put one offer per record after it");
    }
    return header.toBuilder();
  }

  private <B extends com.google.protobuf.Message.Builder> B parseJson(String text, B builder)
      throws InvalidProtocolBufferException {
    json.merge(text, builder);
    return builder;
  }

  private static Offer withPartner(Offer.Builder offer, FeedSnapshot.Builder snapshot) {
    if (offer.getPartnerId().isEmpty()) {
      offer.setPartnerId(snapshot.getPartnerId());
    }
    return offer.build();
  }

  private interface HeaderParser {
    FeedSnapshot parse() throws InvalidProtocolBufferException;
  }

  /** Reads lines as bytes, keeping at most {@code max} bytes of a line. Not thread safe. */
  private static final class LineReader {
    private final InputStream in;
    private final int max;
    private final ByteArrayOutputStream line = new ByteArrayOutputStream();
    private boolean overlong;

    LineReader(InputStream in, int max) {
      this.in = in;
      this.max = max;
    }

    /** The next line without its end ({@code \n} or {@code \r\n}), or null at the end. */
    byte[] next() throws IOException {
      line.reset();
      overlong = false;
      int b = in.read();
      if (b < 0) {
        return null;
      }
      while (b >= 0 && b != '\n') {
        if (line.size() < max) {
          line.write(b);
        } else {
          overlong = true;
        }
        b = in.read();
      }
      byte[] bytes = line.toByteArray();
      int end = bytes.length;
      if (!overlong && end > 0 && bytes[end - 1] == '\r') {
        return java.util.Arrays.copyOf(bytes, end - 1);
      }
      return bytes;
    }

    /** True when the last line was longer than the maximum (and was cut). */
    boolean overlong() {
      return overlong;
    }
  }
}
