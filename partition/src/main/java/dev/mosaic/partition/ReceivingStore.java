package dev.mosaic.partition;

import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where a receiving node keeps partition files: the transport streams incoming bytes into a {@link
 * StagedFile} and publishes it; relays and catch-up read published files back. The searcher's
 * partition store implements this.
 *
 * <p>Thread safety: implementations must be safe for concurrent use.
 */
public interface ReceivingStore {

  /**
   * Starts receiving a file: returns a staging file (a temporary name in the final directory) that
   * is never visible to readers until {@link StagedFile#publish()} succeeds.
   *
   * @throws RejectedFileException when the store refuses the file up front (unknown schema version,
   *     a version not newer than the one held, store too busy), with the reason
   */
  StagedFile stage(PartitionFileId id, long size) throws IOException;

  /** The published file for that id, if held. */
  Optional<Path> file(PartitionFileId id);

  /**
   * The published file for that id, kept on disk (not removed by retention) until the returned
   * handle is closed: what a relay or a catch-up fetch reads while it streams the file. The default
   * keeps nothing (for stores that never delete a published file while it is asked for).
   */
  default Optional<HeldFile> hold(PartitionFileId id) {
    return file(id).map(p -> new HeldFile(p, () -> {}));
  }

  /** A published file kept on disk until {@link #close()}; close is idempotent. */
  final class HeldFile implements AutoCloseable {
    private final Path path;
    private Runnable release;

    /** {@code release} runs once, on the first close. */
    public HeldFile(Path path, Runnable release) {
      this.path = path;
      this.release = release;
    }

    /** The file. */
    public Path path() {
      return path;
    }

    @Override
    public void close() {
      Runnable r;
      synchronized (this) {
        r = release;
        release = null;
      }
      if (r != null) {
        r.run();
      }
    }
  }

  /** The newest published version of each partition held under a schema version. */
  Map<Integer, Long> latestVersions(int schemaVersion);

  /**
   * The newest published version of one partition, empty when none is held. Receivers ask this of
   * every push; a store of many partitions should answer it without building {@link
   * #latestVersions} (the default does).
   */
  default OptionalLong latestVersion(int schemaVersion, int partition) {
    Long v = latestVersions(schemaVersion).get(partition);
    return v == null ? OptionalLong.empty() : OptionalLong.of(v);
  }

  /** A file being received. Not thread safe: one receiver writes it. */
  interface StagedFile extends AutoCloseable {
    /** The temporary path to write the bytes to. */
    Path path();

    /**
     * Fsyncs, verifies (structure and checksum, with the format's reader), atomically renames into
     * place and fsyncs the directory.
     *
     * @throws RejectedFileException with a precise reason when verification fails; the staged bytes
     *     are deleted and the previous version keeps serving
     */
    void publish() throws IOException;

    /**
     * As {@link #publish()}, and refuses the file unless its size and content checksum are {@code
     * expected}'s: for a receiver that made the file itself (a rebuild from a change set) and must
     * not publish anything but what the manifest records. The default reads the file once more
     * before publishing; a store that verifies the content anyway should compare while it does.
     *
     * @throws DigestMismatchException when the file's size or checksum differs (nothing published;
     *     the staged bytes are deleted)
     * @throws RejectedFileException as {@link #publish()}
     */
    default void publish(FileDigest expected) throws IOException {
      FileDigest actual;
      try {
        actual = FileDigest.of(path());
      } catch (IOException e) {
        close();
        throw new RejectedFileException(e.getMessage(), e);
      }
      if (!actual.equals(expected)) {
        close();
        throw new DigestMismatchException(path().toString(), expected, actual);
      }
      publish();
    }

    /** Deletes the staged bytes unless published; idempotent. */
    @Override
    void close();
  }
}
