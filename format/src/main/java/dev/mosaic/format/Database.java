package dev.mosaic.format;

import dev.mosaic.format.impl.DatabaseOpener;
import java.io.Closeable;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;

/**
 * One immutable partition database, read in place from a memory-mapped file or from bytes.
 *
 * <p>Thread safety: safe for any number of concurrent readers. NOTE: after {@link #close()} (or
 * after the owning {@link Arena} is closed, for {@link #map(Path, Arena, boolean)}) every access,
 * including payload views handed out earlier, throws {@link IllegalStateException}; it never
 * crashes the JVM.
 *
 * <p>Sealed: every database is one the format opened ({@link #open}, {@link #map} or {@link
 * #fromBytes}), so a {@link CompositeDatabase} can read its partitions directly.
 */
public sealed interface Database extends Searchable, Closeable permits PartitionDatabase {

  /**
   * Maps a file with its own shared arena; {@link #close()} unmaps it. Checks structure but not the
   * checksum (verify once, when a file arrives: {@link #verify(Path)}).
   */
  static Database open(Path file) throws IOException {
    return new PartitionDatabase(DatabaseOpener.open(file, false));
  }

  /** As {@link #open(Path)}, also verifying the whole-file checksum when asked. */
  static Database open(Path file, boolean verifyChecksum) throws IOException {
    return new PartitionDatabase(DatabaseOpener.open(file, verifyChecksum));
  }

  /**
   * As {@link #open(Path)}, for the calling thread only: the file is mapped in a confined arena, so
   * {@link #close()} unmaps it without the handshake with every thread of the JVM that unmapping a
   * shared mapping costs (on a busy machine with many threads, tens to hundreds of milliseconds per
   * close). For a file one thread reads and closes, such as the base of a {@link DatabaseUpdate}.
   * NOTE: any use from another thread, payload views included, throws {@link WrongThreadException}.
   */
  static Database openConfined(Path file) throws IOException {
    return new PartitionDatabase(DatabaseOpener.openConfined(file, false));
  }

  /**
   * Maps a file into a caller-owned arena (several partitions may share one arena, so one close
   * unmaps them all). {@link #close()} on the result does not unmap; closing the arena does.
   */
  static Database map(Path file, Arena arena, boolean verifyChecksum) throws IOException {
    return new PartitionDatabase(DatabaseOpener.map(file, arena, verifyChecksum));
  }

  /**
   * Reads a database from bytes (not copied; do not modify them), verifying the checksum. NOTE:
   * {@link #close()} makes further queries throw {@link IllegalStateException}, but payload views
   * handed out earlier stay readable (the array belongs to the caller).
   */
  static Database fromBytes(byte[] bytes) throws CorruptDatabaseException {
    return new PartitionDatabase(DatabaseOpener.fromBytes(bytes));
  }

  /**
   * Verifies a file completely (structure and checksum) without keeping it open.
   *
   * @return the file's schema
   * @throws CorruptDatabaseException naming the file, the segment and the offset of the problem
   */
  static Schema verify(Path file) throws IOException {
    return DatabaseOpener.verify(file);
  }

  /**
   * A read-only view of a document's payload (empty when none). For raw payloads (every format
   * version 1 file, and version 2 files built without compression) the view is zero-copy, a slice
   * of the mapping. NOTE: when the partition stores its payloads as LZ4 blocks ({@link
   * PayloadCompression}), the payload's block is decompressed (one block is kept per thread, so
   * reading neighbouring documents decompresses it once) and the result is a segment over a fresh
   * heap array holding a copy: it stays readable after {@link #close()}, and costs one allocation.
   *
   * @throws IndexOutOfBoundsException for a document id outside {@code [0, documentCount())}
   * @throws java.io.UncheckedIOException wrapping a {@link CorruptDatabaseException} when a
   *     compressed block does not decompress (a file not verified with its checksum)
   */
  MemorySegment payload(int document);

  /**
   * A document's payload as a fresh array (for compressed partitions this avoids the extra wrapping
   * of {@link #payload(int)}; for raw partitions it copies the slice).
   *
   * @throws IndexOutOfBoundsException for a document id outside {@code [0, documentCount())}
   */
  default byte[] payloadBytes(int document) {
    return payload(document).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
  }

  /**
   * The value of a SORTABLE or FULL field of a document, decoded ({@code Integer}, {@code Long},
   * {@code Double}, {@code Boolean}, {@code String}, {@code Instant}, {@code byte[]}).
   *
   * @throws IllegalArgumentException for an unknown or non-sortable field
   */
  Object sortableValue(int document, String field);

  /** The comparable bytes of a sortable field of a document (a copy). */
  byte[] sortableBytes(int document, String field);

  /** As {@link #execute(CompiledQuery, DocumentProcessor)}, every document from partition 0. */
  @Override
  default void execute(CompiledQuery query, HitProcessor processor) {
    execute(query, (document, database) -> processor.process(0, document, database));
  }

  /**
   * The layout of the partition file (segments, payload storage, Bloom filters); present for every
   * database, all being read by the format.
   */
  java.util.Optional<FileLayout> layout();

  /** Size of the underlying file or buffer, in bytes. */
  long sizeInBytes();

  /** The format version read from the header. */
  int formatVersion();

  /** Releases the mapping when this database owns it; idempotent. */
  @Override
  void close();
}
