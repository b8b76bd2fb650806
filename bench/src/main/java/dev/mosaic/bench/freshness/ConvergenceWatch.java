package dev.mosaic.bench.freshness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * Waits until every searcher answers a cycle's changed offers with their new content: a scheduler
 * polls each searcher on its own thread, {@code pollInterval} after its previous round, with
 * searches for the partitions it has not yet answered right ({@link ChangedOffers}), one search at
 * a time; a partition answered right stays answered (a searcher only moves forward). A searcher has
 * converged at the moment the answer that completed it arrived; the cycle, when the last searcher
 * has.
 *
 * <p>Thread safety: one {@link #await} at a time per instance; polling runs on internal threads,
 * one per searcher.
 */
final class ConvergenceWatch {
  /** What the watch asks a searcher (its HTTP API). */
  interface Client {
    /** The id of the generation the searcher serves now ({@code GET /partitions/served}). */
    long generation(String searcher) throws Exception;

    /**
     * The version of each partition in the generation that the last {@link #generation} call of
     * that searcher saw ({@code GET /partitions/served}).
     */
    Map<Integer, Long> servedVersions(String searcher) throws Exception;

    /**
     * The searcher's answer to one {@code POST /search}.
     *
     * @throws Exception when the searcher cannot be asked or does not answer 200 (polled again)
     */
    JsonNode search(String searcher, ObjectNode body) throws Exception;
  }

  /** When each searcher converged (the clock's time at the completing answer's arrival). */
  record Outcome(Map<String, Long> convergedAtNanos) {
    Outcome {
      convergedAtNanos = Map.copyOf(convergedAtNanos);
    }

    /** When the last searcher converged. */
    long lastNanos() {
      return convergedAtNanos.values().stream().mapToLong(Long::longValue).max().orElseThrow();
    }
  }

  /**
   * By default, a round searches the partitions with a new version only when every partition the
   * searcher still answers wrong has one (then the search can complete it) or when at least this
   * many have: the search that completes a searcher happens in the round that saw its last new
   * version, as when every move is searched at once, but a 1% cycle over 1024 partitions costs a
   * searcher about ten searches instead of one per generation (each a lookup of hundreds of offer
   * ids in every partition, CPU the watch took from the pipeline it measures).
   */
  static final int SEARCH_BATCH_PARTITIONS = 128;

  /** Polls without a new version after which the partitions that have one are searched anyway. */
  static final int STALL_POLLS = 25;

  private final int searchBatchPartitions;
  private final long stallNanos;
  private final Client client;
  private final Duration pollInterval;
  private final LongSupplier nanoTime;
  private final ObjectMapper json = new ObjectMapper();
  private final AtomicLong searches = new AtomicLong();
  private final AtomicLong searchNanos = new AtomicLong();

  /** Searches sent so far (every cycle, failed ones included). */
  long searches() {
    return searches.get();
  }

  /** Wall time of those searches, from sending to the answer or failure. */
  Duration searchTime() {
    return Duration.ofNanos(searchNanos.get());
  }

  ConvergenceWatch(Client client, Duration pollInterval, LongSupplier nanoTime) {
    this(client, pollInterval, nanoTime, SEARCH_BATCH_PARTITIONS);
  }

  /**
   * @param searchBatchPartitions how many partitions must have a new version before a round that
   *     cannot complete a searcher searches them (see {@link #SEARCH_BATCH_PARTITIONS})
   */
  ConvergenceWatch(
      Client client, Duration pollInterval, LongSupplier nanoTime, int searchBatchPartitions) {
    if (searchBatchPartitions < 1) {
      throw new IllegalArgumentException(
          "searchBatchPartitions must be at least 1, got " + searchBatchPartitions);
    }
    this.searchBatchPartitions = searchBatchPartitions;
    this.stallNanos = pollInterval.toNanos() * STALL_POLLS;
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
    return await(changed, searchers, Map.of(), timeout);
  }

  /**
   * The version each searcher serves of each partition now: taken before a cycle's change, it is
   * the {@code baseline} of {@link #await(ChangedOffers, List, Map, Duration)}.
   */
  Map<String, Map<Integer, Long>> servedNow(List<String> searchers) throws Exception {
    Map<String, Map<Integer, Long>> out = new HashMap<>();
    for (String s : searchers) {
      client.generation(s);
      out.put(s, Map.copyOf(client.servedVersions(s)));
    }
    return out;
  }

  /**
   * {@link #await(ChangedOffers, List, Duration)} knowing what each searcher served before the
   * change ({@link #servedNow}): a partition is searched only once its served version differs from
   * the baseline, because new content arrives only with a new version. Without a baseline the first
   * round searches every changed partition, which at 1024 partitions doubled the watch's searches
   * (each a lookup of up to 1000 offer ids in every partition) and the CPU it took from the
   * pipeline it measures.
   */
  Outcome await(
      ChangedOffers changed,
      List<String> searchers,
      Map<String, Map<Integer, Long>> baseline,
      Duration timeout)
      throws TimeoutException, InterruptedException {
    if (searchers.isEmpty()) {
      throw new IllegalArgumentException("no searcher to wait for");
    }
    Map<String, Long> convergedAt = new ConcurrentHashMap<>();
    CompletableFuture<Outcome> done = new CompletableFuture<>();
    List<SearcherPolling> pollings = new ArrayList<>();
    ScheduledExecutorService scheduler =
        Executors.newScheduledThreadPool(
            searchers.size(), Thread.ofPlatform().name("freshness-poll-", 1).daemon().factory());
    try {
      for (String s : searchers) {
        SearcherPolling p = new SearcherPolling(s, changed, convergedAt, searchers.size(), done);
        p.checkedVersions.putAll(baseline.getOrDefault(s, Map.of()));
        pollings.add(p);
        p.task =
            scheduler.scheduleWithFixedDelay(
                p::round, 0, pollInterval.toNanos(), TimeUnit.NANOSECONDS);
      }
      return done.get(timeout.toNanos(), TimeUnit.NANOSECONDS);
    } catch (ExecutionException e) {
      throw new IllegalStateException("polling failed", e.getCause());
    } catch (TimeoutException e) {
      scheduler.shutdownNow();
      scheduler.awaitTermination(10, TimeUnit.SECONDS);
      StringBuilder b = new StringBuilder();
      for (SearcherPolling p : pollings) {
        p.describePending(b);
      }
      throw new TimeoutException(
          "not every searcher answered the changed offers with their new content within "
              + timeout
              + ": "
              + b);
    } finally {
      scheduler.shutdownNow();
    }
  }

  /** One searcher's polling in one cycle; its state is touched by its own task only. */
  private final class SearcherPolling {
    final String searcher;
    final ChangedOffers changed;
    final TreeSet<Integer> pending;
    final Map<String, Long> convergedAt;
    final int searchers;
    final CompletableFuture<Outcome> done;
    final Map<Integer, Long> checkedVersions = new HashMap<>();
    long lastGeneration = Long.MIN_VALUE;
    Map<Integer, Long> lastServed = Map.of();
    int movedSeen;
    long lastMoveNanos;
    volatile String lastFailure = "";
    volatile ScheduledFuture<?> task;

    SearcherPolling(
        String searcher,
        ChangedOffers changed,
        Map<String, Long> convergedAt,
        int searchers,
        CompletableFuture<Outcome> done) {
      this.searcher = searcher;
      this.changed = changed;
      this.pending = new TreeSet<>(changed.partitions());
      this.convergedAt = convergedAt;
      this.searchers = searchers;
      this.done = done;
    }

    void round() {
      if (pending.isEmpty()) {
        return; // converged; its task is being cancelled
      }
      try {
        long generation = client.generation(searcher);
        if (generation != lastGeneration) {
          lastServed = client.servedVersions(searcher);
          lastGeneration = generation;
        }
        List<Integer> moved = new ArrayList<>();
        for (int p : pending) {
          Long v = lastServed.get(p);
          if (v != null && !v.equals(checkedVersions.get(p))) {
            moved.add(p);
          }
        }
        if (moved.isEmpty()) {
          return; // nothing new to see
        }
        long now = System.nanoTime();
        if (moved.size() > movedSeen) {
          movedSeen = moved.size();
          lastMoveNanos = now;
        }
        // a partition's answer changes only with a new version: search once every pending
        // partition has one (the round that can complete the searcher), when enough have moved to
        // keep that last search small, or when no new version came for a while (a partition that
        // never moves must not hide the answers of those that did)
        if (moved.size() < pending.size()
            && moved.size() < searchBatchPartitions
            && now - lastMoveNanos < stallNanos) {
          return;
        }
        movedSeen = 0;
        for (int p : moved) {
          checkedVersions.put(p, lastServed.get(p));
        }
        for (ChangedOffers.Search search : changed.searches(moved, json)) {
          if (check(search)) {
            return;
          }
        }
      } catch (InterruptedException ie) {
        Thread.currentThread().interrupt();
      } catch (RuntimeException e) {
        done.completeExceptionally(e);
        throw e;
      } catch (Exception failure) {
        lastFailure = failure.toString();
        lastGeneration = Long.MIN_VALUE; // ask everything again next round
        lastServed = Map.of();
        checkedVersions.clear();
      }
    }

    /** Runs one content search; true when it completed the searcher. */
    private boolean check(ChangedOffers.Search search) throws Exception {
      long sent = System.nanoTime();
      JsonNode answer;
      try {
        answer = client.search(searcher, search.body());
      } finally {
        searches.incrementAndGet();
        searchNanos.addAndGet(System.nanoTime() - sent);
      }
      long at = nanoTime.getAsLong();
      pending.removeAll(changed.answered(search, answer));
      if (!pending.isEmpty()) {
        return false;
      }
      convergedAt.put(searcher, at);
      if (convergedAt.size() == searchers) {
        done.complete(new Outcome(convergedAt));
      }
      ScheduledFuture<?> t = task;
      if (t != null) {
        t.cancel(false);
      }
      return true;
    }

    void describePending(StringBuilder b) {
      if (pending.isEmpty()) {
        return;
      }
      b.append(b.isEmpty() ? "" : ", ")
          .append(searcher)
          .append(" still answers ")
          .append(pending.size())
          .append(" of ")
          .append(changed.partitions().size())
          .append(" changed partitions with old content (first: ")
          .append(pending.first())
          .append(')');
      if (!lastFailure.isEmpty()) {
        b.append(", its last failed search: ").append(lastFailure);
      }
    }
  }
}
