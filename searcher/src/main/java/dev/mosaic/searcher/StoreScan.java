package dev.mosaic.searcher;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.Database;
import dev.mosaic.partition.FileDigest;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Instant;
import java.util.HashSet;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link PartitionStore}'s scan of its root directory: takes the published files and pins found
 * on disk into the store's {@link PublishedFiles} (loading, and unless trusted verifying, each new
 * file) and drops the files that vanished from disk. On start it also deletes leftover temporary
 * files and quarantines files that fail verification (renamed to {@code *.corrupt}, never served).
 * Pruning and telling the listeners are left to the store.
 *
 * <p>Thread safety: safe for concurrent use. It holds no state of its own; it reads the disk
 * outside the store's lock and takes the lock only to read and change the published files.
 */
final class StoreScan {
  // logs under the store's name: the scan is the store's story
  private static final Logger LOG = LoggerFactory.getLogger(PartitionStore.class);
  private static final String TEMP_SUFFIX = PartitionLayout.TEMP_SUFFIX;
  private static final String CORRUPT_SUFFIX = ".corrupt";

  private final Path root;
  private final boolean verifyOnStart;
  // the store's lock, guarding "published"
  private final Object lock;
  private final PublishedFiles published;

  StoreScan(Path root, boolean verifyOnStart, Object lock, PublishedFiles published) {
    this.root = root;
    this.verifyOnStart = verifyOnStart;
    this.lock = lock;
    this.published = published;
  }

  /**
   * Scans the disk; on start also deletes temporary files and quarantines corrupt ones.
   *
   * @return the partitions whose files or pin changed, by schema version (empty when none)
   */
  Map<Integer, Set<Integer>> scan(boolean starting) throws IOException {
    Map<Integer, Set<Integer>> changed = new TreeMap<>();
    Set<PartitionFileId> seen = new HashSet<>();
    try (DirectoryStream<Path> schemaDirs = Files.newDirectoryStream(root, Files::isDirectory)) {
      for (Path schemaDir : schemaDirs) {
        OptionalInt parsedSchema =
            PartitionLayout.parseSchemaDirName(schemaDir.getFileName().toString());
        if (parsedSchema.isEmpty()) {
          continue;
        }
        int schemaVersion = parsedSchema.getAsInt();
        try (DirectoryStream<Path> partitionDirs =
            Files.newDirectoryStream(schemaDir, Files::isDirectory)) {
          for (Path partitionDir : partitionDirs) {
            OptionalInt parsedPartition =
                PartitionLayout.parsePartitionDirName(partitionDir.getFileName().toString());
            if (parsedPartition.isEmpty()) {
              continue;
            }
            int partition = parsedPartition.getAsInt();
            if (scanPartition(schemaVersion, partition, partitionDir, starting, seen)) {
              changed.computeIfAbsent(schemaVersion, k -> new HashSet<>()).add(partition);
            }
          }
        }
      }
    }
    // files we knew that vanished from disk
    synchronized (lock) {
      for (var se : published.bySchemaVersion().entrySet()) {
        for (var pe : se.getValue().partitions.entrySet()) {
          var it = pe.getValue().versions.values().iterator();
          while (it.hasNext()) {
            StoredFile f = it.next();
            if (!seen.contains(f.id()) && !Files.exists(f.path())) {
              LOG.warn("{} vanished from disk ({}), no longer served", f.id(), f.path());
              it.remove();
              published.modified(pe.getValue());
              changed.computeIfAbsent(se.getKey(), k -> new HashSet<>()).add(pe.getKey());
            }
          }
        }
      }
    }
    return changed;
  }

  /**
   * The hidden temporary file ({@code .<staged name>.<pid>.<nanos>.updating}) of a version being
   * rebuilt from a change set into a staged file (the format's {@code DatabaseUpdate}), left by a
   * crash during the rebuild.
   */
  private static boolean isRebuildLeftover(String name) {
    return name.startsWith(".") && name.endsWith(".updating");
  }

