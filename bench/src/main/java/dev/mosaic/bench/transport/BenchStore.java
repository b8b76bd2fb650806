package dev.mosaic.bench.transport;

import dev.mosaic.format.io.DurableFiles;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.partition.RejectedFileException;
import dev.mosaic.partition.StreamingDigest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.zip.CRC32C;

/**
 * A file-backed {@link ReceivingStore} for the transport benchmark: stages beside the final name,
 * fsyncs, verifies the trailer CRC32C written by {@link #writeSource} (a full re-read, as a real
 * store's format verification would), renames atomically and fsyncs the directory.
 */
final class BenchStore implements ReceivingStore {
  private final Path dir;
  private final Map<Integer, Map<Integer, Long>> latest = new ConcurrentHashMap<>();
  private final AtomicInteger published = new AtomicInteger();

  BenchStore(Path dir) throws IOException {
    this.dir = Files.createDirectories(dir);
  }

  int published() {
    return published.get();
  }

  private Path path(PartitionFileId id) {
    return new PartitionLayout(dir).file(id);
  }

  @Override
  public StagedFile stage(PartitionFileId id, long size) throws IOException {
    Long held = latestVersions(id.schemaVersion()).get(id.partition());
    if (held != null && held >= id.version()) {
      throw new RejectedFileException(id + " is not newer than held version " + held);
    }
    Path target = path(id);
    Files.createDirectories(target.getParent());
    Path tmp = PartitionLayout.tempFileFor(target);
    Files.createFile(tmp);
    return new StagedFile() {
      private boolean done;

      @Override
      public Path path() {
        return tmp;
      }

      @Override
      public void publish() throws IOException {
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.READ)) {
          verifyTrailer(ch, tmp);
        }
        DurableFiles.publish(tmp, target);
        latest
            .computeIfAbsent(id.schemaVersion(), s -> new ConcurrentHashMap<>())
            .merge(id.partition(), id.version(), Math::max);
        done = true;
        published.incrementAndGet();
      }

      @Override
      public void close() {
        if (!done) {
          try {
            Files.deleteIfExists(tmp);
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        }
      }
    };
  }

  /** Deletes the published files of {@code id}'s partition older than it (keeps the disk small). */
  void deleteOlderThan(PartitionFileId id) throws IOException {
    for (long v = id.version() - 1; v >= 1; v--) {
      Files.deleteIfExists(path(new PartitionFileId(id.schemaVersion(), id.partition(), v)));
    }
  }

  @Override
  public Optional<Path> file(PartitionFileId id) {
    Path p = path(id);
    return Files.exists(p) ? Optional.of(p) : Optional.empty();
  }

  @Override
  public Map<Integer, Long> latestVersions(int schemaVersion) {
    return Map.copyOf(latest.getOrDefault(schemaVersion, Map.of()));
  }

  static void verifyTrailer(FileChannel ch, Path file) throws IOException {
    StreamingDigest digest = new StreamingDigest();
    ByteBuffer buf = ByteBuffer.allocateDirect(1 << 20);
    long pos = 0;
    int n;
    while ((n = ch.read(buf, pos)) > 0) {
      pos += n;
      buf.flip();
      digest.update(buf);
      buf.clear();
    }
    try {
      digest.finish();
    } catch (StreamingDigest.MismatchException e) {
      throw new RejectedFileException("corrupt file " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * Writes {@code size} pseudo-random bytes ending as a partition file does: the CRC32C of the
   * bytes before it (little-endian u32) and the marker {@code MEND}.
   */
  static Path writeSource(Path file, long size, long seed) throws IOException {
    Files.createDirectories(file.getParent());
    CRC32C crc = new CRC32C();
    java.util.SplittableRandom random = new java.util.SplittableRandom(seed);
    try (FileChannel ch =
        FileChannel.open(
            file,
            StandardOpenOption.CREATE,
            StandardOpenOption.TRUNCATE_EXISTING,
            StandardOpenOption.WRITE)) {
      ByteBuffer buf = ByteBuffer.allocate(1 << 20);
      long remaining = size - 8;
      while (remaining > 0) {
        buf.clear();
        int n = (int) Math.min(buf.capacity(), remaining);
        for (int i = 0; i + 8 <= n; i += 8) {
          buf.putLong(random.nextLong());
        }
        while (buf.position() < n) {
          buf.put((byte) random.nextInt());
        }
        buf.flip();
        crc.update(buf.duplicate());
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        remaining -= n;
      }
      ch.write(
          ByteBuffer.allocate(8)
              .order(java.nio.ByteOrder.LITTLE_ENDIAN)
              .putInt(0, (int) crc.getValue())
              .put(4, new byte[] {'M', 'E', 'N', 'D'}));
    }
    return file;
  }
}
