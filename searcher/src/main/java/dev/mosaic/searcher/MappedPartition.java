package dev.mosaic.searcher;

import dev.mosaic.format.Database;

/**
 * One partition file mapped into a {@link SharedArena}, shared by every generation that serves it.
 * Reference counts are touched only on the generations' maintenance thread.
 */
final class MappedPartition {
  private final StoredFile file;
  private final Database database;
  private final SharedArena arena;
  private int generations;

  MappedPartition(StoredFile file, Database database, SharedArena arena) {
    this.file = file;
    this.database = database;
    this.arena = arena;
  }

  StoredFile file() {
    return file;
  }

  Database database() {
    return database;
  }

  SharedArena arena() {
    return arena;
  }

  void incGenerations() {
    generations++;
  }

  /** Returns true when no generation uses this partition any more. */
  boolean decGenerations() {
    if (generations <= 0) {
      throw new IllegalStateException(file.id() + " released by more generations than used it");
    }
    return --generations == 0;
  }
}
