package dev.mosaic.format;

import java.io.Closeable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;

/**
 * A searcher's background grouping of its partitions (see {@link PartitionGroup}): the partition
 * positions are cut into blocks of {@link Config#groupSize()}; whenever a block's partitions are
 * not exactly the members of its current group (at start, or after one of them was replaced), the
 * block is merged anew into a group file in {@link Config#directory()} on the executor, one merge
 * at a time, and {@code onMerged} is called so that the searcher opens its next generation with it.
 * Until then the composites it {@linkplain #compose makes} query the old group around the replaced
 * partition (its range masked) and the new partition beside it, with results identical to the
 * ungrouped composite's.
 *
 * <p>Lifetimes: every composite made by {@link #compose} holds its groups until it is {@linkplain
 * #release released}; a group superseded by a newer merge of its block is closed and its file
 * deleted once no composite holds it. Partitions must stay open while a composite over them is used
 * (as without grouping) and while a merge reads them: a merge whose partition is closed meanwhile
 * fails, is counted ({@link #failedMerges()}) and is tried again at the next {@link #compose}.
 *
 * <p>Thread safety: safe for concurrent use; {@link #compose} and {@link #release} take a short
 * lock, merges run on the executor.
 */
public final class PartitionGrouping implements Closeable {
  /**
   * @param directory where group files are written (it must exist; files named {@code
   *     group-<n>.mosaic}, deleted when superseded, and by {@link #close()})
   * @param groupSize consecutive partitions per group, at least 2
   */
  public record Config(Path directory, int groupSize) {
    public Config {
      Objects.requireNonNull(directory, "directory");
      if (groupSize < 2) {
        throw new IllegalArgumentException("groupSize must be at least 2, got " + groupSize);
      }
    }
  }

  private final Config config;
  private final Executor executor;
  private final Runnable onMerged;
  private final Object lock = new Object();

  /** The newest group of each block, by block. Guarded by {@link #lock}. */
  private final TreeMap<Integer, PartitionGroup> current = new TreeMap<>();

  /** Composites holding each group. Guarded by {@link #lock}. */
  private final Map<PartitionGroup, Integer> holders = new IdentityHashMap<>();

  /** Guarded by {@link #lock}. */
  private boolean merging;

  private boolean closed;
  private long nextFile;
  private long merges;
  private long failedMerges;
  private Throwable lastFailure;

  /**
   * @param executor runs the merges (one at a time)
   * @param onMerged called on the executor after each merge that produced a new group
   */
  public PartitionGrouping(Config config, Executor executor, Runnable onMerged) {
    this.config = Objects.requireNonNull(config, "config");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.onMerged = Objects.requireNonNull(onMerged, "onMerged");
  }

  /**
   * The composite of the next generation over {@code partitions}, with the groups merged so far
   * (inheriting from {@code previous}, when not null and of the same schema, as {@link
   * CompositeDatabase#withPartitions(List, List)} does); starts the merge of a block that needs one
   * when none is running. Release the result with {@link #release} when it is retired.
   */
  public CompositeDatabase compose(
      CompositeDatabase previous, Schema schema, List<? extends Database> partitions) {
    List<PartitionGroup> groups;
    synchronized (lock) {
      groups = List.copyOf(current.values());
      for (PartitionGroup g : groups) {
        holders.merge(g, 1, Integer::sum);
      }
    }
    CompositeDatabase composite =
        previous != null && previous.schema().equals(schema)
            ? previous.withPartitions(partitions, groups)
            : CompositeDatabase.grouped(schema, partitions, groups);
    startMerge(List.copyOf(partitions));
    return composite;
  }

