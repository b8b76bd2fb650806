package dev.mosaic.bench.load;

import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * An open-loop load generator: requests start at a constant rate whatever the answers do, so a
 * stall of the server shows as latency of every request scheduled during it instead of being hidden
 * by fewer requests (the coordinated omission of a closed loop). A request's latency runs from the
 * moment it was scheduled to start until its outcome; a failed request (an error answer, a wrong
 * answer, an exception, a timeout) counts in the latencies too, and in {@link Result#errors()} or
 * {@link Result#wrongAnswers()}.
 *
 * <p>Thread safety: one {@link #run} at a time; outcomes may complete on any thread.
 */
final class OpenLoop {
  /** How a request ended. */
  enum Outcome {
    OK,
    ERROR,
    WRONG_ANSWER
  }

  /**
   * One request: starting it returns its outcome, completed when it ends (never exceptionally: a
   * failure is {@link Outcome#ERROR}).
   */
  interface Request {
    CompletableFuture<Outcome> start();
  }

  /**
   * What a run measured.
   *
   * @param offeredRps the scheduled rate
   * @param scheduled requests started
   * @param seconds the length of the schedule
   * @param sortedNanos latencies of every request, failed ones included, ascending
   * @param ok requests answered right
   * @param errors requests answered with an error status, failed or timed out
   * @param wrongAnswers requests answered 200 with an answer the checker refused
   * @param unfinished requests still running when the run gave up waiting (counted as errors too)
   */
  record Result(
      double offeredRps,
      long scheduled,
      double seconds,
      long[] sortedNanos,
      long ok,
      long errors,
      long wrongAnswers,
      long unfinished) {
    /** Requests answered right per second of the schedule. */
    double achievedRps() {
      return ok / seconds;
    }

    /** The latency at quantile {@code q} (0..1), in milliseconds; NaN without requests. */
    double percentileMs(double q) {
      if (sortedNanos.length == 0) {
        return Double.NaN;
      }
      int i = (int) Math.min(sortedNanos.length - 1, Math.ceil(q * sortedNanos.length) - 1);
      return sortedNanos[Math.max(0, i)] / 1e6;
    }

    String describe() {
      return String.format(
          Locale.ROOT,
          "offered %.0f rps for %.1f s: %d requests, achieved %.0f rps, p50 %.2f ms, p99 %.2f ms,"
              + " p99.9 %.2f ms, errors %d, wrong answers %d",
          offeredRps,
          seconds,
          scheduled,
          achievedRps(),
          percentileMs(0.5),
          percentileMs(0.99),
          percentileMs(0.999),
          errors,
          wrongAnswers);
    }
  }

  private final double rate;
  private final Duration duration;
  private final Duration drain;

  /**
   * @param rate requests per second to start
   * @param duration how long to keep starting them
   * @param drain how long to wait for the last requests after the schedule ends; those still
   *     running then count as errors with their latency so far
   */
  OpenLoop(double rate, Duration duration, Duration drain) {
    if (!(rate > 0)) {
      throw new IllegalArgumentException("rate must be positive, got " + rate);
    }
    this.rate = rate;
    this.duration = Objects.requireNonNull(duration, "duration");
    this.drain = Objects.requireNonNull(drain, "drain");
  }

  /** Starts {@code requests.get()} at the rate for the duration and waits for their outcomes. */
  Result run(Supplier<Request> requests) throws InterruptedException {
    long interval = (long) (1e9 / rate);
    long total = (long) Math.floor(duration.toNanos() / (double) interval);
    int n = (int) Math.min(Integer.MAX_VALUE - 8, total);
    long[] latencies = new long[n];
    boolean[] done = new boolean[n];
    long[] scheduledAt = new long[n];
    AtomicLong ok = new AtomicLong();
    AtomicLong errors = new AtomicLong();
    AtomicLong wrong = new AtomicLong();
    AtomicInteger running = new AtomicInteger();
    Object finished = new Object();
    long t0 = System.nanoTime();
    for (int i = 0; i < n; i++) {
      long at = t0 + i * interval;
      for (long wait = at - System.nanoTime(); wait > 0; wait = at - System.nanoTime()) {
        LockSupport.parkNanos(wait); // pacing the schedule, not synchronization
      }
      scheduledAt[i] = at;
      int slot = i;
      running.incrementAndGet();
      CompletableFuture<Outcome> outcome;
      try {
        outcome = requests.get().start();
      } catch (RuntimeException e) {
        outcome = CompletableFuture.completedFuture(Outcome.ERROR);
      }
      outcome.whenComplete(
          (o, e) -> {
            long took = System.nanoTime() - at;
            Outcome result = e != null || o == null ? Outcome.ERROR : o;
            synchronized (finished) {
              if (done[slot]) {
                return;
              }
              done[slot] = true;
              latencies[slot] = took;
              switch (result) {
                case OK -> ok.incrementAndGet();
                case ERROR -> errors.incrementAndGet();
                case WRONG_ANSWER -> wrong.incrementAndGet();
              }
              if (running.decrementAndGet() == 0) {
                finished.notifyAll();
              }
            }
          });
    }
    long scheduleEnd = t0 + n * interval;
    long deadline = scheduleEnd + drain.toNanos();
    long unfinished;
    synchronized (finished) {
      while (running.get() > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        TimeUnit.NANOSECONDS.timedWait(finished, left);
      }
      long now = System.nanoTime();
      unfinished = 0;
      for (int i = 0; i < n; i++) {
        if (!done[i]) {
          done[i] = true;
          latencies[i] = now - scheduledAt[i];
          unfinished++;
        }
      }
      errors.addAndGet(unfinished);
    }
    Arrays.sort(latencies);
    return new Result(
        rate, n, n * interval / 1e9, latencies, ok.get(), errors.get(), wrong.get(), unfinished);
  }
}
