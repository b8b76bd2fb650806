package dev.mosaic.partition;

import dev.mosaic.format.io.DurableFiles;
import dev.mosaic.format.io.TopDirectoryFlag;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where partition files live under a root directory: {@code
 * <root>/v<schema>/<partition>/<version>.mosaic}. Files being written carry a temporary name in
 * their final directory, {@code <version>.mosaic.<nonce>.tmp}, so an atomic rename publishes them
 * and a scan recognizes (and may delete) leftovers. The indexer's output directory, the searcher's
 * store and every tool that reads or writes such a tree use this class, so the layout is spelled
 * out once.
 *
 * <p>Immutable and thread safe.
 */
public record PartitionLayout(Path root) {
  /** Extension of published partition files. */
  public static final String EXTENSION = ".mosaic";

  /** Suffix of files being written (never served, deleted when found left over). */
  public static final String TEMP_SUFFIX = DurableFiles.TEMP_SUFFIX;

  private static final Pattern SCHEMA_DIR = Pattern.compile("v(\\d{1,9})");
  private static final Pattern PARTITION_DIR = Pattern.compile("\\d{1,9}");
  private static final Pattern PUBLISHED = Pattern.compile("(\\d{1,18})\\.mosaic");

  /** Checks the root. */
  public PartitionLayout {
    Objects.requireNonNull(root, "root");
  }

  /** {@code <root>/v<schema>}. */
  public Path schemaDir(int schemaVersion) {
    return root.resolve(schemaDirName(schemaVersion));
  }

  /** {@code <root>/v<schema>/<partition>}. */
  public Path partitionDir(int schemaVersion, int partition) {
    return schemaDir(schemaVersion).resolve(Integer.toString(partition));
  }

  /**
   * Creates a partition's directory unless it exists, and its schema directory first when that is
   * missing, flagged so that the file system spreads the partitions' directories (and so their
   * files' inodes) over its allocation groups ({@link TopDirectoryFlag}; where that flag exists).
   *
   * @return the partition's directory
   */
  public Path createPartitionDir(int schemaVersion, int partition) throws IOException {
    Path dir = partitionDir(schemaVersion, partition);
    if (!Files.isDirectory(dir)) {
      Path schemaDir = schemaDir(schemaVersion);
      if (!Files.isDirectory(schemaDir)) {
        DurableFiles.createDirectoriesIfMissing(schemaDir);
        TopDirectoryFlag.trySet(schemaDir);
      }
      DurableFiles.createDirectoriesIfMissing(dir);
    }
    return dir;
  }

  /** {@code <root>/v<schema>/<partition>/<version>.mosaic}. */
  public Path file(PartitionFileId id) {
    return partitionDir(id.schemaVersion(), id.partition()).resolve(fileName(id.version()));
  }

  /**
   * The published versions in a partition's directory, ascending (empty when the directory does not
   * exist). Temporary and foreign files are ignored.
   */
  public TreeSet<Long> versions(int schemaVersion, int partition) throws IOException {
    TreeSet<Long> versions = new TreeSet<>();
    Path dir = partitionDir(schemaVersion, partition);
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, endingWith(EXTENSION))) {
      for (Path f : files) {
        parseVersion(f.getFileName().toString()).ifPresent(versions::add);
      }
    } catch (NoSuchFileException e) {
      // no file yet
    }
    return versions;
  }

  /**
   * The directory entries whose names end with {@code suffix}: what a glob {@code *suffix} selects,
   * without compiling the glob into a regular expression on every listing (a rebuild lists its
   * partition's directory; the compiled globs cost the indexer's delivery thread about a tenth of
   * its time).
   */
  static DirectoryStream.Filter<Path> endingWith(String suffix) {
    return entry -> {
      Path name = entry.getFileName();
      return name != null && name.toString().endsWith(suffix);
    };
  }

  /**
   * The id of a published file below the root ({@code v<schema>/<partition>/<version>.mosaic}), or
   * empty when the path does not follow the layout.
   */
  public Optional<PartitionFileId> parse(Path file) {
    Path relative = root.relativize(file);
    if (relative.getNameCount() != 3) {
      return Optional.empty();
    }
    OptionalInt schema = parseSchemaDirName(relative.getName(0).toString());
    OptionalInt partition = parsePartitionDirName(relative.getName(1).toString());
    OptionalLong version = parseVersion(relative.getName(2).toString());
    if (schema.isEmpty() || partition.isEmpty() || version.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(
        new PartitionFileId(schema.getAsInt(), partition.getAsInt(), version.getAsLong()));
  }

  /** {@code v<schema>}. */
  public static String schemaDirName(int schemaVersion) {
    return "v" + schemaVersion;
  }

  /** {@code <version>.mosaic}. */
  public static String fileName(long version) {
    return version + EXTENSION;
  }

  /**
   * A fresh temporary name beside {@code target}, {@code <target name>.<random hex>.tmp}: unique
   * per call, so concurrent writers of the same target never share a temporary file.
   */
  public static Path tempFileFor(Path target) {
    return DurableFiles.tempFileFor(target);
  }

  /** Whether a file name is a temporary (unpublished) one. */
  public static boolean isTempName(String fileName) {
    return DurableFiles.isTempName(fileName);
  }

  /** The version a published file's name carries ({@code <version>.mosaic}), if it is one. */
  public static OptionalLong parseVersion(String fileName) {
    Matcher m = PUBLISHED.matcher(fileName);
    return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
  }

  /** The schema version a directory name carries ({@code v<schema>}), if it is one. */
  public static OptionalInt parseSchemaDirName(String name) {
    Matcher m = SCHEMA_DIR.matcher(name);
    return m.matches() ? OptionalInt.of(Integer.parseInt(m.group(1))) : OptionalInt.empty();
  }

  /** The partition a directory name carries ({@code <partition>}), if it is one. */
  public static OptionalInt parsePartitionDirName(String name) {
    return PARTITION_DIR.matcher(name).matches()
        ? OptionalInt.of(Integer.parseInt(name))
        : OptionalInt.empty();
  }
}
