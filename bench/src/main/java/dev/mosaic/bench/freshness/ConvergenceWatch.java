package dev.mosaic.bench.freshness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;

/**
 * Waits until every searcher answers a cycle's changed offers with their new content: a scheduler
 * polls each searcher every {@code pollInterval} with searches for the partitions it has not yet
 * answered right ({@link ChangedOffers}), one search at a time; a partition answered right stays
 * answered (a searcher only moves forward). A searcher has converged at the moment the answer that
 * completed it arrived; the cycle, when the last searcher has.
 *
 * <p>Thread safety: one {@link #await} at a time per instance; polling runs on one internal thread.
 */
final class ConvergenceWatch {
  /** Runs one {@code /search} on a searcher. */
  @FunctionalInterface
  interface Client {
    /**
     * The searcher's answer.
     *
     * @throws Exception when the searcher cannot be asked or does not answer 200 (polled again)
     */
    JsonNode search(String searcher, ObjectNode body) throws Exception;
  }

  /**
   * When each searcher converged ({@link System#nanoTime} of the completing answer's arrival).
   *
   * @param polls searches sent in all
   */
  record Outcome(Map<String, Long> convergedAtNanos, long polls) {
    Outcome {
      convergedAtNanos = Map.copyOf(convergedAtNanos);
    }

    /** When the last searcher converged. */
    long lastNanos() {
      return convergedAtNanos.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    }
  }

  private final Client client;
  private final Duration pollInterval;
  private final LongSupplier nanoTime;
  private final ObjectMapper json = new ObjectMapper();

  ConvergenceWatch(Client client, Duration pollInterval, LongSupplier nanoTime) {
    this.client = Objects.requireNonNull(client, "client");
    if (pollInterval.isNegative() || pollInterval.isZero()) {
      throw new IllegalArgumentException("poll interval must be positive, got " + pollInterval);
    }
    this.pollInterval = pollInterval;
    this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
  }

  /**
   * Polls until every searcher answers every changed offer with its new content.
   *
   * @throws TimeoutException when that did not happen within {@code timeout}, naming per searcher
   *     how many partitions were still answered with old content (and the last failed search)
   */
  Outcome await(ChangedOffers changed, List<String> searchers, Duration timeout)
      throws TimeoutException, InterruptedException {
    Polling polling = new Polling(changed, searchers);
    ScheduledExecutorService scheduler =
        Executors.newSingleThreadScheduledExecutor(
            Thread.ofPlatform().name("freshness-poll").daemon().factory());
    try {
      scheduler.scheduleWithFixedDelay(
          polling::round, 0, pollInterval.toNanos(), TimeUnit.NANOSECONDS);
      return polling.done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("polling failed", e.getCause());
    } catch (TimeoutException e) {
      scheduler.shutdownNow();
      scheduler.awaitTermination(10, TimeUnit.SECONDS);
      throw new TimeoutException(
          "not every searcher answered the changed offers with their new content within "
              + timeout
              + ": "
              + polling.describePending());
    } finally {
      scheduler.shutdownNow();
    }
  }

  /** One cycle's polling state; touched by the scheduler thread only, until it stops. */
  private final class Polling {
    final ChangedOffers changed;
    final Map<String, TreeSet<Integer>> pending = new LinkedHashMap<>();
    final Map<String, Long> convergedAt = new LinkedHashMap<>();
    final CompletableFuture<Outcome> done = new CompletableFuture<>();
    volatile String lastFailure = "";
    long polls;

    Polling(ChangedOffers changed, List<String> searchers) {
      this.changed = changed;
      if (searchers.isEmpty()) {
        throw new IllegalArgumentException("no searcher to wait for");
      }
      for (String s : searchers) {
        pending.put(s, new TreeSet<>(changed.partitions()));
      }
    }

    void round() {
      try {
        for (Map.Entry<String, TreeSet<Integer>> e : pending.entrySet()) {
          String searcher = e.getKey();
          TreeSet<Integer> left = e.getValue();
          if (left.isEmpty()) {
            continue;
          }
          for (ChangedOffers.Search search : changed.searches(left, json)) {
            JsonNode answer;
            try {
              polls++;
              answer = client.search(searcher, search.body());
            } catch (InterruptedException ie) {
              Thread.currentThread().interrupt();
              return;
            } catch (Exception failure) {
              lastFailure = searcher + ": " + failure;
              continue;
            }
            long at = nanoTime.getAsLong();
            left.removeAll(changed.answered(search, answer));
            if (left.isEmpty()) {
              convergedAt.put(searcher, at);
            }
          }
        }
        if (convergedAt.size() == pending.size()) {
          done.complete(new Outcome(convergedAt, polls));
        }
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
        throw e;
      }
    }

    String describePending() {
      StringBuilder b = new StringBuilder();
      pending.forEach(
          (s, left) -> {
            if (!left.isEmpty()) {
              b.append(b.isEmpty() ? "" : ", ")
                  .append(s)
                  .append(" still answers ")
                  .append(left.size())
                  .append(" of ")
                  .append(changed.partitions().size())
                  .append(" changed partitions with old content (first: ")
                  .append(left.first())
                  .append(')');
            }
          });
      if (!lastFailure.isEmpty()) {
        b.append("; last failed search: ").append(lastFailure);
      }
      return b.toString();
    }
  }
}
