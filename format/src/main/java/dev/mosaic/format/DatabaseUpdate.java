package dev.mosaic.format;

import dev.mosaic.format.impl.DocumentColumns;
import dev.mosaic.format.impl.PartitionUpdate;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Objects;

/**
 * Rebuilds a partition by merge: the previous partition file plus a change set. The output lists
 * documents in the order of the calls to {@link #keep(int)} (a document of the base, by id) and
 * {@link #add(Document)} (a new document); base documents never kept are dropped. Kept documents
 * are carried over in their encoded form (values through the base's dictionaries, payload bytes as
 * stored), never re-parsed from the application's objects.
 *
 * <p>The file written is byte for byte the one {@link DatabaseBuilder#create(Schema)} with default
 * options writes when the same documents are added in the same order ({@code keep(i)} standing for
 * the document the base holds at id {@code i}): receivers can rebuild and verify it.
 *
 * <pre>{@code
 * try (Database previous = Database.open(file)) {
 *   DatabaseUpdate update = DatabaseUpdate.on(previous);
 *   update.keep(0).add(changed).keep(2);      // document 1 replaced, the rest kept
 *   update.writeTo(next);
 * }
 * }</pre>
 *
 * <p>Thread safety: not thread safe; one update per thread. NOTE: the base must stay open until
 * {@link #writeTo(Path)} returns; added documents are kept by reference until the update is
 * dropped. Compressed payload blocks of the base away from the changes are copied without being
 * decompressed, and the new file's checksum then covers them: open the base with checksum
 * verification ({@code Database.open(file, true)}) when its integrity is in doubt.
 */
public final class DatabaseUpdate {
  private final Schema schema;
  private final Database base;
  private final int baseDocuments;
  private final BitSet kept;
  private final DocumentColumns added;
  private int[] order = new int[16];
  private int count;
  private int carriedOver;
  private boolean fsync = true;
  private Database dictionaryDonor;

  private DatabaseUpdate(Schema schema, Database base) {
    this.schema = schema;
    this.base = base;
    this.baseDocuments = base == null ? 0 : PartitionUpdate.documents(base);
    this.kept = new BitSet(baseDocuments);
    this.added = new DocumentColumns(schema.fields().size());
  }

  /**
   * An update on top of {@code base}, a single open partition database read by this library (stays
   * open, not closed by the update). The result uses the base's schema.
   *
   * @throws IllegalStateException when {@code base} is closed
   */
  public static DatabaseUpdate on(Database base) {
    Objects.requireNonNull(base, "base");
    Database checked = PartitionUpdate.checkBase(base);
    return new DatabaseUpdate(checked.schema(), checked);
  }

  /** A full build without a previous file (same output rules; only add() is allowed). */
  public static DatabaseUpdate fresh(Schema schema) {
    return new DatabaseUpdate(Objects.requireNonNull(schema, "schema"), null);
  }

  /**
   * Appends the base's document {@code baseDocId} (carried over in encoded form).
   *
   * @throws IllegalStateException on a {@link #fresh} update
   * @throws IllegalArgumentException when the base has no such document, or it was already kept
   */
  public DatabaseUpdate keep(int baseDocId) {
    if (base == null) {
      throw new IllegalStateException("keep(" + baseDocId + "): a fresh build has no base");
    }
    if (baseDocId < 0 || baseDocId >= baseDocuments) {
      throw new IllegalArgumentException(
          "keep("
              + baseDocId
              + "): the base has documents 0.."
              + (baseDocuments - 1)
              + " ("
              + baseDocuments
              + " documents)");
    }
    if (kept.get(baseDocId)) {
      throw new IllegalArgumentException(
          "keep(" + baseDocId + "): base document " + baseDocId + " is already kept");
    }
    kept.set(baseDocId);
    append(baseDocId);
    carriedOver++;
    return this;
  }

  /**
   * Appends a new document.
   *
   * @throws IllegalArgumentException when the document was built for another schema
   */
  public DatabaseUpdate add(Document document) {
    Objects.requireNonNull(document, "document");
    checkSchema(document.schema(), "document");
    append(PartitionUpdate.ADDED | added.size());
    added.add(document);
    return this;
  }