  private boolean scanPartition(
      int schemaVersion, int partition, Path dir, boolean starting, Set<PartitionFileId> seen)
      throws IOException {
    boolean changed = false;
    Long pin = null;
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path file : files) {
        String name = file.getFileName().toString();
        if (name.endsWith(TEMP_SUFFIX) || isRebuildLeftover(name)) {
          if (starting) {
            LOG.info("deleting leftover temporary file {}", file);
            Files.deleteIfExists(file);
          }
          continue;
        }
        if (name.equals(PartitionStore.PIN_FILE)) {
          pin = readPin(file);
          continue;
        }
        OptionalLong version = PartitionLayout.parseVersion(name);
        if (version.isEmpty()) {
          continue;
        }
        PartitionFileId id = new PartitionFileId(schemaVersion, partition, version.getAsLong());
        seen.add(id);
        synchronized (lock) {
          if (published.storedFile(id).isPresent()) {
            continue;
          }
        }
        StoredFile stored;
        try {
          stored = load(id, file, starting && !verifyOnStart);
        } catch (IOException e) {
          quarantine(id, file, e);
          continue;
        }
        synchronized (lock) {
          PartitionFiles p = published.partitionFiles(schemaVersion, partition, true);
          SchemaFiles s = published.schema(schemaVersion);
          if (s.schema != null && !s.schema.equals(stored.schema())) {
            LOG.error(
                "{} has schema {} but the held files of schema version {} have {}; not served",
                id,
                stored.schema(),
                schemaVersion,
                s.schema);
            continue;
          }
          s.schema = stored.schema();
          p.versions.put(id.version(), stored);
          published.modified(p);
          changed = true;
        }
      }
    }
    synchronized (lock) {
      PartitionFiles p = published.partitionFiles(schemaVersion, partition, false);
      if (p != null) {
        if (pin != null && !p.versions.containsKey(pin)) {
          LOG.warn(
              "partition {} of schema version {} is pinned to version {}, which is not held; ignoring the pin",
              partition,
              schemaVersion,
              pin);
          pin = null;
        }
        if (!Objects.equals(p.pinned, pin)) {
          p.pinned = pin;
          published.modified(p);
          changed = true;
        }
      }
    }
    return changed;
  }

  /** Renames a file that fails verification to {@code *.corrupt}: never served, kept for a look. */
  private static void quarantine(PartitionFileId id, Path file, IOException failure)
      throws IOException {
    Path quarantine = file.resolveSibling(file.getFileName().toString() + CORRUPT_SUFFIX);
    LOG.error(
        "{} fails verification and is never served; moved to {}: {}",
        id,
        quarantine,
        failure.getMessage());
    Files.move(file, quarantine, StandardCopyOption.REPLACE_EXISTING);
  }

  private static Long readPin(Path file) {
    try {
      return Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).strip());
    } catch (IOException | NumberFormatException e) {
      LOG.warn("unreadable pin file {}, ignored: {}", file, e.toString());
      return null;
    }
  }

  private static StoredFile load(PartitionFileId id, Path file, boolean trust) throws IOException {
    Instant modified = Files.getLastModifiedTime(file).toInstant();
    if (trust) {
      try (Database db = Database.open(file)) {
        FileDigest digest = FileDigest.ofTrailer(file); // not checked against the content
        return new StoredFile(id, file, digest.size(), digest.crc32c(), modified, db.schema());
      }
    }
    VerifiedFile v = VerifiedFile.verify(file);
    if (v.schema().version() != id.schemaVersion()) {
      throw new CorruptDatabaseException(
          file.toString(),
          "header",
          0,
          "schema version "
              + v.schema().version()
              + " in the file, but it lies under schema version "
              + id.schemaVersion());
    }
    return new StoredFile(id, file, v.digest().size(), v.digest().crc32c(), modified, v.schema());
  }
}
