package dev.mosaic.bench.progress;

import java.io.PrintStream;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Progress of a long data-set generation or index build, as terse lines on standard error: one at
 * the start, one at every tenth of the work (or every 10 s when slower), one at the end, each with
 * the elapsed time. Plain lines, no terminal control characters, so the output reads the same in a
 * log file.
 *
 * <pre>
 * cars offers: 500000 documents
 * cars offers: 10% (50000/500000) 1.2 s
 * ...
 * cars offers: done, 500000 documents in 11.8 s
 * </pre>
 *
 * <p>Thread safety: {@link #advance} may be called from several threads; lines are printed whole.
 */
public final class Progress {
  private static final long SLOW_NANOS = 10_000_000_000L;

  private final String what;
  private final String unit;
  private final long total;
  private final PrintStream out;
  private final long startNanos = System.nanoTime();
  private final AtomicLong done = new AtomicLong();
  private long nextTenth;
  private long lastPrintNanos = startNanos;

  private Progress(String what, long total, String unit, PrintStream out) {
    this.what = Objects.requireNonNull(what, "what");
    this.unit = Objects.requireNonNull(unit, "unit");
    if (total < 0) {
      throw new IllegalArgumentException(what + ": total must be >= 0, got " + total);
    }
    this.total = total;
    this.out = Objects.requireNonNull(out, "out");
    this.nextTenth = Math.max(1, total / 10);
    out.printf(Locale.ROOT, "%s: %d %s%n", what, total, unit);
  }

  /** Starts reporting {@code total} units of work on standard error (prints the first line). */
  public static Progress start(String what, long total, String unit) {
    return new Progress(what, total, unit, System.err);
  }

  /** Same, printing to {@code out}. */
  public static Progress start(String what, long total, String unit, PrintStream out) {
    return new Progress(what, total, unit, out);
  }

  /** One unit done. */
  public void advance() {
    advance(1);
  }

  /** {@code n} units done; prints a line when a tenth is crossed or 10 s passed since the last. */
  public void advance(long n) {
    long d = done.addAndGet(n);
    if (d >= nextTenth || System.nanoTime() - lastPrintNanos > SLOW_NANOS) {
      report(d);
    }
  }

  private synchronized void report(long d) {
    long now = System.nanoTime();
    if (d < nextTenth && now - lastPrintNanos <= SLOW_NANOS) {
      return; // another thread reported it
    }
    if (d >= total) {
      nextTenth = Long.MAX_VALUE; // done() prints the last line
      return;
    }
    long step = Math.max(1, total / 10);
    while (nextTenth <= d) {
      nextTenth += step;
    }
    lastPrintNanos = now;
    out.printf(
        Locale.ROOT,
        "%s: %d%% (%d/%d) %.1f s%n",
        what,
        total == 0 ? 100 : d * 100 / total,
        d,
        total,
        (now - startNanos) / 1e9);
  }

  /** A step without a count (e.g. the final merge of an index), with the elapsed time. */
  public synchronized void note(String step) {
    lastPrintNanos = System.nanoTime();
    out.printf(Locale.ROOT, "%s: %s %.1f s%n", what, step, (lastPrintNanos - startNanos) / 1e9);
  }

  /** Prints the last line: the units done and the total time. */
  public synchronized void done() {
    out.printf(
        Locale.ROOT,
        "%s: done, %d %s in %.1f s%n",
        what,
        done.get(),
        unit,
        (System.nanoTime() - startNanos) / 1e9);
  }
}