  /**
   * Appends the document {@code builder} holds, as {@code add(builder.build())} does, without
   * building a {@link Document}: its values go straight to the update's columns (for bulk loads
   * that map many records, reusing one builder). The builder is not changed; {@link
   * Document.Builder#clear() clear} it before it takes the next document. NOTE: the values and the
   * payload are kept by reference, as a built document's are; the builder hands over arrays it
   * never modifies.
   *
   * @throws IllegalArgumentException when the builder is for another schema, or as {@link
   *     Document.Builder#build()} when a field lacks a value it needs (nothing is appended then)
   */
  public DatabaseUpdate add(Document.Builder builder) {
    Objects.requireNonNull(builder, "builder");
    checkSchema(builder.schema(), "builder");
    builder.checkComplete();
    append(PartitionUpdate.ADDED | added.size());
    builder.appendTo(added);
    return this;
  }

  private void checkSchema(Schema other, String what) {
    if (other != schema && !other.equals(schema)) {
      throw new IllegalArgumentException(
          what + " was built for another schema: " + other + ", the update's is " + schema);
    }
  }

  /**
   * Whether {@link #writeTo(Path)} forces the file (and its directory after the rename) to disk
   * (default true). Bulk builds whose caller syncs once at the end may turn it off.
   */
  public DatabaseUpdate fsync(boolean fsync) {
    this.fsync = fsync;
    return this;
  }

  /**
   * For a {@link #fresh} build: compresses zstd payload blocks with the dictionary of {@code donor}
   * (a partition database of this library; the update does not close it) instead of training one on
   * this build's payloads, when the donor stores its payloads as zstd blocks with one dictionary
   * (otherwise a dictionary is trained as usual). The file is then byte for byte the one {@link
   * DatabaseBuilder#create(Schema)} writes with {@link DatabaseBuilder#payloadDictionaryOf
   * payloadDictionaryOf(donor)}, and a later update on it keeps that dictionary. Training is most
   * of a full build's time when a node builds many partitions of one kind of payload (zstd trains
   * for milliseconds per partition whatever the partition's size); a dictionary of another
   * partition of the same schema compresses nearly as well (format/FORMAT.md has the cost in
   * bytes). NOTE: the file then depends on the donor, not only on the documents: a build that must
   * reproduce a file from its documents alone must not take one. The donor must stay open until
   * {@link #writeTo(Path)} returns.
   *
   * @throws IllegalStateException on an update on a base (it keeps the base's dictionary)
   */
  public DatabaseUpdate payloadDictionaryOf(Database donor) {
    Objects.requireNonNull(donor, "donor");
    if (base != null) {
      throw new IllegalStateException(
          "payloadDictionaryOf: an update on a base keeps the base's payload dictionary");
    }
    this.dictionaryDonor = donor;
    return this;
  }

  private void append(int entry) {
    if (count == Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("a database holds at most " + count + " documents");
    }
    if (count == order.length) {
      order = Arrays.copyOf(order, (int) Math.min(Integer.MAX_VALUE - 8, order.length * 2L));
    }
    order[count++] = entry;
  }

  /**
   * Writes the result to a temporary file beside {@code output}, forces it to disk (unless {@link
   * #fsync(boolean) fsync(false)}), and renames it onto {@code output} atomically (replacing an
   * existing file). On failure no file is left and {@code output} is untouched. The file is byte
   * for byte the one {@link DatabaseBuilder#create(Schema)} with default options writes for the
   * same documents in the same order. The update stays usable.
   *
   * @throws IllegalStateException when the base was closed
   */
  public Summary writeTo(Path output) throws IOException {
    Objects.requireNonNull(output, "output");
    long started = System.nanoTime();
    long size =
        PartitionUpdate.write(schema, base, dictionaryDonor, order, count, added, output, fsync);
    return new Summary(output, count, carriedOver, added.size(), size, System.nanoTime() - started);
  }

  /**
   * What an update wrote.
   *
   * @param output the file written
   * @param documents documents in it
   * @param carriedOver documents kept from the base
   * @param added new documents
   * @param sizeInBytes size of the file
   * @param elapsedNanos wall time of {@link #writeTo(Path)}
   */
  public record Summary(
      Path output,
      int documents,
      int carriedOver,
      int added,
      long sizeInBytes,
      long elapsedNanos) {}
}
