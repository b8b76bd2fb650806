package dev.mosaic.partition;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Forces one directory's entries to disk for many concurrent callers with as few directory fsyncs
 * as possible (group commit): a caller that renamed a file into the directory calls {@link
 * #force()}, which returns once a directory fsync that <em>started after the call</em> completed.
 * While one fsync runs, every caller arriving meanwhile waits for the next one, which a single
 * caller then runs for all of them; a burst of renames thus costs two or three directory fsyncs
 * instead of one each. The guarantee per caller is that of {@link DurableFiles#forceDirectory}:
 * after {@code force()} returns, every rename that completed before the call survives a crash.
 *
 * <p>A failed fsync fails the caller that ran it and covers no one: every waiter tries again (and
 * runs its own fsync, or joins another's), so an error is never swallowed.
 *
 * <p>Thread safety: safe for concurrent use; callers block on the instance's monitor while another
 * thread's fsync covering them runs.
 */
public final class DirectorySync {
  /** Forces a directory to disk. */
  @FunctionalInterface
  interface Force {
    void force(Path directory) throws IOException;
  }

  private final Path directory;
  private final Force fsync;

  /** Calls so far; a call's ticket is the count including it. */
  private long tickets;

  /** Every call with a ticket up to this one is covered by a completed fsync. */
  private long covered;

  private boolean running;

  /** Directory fsyncs run (for tests and metrics). */
  private long fsyncs;

  public DirectorySync(Path directory) {
    this(directory, DurableFiles::forceDirectory);
  }

  DirectorySync(Path directory, Force fsync) {
    this.directory = directory.toAbsolutePath();
    this.fsync = fsync;
  }

  public Path directory() {
    return directory;
  }

  /**
   * Returns once a directory fsync that started after this call completed.
   *
   * @throws IOException when the fsync this caller ran failed
   * @throws InterruptedException when interrupted while waiting for another caller's fsync
   */
  public void force() throws IOException, InterruptedException {
    long ticket;
    long covering;
    synchronized (this) {
      ticket = ++tickets;
      while (true) {
        if (covered >= ticket) {
          return;
        }
        if (!running) {
          running = true;
          covering = tickets; // every call so far arrived before this fsync starts
          fsyncs++;
          break;
        }
        wait();
      }
    }
    boolean ok = false;
    try {
      fsync.force(directory);
      ok = true;
    } finally {
      synchronized (this) {
        running = false;
        if (ok) {
          covered = Math.max(covered, covering);
        }
        notifyAll();
      }
    }
  }

  /** Calls of {@link #force()} so far, returned or not (for tests). */
  synchronized long tickets() {
    return tickets;
  }

  /** Directory fsyncs run so far. */
  public synchronized long fsyncs() {
    return fsyncs;
  }
}
