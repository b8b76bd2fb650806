package dev.mosaic.api.feedfile;

import com.google.protobuf.util.JsonFormat;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.schema.ProtoTypes;
import dev.mosaic.format.io.DurableFiles;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Writes partner snapshot files ({@link SnapshotFileFormat}), as partners (and tests) do.
 *
 * <p>Thread safety: immutable, safe from any thread.
 */
public final class SnapshotFileWriter {
  private final JsonFormat.Printer json;

  /** A writer printing {@code Any} payloads with the api module's types. */
  public SnapshotFileWriter() {
    this(ProtoTypes.builtIn().typeRegistry());
  }

  /** A writer printing {@code Any} payloads through {@code registry}. */
  public SnapshotFileWriter(JsonFormat.TypeRegistry registry) {
    this.json =
        JsonFormat.printer()
            .usingTypeRegistry(Objects.requireNonNull(registry, "registry"))
            .omittingInsignificantWhitespace()
            .preservingProtoFieldNames();
  }

  /** Writes the snapshot: its header (without offers), then one record per offer. */
  public void write(FeedSnapshot snapshot, SnapshotFileFormat format, OutputStream out)
      throws IOException {
    FeedSnapshot header = snapshot.toBuilder().clearOffers().build();
    switch (format) {
      case JSON_LINES -> {
        writeLine(out, json.print(header));
        for (Offer offer : snapshot.getOffersList()) {
          writeLine(out, json.print(offer));
        }
      }
      case DELIMITED_PROTOBUF -> {
        header.writeDelimitedTo(out);
        for (Offer offer : snapshot.getOffersList()) {
          offer.writeDelimitedTo(out);
        }
      }
    }
  }

  /**
   * Drops a snapshot file into a watched directory the safe way ({@link DurableFiles}): written and
   * forced under a temporary name ({@code <name>.<nonce>.tmp}), then renamed to {@code <name>}
   * atomically, so a watcher that skips temporary names never sees it half written.
   *
   * @param name the final file name; its extension gives the format
   * @return the file
   */
  public Path writeAtomically(FeedSnapshot snapshot, Path directory, String name)
      throws IOException {
    Path target = directory.resolve(name);
    SnapshotFileFormat format =
        SnapshotFileFormat.of(target)
            .orElseThrow(
                () -> new IllegalArgumentException(name + ": use a .jsonl or .pb file name"));
    DurableFiles.write(
        target,
        temp -> {
          try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(temp), 1 << 16)) {
            write(snapshot, format, out);
          }
          return null;
        });
    return target;
  }

  private static void writeLine(OutputStream out, String line) throws IOException {
    out.write(line.getBytes(StandardCharsets.UTF_8));
    out.write('\n');
  }
}
