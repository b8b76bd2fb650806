package dev.mosaic.format;

/**
 * Whether writing a file forces it to disk before returning ({@link DatabaseBuilder#writeTo(
 * java.nio.file.Path, FileSync)}).
 */
public enum FileSync {
  /** The file is forced to disk ({@code fsync}) before the write returns: durable on return. */
  FORCE,
  /**
   * The file is written but not forced: the caller syncs it, for instance once for a bulk build of
   * many files (one {@code sync} of the file system, or a force of each file at the end). Until
   * then a crash may lose or truncate it.
   */
  CALLER_SYNCS
}
