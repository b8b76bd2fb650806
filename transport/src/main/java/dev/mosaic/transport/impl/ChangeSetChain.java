package dev.mosaic.transport.impl;

import dev.mosaic.format.ChangeSet;
import dev.mosaic.format.Database;
import dev.mosaic.format.Schema;
import dev.mosaic.partition.ChangeSetFile;
import dev.mosaic.partition.PartitionLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The change sets kept beside a partition's files ({@link ChangeSetFile}, one per version, naming
 * its base version), followed back from the version being sent to a version a receiver holds and
 * composed into one change set ({@link ChangeSet#then}): what a sender offers a receiver that
 * answered base_missing because it missed versions in between (a version superseded before it was
 * delivered). The indexer keeps change sets longer than files for this.
 *
 * <p>Thread safety: immutable; {@link #since} reads files, so call it on a blocking executor.
 */
final class ChangeSetChain {
  private static final Logger LOG = LoggerFactory.getLogger(ChangeSetChain.class);

  /** Most change sets composed into one; an older base gets the file. */
  static final int MAX_LINKS = 32;

  private final Path file;
  private final long version;
  private final long fileSize;
  private final DeltaOffer newest;

  /**
   * @param file the partition file being sent, beside which the older versions' change sets lie
   * @param version its version
   * @param fileSize its size (a composed change set must be worth it against it)
   * @param newest the file's own change set, as offered first (its bytes and content CRC32C are
   *     reused, not read again)
   */
  ChangeSetChain(Path file, long version, long fileSize, DeltaOffer newest) {
    this.file = file;
    this.version = version;
    this.fileSize = fileSize;
    this.newest = newest;
  }

  /**
   * The change set from {@code heldVersion} to this version, when every link between them is kept
   * beside the file and the result is well under the file's size; empty otherwise (the receiver
   * then gets the file).
   */
  Optional<DeltaOffer> since(long heldVersion) {
    if (heldVersion <= 0 || heldVersion >= newest.baseVersion()) {
      return Optional.empty();
    }
    try {
      List<byte[]> links = new ArrayList<>(List.of(newest.changes()));
      long at = newest.baseVersion();
      while (at != heldVersion) {
        Optional<ChangeSetFile> link =
            ChangeSetFile.read(file.resolveSibling(PartitionLayout.fileName(at)));
        if (links.size() == MAX_LINKS
            || link.isEmpty()
            || link.get().baseVersion() >= at
            || link.get().baseVersion() < heldVersion) {
          return Optional.empty();
        }
        links.add(link.get().changes());
        at = link.get().baseVersion();
      }
      Collections.reverse(links);
      Schema schema;
      try (Database db = Database.open(file)) {
        schema = db.schema();
      }
      ChangeSet composed = ChangeSet.decode(schema, links.getFirst());
      for (byte[] link : links.subList(1, links.size())) {
        composed = composed.then(ChangeSet.decode(schema, link));
      }
      DeltaOffer offer = DeltaOffer.of(heldVersion, composed.encode(), newest.contentCrc32c());
      return offer.worthIt(version, fileSize) ? Optional.of(offer) : Optional.empty();
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "cannot compose the change sets of {} since version {}; sending the file",
          file,
          heldVersion,
          e);
      return Optional.empty();
    }
  }
}
