package dev.mosaic.transport;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.partition.RejectedFileException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * A small real file-backed {@link ReceivingStore} for tests: {@code <dir>/v<schema>/<partition>/
 * <version>.yocto}, staged under a hidden temporary name in the same directory, fsynced, verified
 * by a pluggable {@link Verifier}, atomically renamed. Keeps every version (tests check that each
 * reached every node).
 */
final class FileStore implements ReceivingStore {
  /** Checks a complete file before it becomes visible. */
  interface Verifier {
    void verify(Path file) throws IOException;
  }

  static final String SUFFIX = ".yocto";

  private final Path dir;
  private final Set<Integer> schemas;
  private final Verifier verifier;
  private final Map<Integer, Map<Integer, Long>> latest = new ConcurrentHashMap<>();

  FileStore(Path dir, Set<Integer> schemas, Verifier verifier) throws IOException {
    this.dir = Files.createDirectories(dir);
    this.schemas = schemas;
    this.verifier = verifier;
    try (Stream<Path> files = Files.walk(dir)) {
      files
          .filter(p -> p.getFileName().toString().endsWith(SUFFIX))
          .filter(p -> !p.getFileName().toString().startsWith("."))
          .forEach(
              p -> {
                int schema =
                    Integer.parseInt(
                        p.getParent().getParent().getFileName().toString().substring(1));
                int partition = Integer.parseInt(p.getParent().getFileName().toString());
                long version = Long.parseLong(p.getFileName().toString().replace(SUFFIX, ""));
                latest
                    .computeIfAbsent(schema, s -> new ConcurrentHashMap<>())
                    .merge(partition, version, Math::max);
              });
    }
  }

  Path dir() {
    return dir;
  }

  Path path(PartitionFileId id) {
    return dir.resolve("v" + id.schemaVersion())
        .resolve(Integer.toString(id.partition()))
        .resolve(id.version() + SUFFIX);
  }

  @Override
  public synchronized StagedFile stage(PartitionFileId id, long size) throws IOException {
    if (!schemas.contains(id.schemaVersion())) {
      throw new RejectedFileException(
          "unknown schema version " + id.schemaVersion() + " (this store serves " + schemas + ")");
    }
    Long held = latestVersions(id.schemaVersion()).get(id.partition());
    if (held != null && held >= id.version()) {
      throw new RejectedFileException(
          "version "
              + id.version()
              + " of partition "
              + id.partition()
              + " is not newer than held "
              + held);
    }
    Path target = path(id);
    Files.createDirectories(target.getParent());
    Path tmp = target.resolveSibling("." + id.version() + SUFFIX + ".tmp-" + UUID.randomUUID());
    Files.createFile(tmp);
    return new StagedFile() {
      private boolean published;

      @Override
      public Path path() {
        return tmp;
      }

      @Override
      public void publish() throws IOException {
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
          ch.force(true);
        }
        if (Files.size(tmp) != size) {
          throw new RejectedFileException(
              "staged " + Files.size(tmp) + " bytes of " + id + ", expected " + size);
        }
        verifier.verify(tmp);
        synchronized (FileStore.this) {
          Long now = latestVersions(id.schemaVersion()).get(id.partition());
          if (now != null && now >= id.version()) {
            throw new RejectedFileException(id + " is not newer than held " + now);
          }
          try {
            Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE);
          } catch (AtomicMoveNotSupportedException e) {
            throw new IOException("atomic rename not supported in " + dir, e);
          }
          latest
              .computeIfAbsent(id.schemaVersion(), s -> new ConcurrentHashMap<>())
              .merge(id.partition(), id.version(), Math::max);
        }
        try (FileChannel d = FileChannel.open(target.getParent(), StandardOpenOption.READ)) {
          d.force(true);
        }
        published = true;
      }

      @Override
      public void close() {
        if (!published) {
          try {
            Files.deleteIfExists(tmp);
          } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
          }
        }
      }
    };
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

  /** Every visible (published) file. */
  Stream<Path> visibleFiles() throws IOException {
    return Files.walk(dir)
        .filter(Files::isRegularFile)
        .filter(p -> !p.getFileName().toString().startsWith("."));
  }

  /** Staged files not yet published or deleted. */
  long stagedCount() throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(p -> p.getFileName().toString().contains(".tmp-")).count();
    }
  }
}
