package dev.mosaic.format;

import java.io.Closeable;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;

/**
 * Consecutive partitions merged into one local database for querying, as a search engine merges
 * segments: member {@code m}'s documents occupy the contiguous id range {@code [start(m), start(m +
 * 1))} of {@link #database()}, in their own order. A composite built with {@link
 * CompositeDatabase#grouped} queries a run of members through the group instead of one partition at
 * a time; a member replaced since the merge is masked (its range skipped) and its successor is
 * queried beside the group until the next merge. Members are recognised by identity (the very
 * {@link Database} objects the group was merged from).
 *
 * <p>Results are those of the members themselves: a grouped composite hands every document to its
 * processor as the member partition and the member's own document id.
 *
 * <p>Thread safety: immutable, safe for concurrent use. NOTE: a group does not own its members;
 * {@link #close()} closes the merged database only.
 */
public final class PartitionGroup implements Closeable {
  private final Database database;
  private final List<Database> members;
  private final int[] starts;
  private final Path file;

  private PartitionGroup(Database database, List<Database> members, int[] starts, Path file) {
    this.database = database;
    this.members = members;
    this.starts = starts;
    this.file = file;
  }

  /**
   * A group over an already merged database: {@code merged} must hold the documents of {@code
   * members} one after the other, in member order (what {@link DatabaseMerger} writes).
   *
   * @throws IllegalArgumentException when there are no members, a member appears twice, a schema
   *     differs or the document counts do not add up to the merged database's
   */
  public static PartitionGroup of(Database merged, List<? extends Database> members) {
    return of(merged, members, null);
  }

  private static PartitionGroup of(Database merged, List<? extends Database> members, Path file) {
    Objects.requireNonNull(merged, "merged");
    List<Database> list = List.copyOf(members);
    if (list.isEmpty()) {
      throw new IllegalArgumentException("a partition group needs at least one member");
    }
    int[] starts = new int[list.size() + 1];
    java.util.Set<Database> seen =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    long total = 0;
    for (int i = 0; i < list.size(); i++) {
      Database m = list.get(i);
      if (!seen.add(m)) {
        throw new IllegalArgumentException("member " + i + " (" + m + ") appears twice");
      }
      if (!m.schema().equals(merged.schema())) {
        throw new IllegalArgumentException(
            "member "
                + i
                + " ("
                + m
                + ") has schema "
                + m.schema()
                + ", the merged database has "
                + merged.schema());
      }
      starts[i] = (int) total;
      total += m.documentCount();
    }
    if (total != merged.documentCount()) {
      throw new IllegalArgumentException(
          "the members hold "
              + total
              + " documents but the merged database ("
              + merged
              + ") holds "
              + merged.documentCount());
    }
    starts[list.size()] = (int) total;
    return new PartitionGroup(merged, list, starts, file);
  }

  /**
   * Merges {@code members} (open partitions read by this library) into {@code output} with {@link
   * DatabaseMerger} (compressed payload blocks copied as they are) and opens the result.
   *
   * @throws java.nio.file.FileAlreadyExistsException when the output exists
   * @throws IllegalArgumentException as {@link #of} and {@link DatabaseMerger#merge()}
   */
  public static PartitionGroup merge(List<? extends Database> members, Path output)
      throws IOException {
    DatabaseMerger.Builder merger = DatabaseMerger.builder().output(output);
    members.forEach(merger::add);
    merger.build().merge();
    Database merged = Database.open(output);
    try {
      return of(merged, members, output);
    } catch (RuntimeException e) {
      merged.close();
      throw e;
    }
  }

  /** The file {@link #merge} wrote, or null for a group made with {@link #of}. */
  public Path file() {
    return file;
  }

  /** The merged database. */
  public Database database() {
    return database;
  }

  /** The partitions merged, in document order. */
  public List<Database> members() {
    return members;
  }

  /**
   * The first document id of member {@code member} in {@link #database()}; {@code start(size)} is
   * the total.
   */
  public int start(int member) {
    return starts[member];
  }

  @Override
  public String toString() {
    return "PartitionGroup{" + members.size() + " members, " + database + "}";
  }

  /** Closes the merged database (not the members). */
  @Override
  public void close() {
    database.close();
  }
}
