package dev.mosaic.searcher;

import dev.mosaic.partition.PartitionFileId;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;

/**
 * A shared {@link Arena} holding the mappings of one or more partition files, closed (unmapping
 * them all, with one thread handshake) when the last of them is no longer used by any generation.
 * Touched only under the generations' books lock.
 */
final class SharedArena {
  private final Arena arena = Arena.ofShared();
  private final List<PartitionFileId> files = new ArrayList<>();
  private long bytes;
  private int live;
  private boolean closing;

  Arena arena() {
    return arena;
  }

  void added(StoredFile file) {
    files.add(file.id());
    bytes += file.sizeInBytes();
    live++;
  }

  /**
   * Returns true when every partition mapped here is retired and the arena should close; it then
   * takes no more files.
   */
  boolean retired() {
    if (live <= 0) {
      throw new IllegalStateException("arena retired more often than partitions were mapped");
    }
    if (--live == 0) {
      closing = true;
    }
    return closing;
  }

  /** Whether a later reopen may still map a file here: not closing and below {@code limit}. */
  boolean accepts(int limit) {
    return !closing && files.size() < limit;
  }

  boolean empty() {
    return files.isEmpty();
  }

  int fileCount() {
    return files.size();
  }

  List<PartitionFileId> files() {
    return files;
  }

  long bytes() {
    return bytes;
  }

  void close() {
    arena.close();
  }
}
