package dev.mosaic.format;

import dev.mosaic.format.impl.DatabaseWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;

/**
 * Collects documents and writes them as one immutable database. Document ids are assigned in the
 * order documents are added, from 0. The same documents added in the same order give the same
 * bytes. Build time is linear in the number of values plus one sort of each field's distinct
 * values. The file layout is described in {@code format/FORMAT.md}.
 *
 * <p>Thread safety: not thread safe; use one builder per thread. NOTE: documents are kept by
 * reference until the builder is dropped, and each field's segment is laid out in memory when
 * written (at most 2 GiB per field; payloads are streamed and may exceed it).
 */
public interface DatabaseBuilder {

  /** A new empty builder for that schema. */
  static DatabaseBuilder create(Schema schema) {
    return new DatabaseWriter(schema);
  }

  /** The schema documents must follow. */
  Schema schema();

  /**
   * Adds a document.
   *
   * @throws IllegalArgumentException if the document was built for another schema
   */
  DatabaseBuilder add(Document document);

  /**
   * How payloads are stored; {@link PayloadCompression#AUTO} (the default) compresses them in zstd
   * blocks with a dictionary trained on the partition's payloads when that saves at least 10% of
   * the payload bytes. Zstd blocks make the file format version 3, LZ4 blocks version 2; older
   * readers reject them.
   */
  DatabaseBuilder payloadCompression(PayloadCompression compression);

  /**
   * Compresses zstd payload blocks with the dictionary of {@code base} instead of training one,
   * when {@code base} stores its payloads as zstd blocks with one dictionary (otherwise a
   * dictionary is trained as usual). This is the dictionary {@link DatabaseUpdate#on(Database)}
   * keeps so that it can copy the base's blocks, so this build writes the bytes of that update.
   */
  DatabaseBuilder payloadDictionaryOf(Database base);

  /**
   * Target uncompressed size of one payload block, in bytes (default 2 KiB): blocks are cut by a
   * content-defined rule that makes them about this size on average (at least half of it unless the
   * payloads end, at most twice, see {@code format/FORMAT.md}), so a block holds at least one
   * document and a rebuild that inserts or removes documents keeps the other blocks' bytes. Smaller
   * blocks make a random payload read cheaper; larger blocks usually compress better. A block never
   * holds more than 16 MiB uncompressed (readers refuse larger ones): it closes before a payload
   * that would take it over, and payloads are stored raw when one alone is larger.
   *
   * @throws IllegalArgumentException when not positive or over 8 MiB
   */
  DatabaseBuilder payloadBlockSize(int bytes);

  /**
   * Adds a Bloom filter over a filterable field's values (format version 2), so {@code eq} and
   * {@code in} on that field reject a partition without the value without searching its value set.
   * Worth it on fields with about one value per document (ids, dedup keys) queried over many
   * partitions.
   *
   * @throws IllegalArgumentException for an unknown or non-filterable field
   */
  DatabaseBuilder bloomFilter(String field);

  /**
   * Whether filterable fields get a Bloom filter automatically when the partition has at least 256
   * documents and at least 0.8 distinct values per document (default true).
   */
  DatabaseBuilder autoBloomFilters(boolean enabled);

  /**
   * Whether {@link #writeTo(Path)} forces the file to disk (default true). Bulk builds that write
   * many files and sync once at the end (for instance with one {@code sync} of the file system) may
   * turn it off; the file is then durable only after that sync.
   */
  DatabaseBuilder fsync(boolean fsync);

  /** Number of documents added so far. */
  int documentCount();

  /** Writes the database to a channel; the builder stays usable. */
  void writeTo(WritableByteChannel channel) throws IOException;

  /** Writes the database to a stream; the builder stays usable. */
  void writeTo(OutputStream out) throws IOException;

  /**
   * Writes the database to a file (created or truncated), and forces it to disk unless {@link
   * #fsync(boolean) fsync(false)}.
   */
  void writeTo(Path file) throws IOException;

  /**
   * Writes the database to a file (created or truncated), forcing it to disk or not as {@code sync}
   * says, whatever {@link #fsync(boolean)} was set to: a bulk build whose caller syncs once writes
   * each file with {@link FileSync#CALLER_SYNCS}.
   */
  void writeTo(Path file, FileSync sync) throws IOException;

  /** The database as bytes. */
  byte[] toByteArray();
}