  /**
   * Gives back the groups of a composite made by {@link #compose} (once per composite); superseded
   * groups no composite holds any more are closed and their files deleted.
   */
  public void release(CompositeDatabase composite) {
    List<PartitionGroup> unused = new ArrayList<>();
    synchronized (lock) {
      for (PartitionGroup g : composite.groups()) {
        Integer n = holders.get(g);
        if (n == null) {
          throw new IllegalStateException(g + " is not held: released twice, or not composed here");
        }
        if (n > 1) {
          holders.put(g, n - 1);
        } else {
          holders.remove(g);
          if (closed || !current.containsValue(g)) {
            unused.add(g);
          }
        }
      }
    }
    unused.forEach(this::discard);
  }

  /** Groups merged so far (including superseded ones). */
  public long merges() {
    synchronized (lock) {
      return merges;
    }
  }

  /** Merges that failed (see the class comment). */
  public long failedMerges() {
    synchronized (lock) {
      return failedMerges;
    }
  }

  /** The last merge failure, or null. */
  public Throwable lastFailure() {
    synchronized (lock) {
      return lastFailure;
    }
  }

  /** The current group of every block that has one, in block order. */
  public List<PartitionGroup> groups() {
    synchronized (lock) {
      return List.copyOf(current.values());
    }
  }

  /**
   * Stops merging; the groups no composite holds are closed and deleted now, the others when
   * released. A merge under way finishes and discards its group.
   */
  @Override
  public void close() {
    List<PartitionGroup> unused = new ArrayList<>();
    synchronized (lock) {
      closed = true;
      for (PartitionGroup g : current.values()) {
        if (!holders.containsKey(g)) {
          unused.add(g);
        }
      }
      current.clear();
    }
    unused.forEach(this::discard);
  }

  private void startMerge(List<Database> partitions) {
    int size = config.groupSize();
    Runnable task = null;
    synchronized (lock) {
      if (merging || closed) {
        return;
      }
      for (int block = 0; block * size < partitions.size() && task == null; block++) {
        List<Database> members =
            partitions.subList(block * size, Math.min(partitions.size(), (block + 1) * size));
        if (members.size() >= 2 && !sameMembers(current.get(block), members)) {
          Path file = config.directory().resolve("group-" + nextFile++ + ".mosaic");
          int b = block;
          task = () -> merge(b, members, file);
        }
      }
      if (task == null) {
        return;
      }
      merging = true;
    }
    try {
      executor.execute(task); // outside the lock: an executor may run it on this thread
    } catch (RejectedExecutionException e) {
      synchronized (lock) {
        merging = false;
      }
    }
  }

  private static boolean sameMembers(PartitionGroup group, List<Database> members) {
    if (group == null || group.members().size() != members.size()) {
      return false;
    }
    for (int i = 0; i < members.size(); i++) {
      if (group.members().get(i) != members.get(i)) {
        return false;
      }
    }
    return true;
  }

  private void merge(int block, List<Database> members, Path file) {
    PartitionGroup merged;
    try {
      merged = PartitionGroup.merge(members, file);
    } catch (IOException | RuntimeException e) {
      // the merger writes a temporary file and renames it: a failed merge leaves no output
      synchronized (lock) {
        merging = false;
        failedMerges++;
        lastFailure = e;
      }
      return;
    }
    PartitionGroup superseded = null;
    boolean keep;
    synchronized (lock) {
      merging = false;
      keep = !closed;
      if (keep) {
        merges++;
        PartitionGroup old = current.put(block, merged);
        if (old != null && !holders.containsKey(old)) {
          superseded = old;
        }
      }
    }
    if (!keep) {
      discard(merged);
      return;
    }
    if (superseded != null) {
      discard(superseded);
    }
    onMerged.run();
  }

  /**
   * Closes a group and deletes its file; a file that cannot be deleted is left behind and reported
   * as {@link #lastFailure()}.
   */
  private void discard(PartitionGroup group) {
    group.close();
    Path file = group.file();
    try {
      if (file != null) {
        Files.deleteIfExists(file);
      }
    } catch (IOException e) {
      synchronized (lock) {
        lastFailure = new UncheckedIOException("could not delete group file " + file, e);
      }
    }
  }
}
