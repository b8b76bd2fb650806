package dev.mosaic.searcher;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.io.DurableFiles;
import dev.mosaic.partition.DigestMismatchException;
import dev.mosaic.partition.FileDigest;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore.StagedFile;
import dev.mosaic.partition.RejectedFileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A file being received by a {@link PartitionStore}: its temporary path, and its publication, which
 * fsyncs and verifies the bytes (outside the store's lock) before the store renames it into place.
 * Closing it, published or not, deletes what is left of the temporary file and ends its reservation
 * of disk space.
 *
 * <p>Thread safety: not thread safe: one receiver writes and publishes it.
 */
final class StagedPartitionFile implements StagedFile {
  // logs under the store's name: what the store does with a staged file is the store's story
  private static final Logger LOG = LoggerFactory.getLogger(PartitionStore.class);

  private final PartitionStore store;
  private final PartitionFileId id;
  private final long expectedSize;
  private final Path temp;
  private boolean done;

  /** The temporary file was moved into place: nothing is left to delete. */
  private boolean moved;

  StagedPartitionFile(PartitionStore store, PartitionFileId id, long expectedSize, Path temp) {
    this.store = store;
    this.id = id;
    this.expectedSize = expectedSize;
    this.temp = temp;
  }

  @Override
  public Path path() {
    return temp;
  }

  @Override
  public void publish() throws IOException {
    publish(null);
  }

  /** Compares while it verifies: no extra pass over the file. */
  @Override
  public void publish(FileDigest expected) throws IOException {
    if (done) {
      throw new IllegalStateException(id + ": staged file already published or closed");
    }
    try {
      publishOrReject(expected);
    } finally {
      close();
    }
  }

  /** {@code expected}: null when any verified content will do. */
  private void publishOrReject(FileDigest expected) throws IOException {
    long size;
    try {
      size = Files.size(temp);
    } catch (NoSuchFileException e) {
      throw new RejectedFileException(id + ": staged file " + temp + " vanished before publishing");
    }
    // with an expected digest, a wrong size is told as a digest mismatch, after verification
    if (expected == null && expectedSize >= 0 && size != expectedSize) {
      throw new RejectedFileException(
          id + ": expected " + expectedSize + " bytes but received " + size);
    }
    DurableFiles.force(temp);
    VerifiedFile v;
    try {
      v = VerifiedFile.verify(temp);
    } catch (CorruptDatabaseException e) {
      throw new RejectedFileException(id + ": fails verification: " + e.getMessage(), e);
    } catch (UnsupportedOperationException | IllegalArgumentException | IllegalStateException e) {
      throw new RejectedFileException(id + ": cannot be read: " + e.getMessage(), e);
    }
    if (expected != null && !v.digest().equals(expected)) {
      throw new DigestMismatchException(id.toString(), expected, v.digest());
    }
    if (v.schema().version() != id.schemaVersion()) {
      throw new RejectedFileException(
          id
              + ": the file's schema version is "
              + v.schema().version()
              + ", announced "
              + id.schemaVersion());
    }
    store.publishVerified(id, temp, v);
    moved = true;
  }

  @Override
  public void close() {
    if (done) {
      return;
    }
    done = true;
    store.stagingEnded(id);
    if (moved) {
      return; // (deleting the moved name would throw and catch inside, per published file)
    }
    try {
      Files.deleteIfExists(temp);
    } catch (IOException e) {
      LOG.warn("could not delete staged file {}: {}", temp, e.toString());
    }
  }
}
