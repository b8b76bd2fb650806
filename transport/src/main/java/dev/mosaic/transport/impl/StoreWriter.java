package dev.mosaic.transport.impl;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.partition.ReceivingStore.StagedFile;
import dev.mosaic.partition.RejectedFileException;
import dev.mosaic.partition.StreamingDigest;
import dev.mosaic.transport.PekkoTransport;
import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.function.LongConsumer;
import org.apache.pekko.NotUsed;
import org.apache.pekko.stream.javadsl.FileIO;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.util.ByteString;

/**
 * Streams received bytes into a {@link ReceivingStore}: stage, write chunk by chunk (never the
 * whole file in memory), check length and CRC32C, publish. Anything short of a successful publish
 * deletes the staged bytes. Not instantiable.
 */
final class StoreWriter {
  private StoreWriter() {}

  /** Stages on the blocking executor; fails with the store's {@link RejectedFileException}. */
  static CompletionStage<StagedFile> stage(
      ReceivingStore store, PartitionFileId id, long size, Executor blocking) {
    return CompletableFuture.supplyAsync(
        () -> {
          try {
            return store.stage(id, size);
          } catch (IOException e) {
            throw new CompletionException(e);
          }
        },
        blocking);
  }

  /**
   * Writes {@code body} (the {@link ByteString} chunks after the header) into {@code staged},
   * verifies the length and the content CRC32C ({@link StreamingDigest}), then publishes (fsync,
   * format verification, atomic rename) on the blocking executor. Always closes {@code staged}.
   *
   * @return completes when published; fails with {@link RejectedFileException} carrying the reason
   */
  static CompletionStage<Void> fillAndPublish(
      StagedFile staged,
      PartitionFileId id,
      long size,
      long crc32c,
      Source<Object, NotUsed> body,
      PekkoTransport transport,
      LongConsumer onBytes) {
    Executor blocking = transport.blockingExecutor();
    StreamingDigest digest = new StreamingDigest();
    long[] count = {0};
    CompletionStage<?> written;
    try {
      written =
          transport.runWith(
              body.map(
                      o -> {
                        ByteString b = (ByteString) o;
                        Frames.update(digest, b);
                        count[0] += b.size();
                        onBytes.accept(b.size());
                        return b;
                      })
                  // while the file write is under way, the next chunks (a TLS record each) are
                  // joined
                  // into one write
                  .batchWeighted(
                      ConnectionBuffers.FILE_WRITE_BATCH,
                      b -> (long) b.size(),
                      b -> b,
                      ByteString::concat),
              FileIO.toPath(staged.path()));
    } catch (RuntimeException e) {
      staged.close();
      return CompletableFuture.failedFuture(e);
    }
    return written.handleAsync(
        (io, err) -> {
          try {
            if (count[0] != size) {
              throw new RejectedFileException(
                  "truncated stream for "
                      + id
                      + ": received "
                      + count[0]
                      + " of "
                      + size
                      + " bytes"
                      + (err == null ? "" : " (" + rootMessage(err) + ")"),
                  err);
            }
            if (err != null) {
              throw new RejectedFileException(
                  "could not write " + id + " to " + staged.path() + ": " + rootMessage(err), err);
            }
            long got;
            try {
              got = digest.finish().crc32c();
            } catch (StreamingDigest.MismatchException e) {
              throw new RejectedFileException(
                  "checksum mismatch for " + id + ": " + e.getMessage(), e);
            }
            if (got != crc32c) {
              throw new RejectedFileException(
                  String.format(
                      "checksum mismatch for %s: header says crc32c=%08x, the %d received bytes"
                          + " have content crc32c=%08x",
                      id, crc32c, size, got));
            }
            staged.publish();
            return null;
          } catch (IOException e) {
            throw new CompletionException(e);
          } finally {
            staged.close();
          }
        },
        blocking);
  }

  static String rootMessage(Throwable t) {
    Throwable c = t;
    while ((c instanceof CompletionException || c.getCause() != null && c.getMessage() == null)
        && c.getCause() != null) {
      c = c.getCause();
    }
    return c.getMessage() == null ? c.getClass().getSimpleName() : c.getMessage();
  }

  /** The reason to report for a failed receive. */
  static String reason(Throwable t) {
    Throwable c = t;
    while (c instanceof CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    if (c instanceof RejectedFileException) {
      return c.getMessage();
    }
    return c.getClass().getSimpleName() + ": " + rootMessage(c);
  }
}
