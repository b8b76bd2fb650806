package dev.mosaic.bench.freshness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mosaic.api.feed.CarOffer;
import java.io.IOException;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntPredicate;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ConvergenceWatchTest {
  private static final int P = 32;
  private final List<CarOffer> offers = Offers.changed(600);
  private final Map<String, CarOffer> byId =
      offers.stream().collect(Collectors.toMap(CarOffer::getOfferId, o -> o));
  private final ChangedOffers changed = ChangedOffers.of(offers, P);
  private final AtomicLong clock = new AtomicLong();

  /**
   * A searcher whose partitions turn to their new content one after the other as it is polled:
   * partition p from poll {@code p / 4 + lag} on, except those {@code never} names.
   */
  private final class Searcher {
    final AtomicInteger polls = new AtomicInteger();
    final AtomicInteger searches = new AtomicInteger();
    volatile int firstSearchAtPoll = -1;
    final int lag;
    final IntPredicate never;

    Searcher(int lag, IntPredicate never) {
      this.lag = lag;
      this.never = never;
    }

    boolean fresh(int p) {
      return !never.test(p) && polls.get() > p / 4 + lag;
    }

    long generation() {
      polls.incrementAndGet();
      long g = 0;
      for (int p = 0; p < P; p++) {
        g += fresh(p) ? 1 : 0;
      }
      return g;
    }

    Map<Integer, Long> versions() {
      Map<Integer, Long> v = new HashMap<>();
      for (int p = 0; p < P; p++) {
        v.put(p, fresh(p) ? 2L : 1L);
      }
      return v;
    }

    JsonNode answer(JsonNode body) {
      if (searches.incrementAndGet() == 1) {
        firstSearchAtPoll = polls.get();
      }
      List<CarOffer> asked = Offers.idsOf(body).stream().map(byId::get).toList();
      return Offers.answer(asked, P, this::fresh);
    }
  }

  private static ConvergenceWatch.Client client(Map<String, Searcher> searchers) {
    return new ConvergenceWatch.Client() {
      @Override
      public long generation(String s) {
        return searchers.get(s).generation();
      }

      @Override
      public Map<Integer, Long> servedVersions(String s) {
        return searchers.get(s).versions();
      }

      @Override
      public JsonNode search(String s, ObjectNode body) {
        return searchers.get(s).answer(body);
      }
    };
  }

  @Test
  void everySearcherConvergesWhenItAnswersEveryChangedPartitionWithTheNewContent()
      throws Exception {
    Map<String, Searcher> searchers =
        Map.of("dc-a-1", new Searcher(0, p -> false), "dc-b-1", new Searcher(5, p -> false));
    ConvergenceWatch watch =
        new ConvergenceWatch(client(searchers), Duration.ofMillis(1), clock::incrementAndGet);

    ConvergenceWatch.Outcome outcome =
        watch.await(changed, List.of("dc-a-1", "dc-b-1"), Duration.ofMinutes(1));

    assertThat(outcome.convergedAtNanos()).containsOnlyKeys("dc-a-1", "dc-b-1");
    assertThat(outcome.convergedAtNanos().get("dc-b-1"))
        .as("the lagging searcher converges last")
        .isGreaterThan(outcome.convergedAtNanos().get("dc-a-1"));
    assertThat(outcome.lastNanos())
        .as("the arrival of the answer that completed the last searcher")
        .isEqualTo(clock.get());
    // partition 31 turns fresh after 31 / 4 + lag polls of its searcher, not before
    assertThat(searchers.get("dc-b-1").polls.get()).isGreaterThan(31 / 4 + 5);
    // content searches follow new versions: the first round, then one per generation that moved
    for (Searcher s : searchers.values()) {
      assertThat(s.searches.get()).isLessThanOrEqualTo(1 + P / 4);
    }
    assertThat(watch.searches())
        .isEqualTo(searchers.values().stream().mapToLong(s -> s.searches.get()).sum());
  }

  @Test
  void withABaselineOnlyPartitionsWhoseVersionMovedAreSearched() throws Exception {
    Searcher searcher = new Searcher(3, p -> false);
    Map<String, Searcher> searchers = Map.of("s", searcher);
    ConvergenceWatch watch =
        new ConvergenceWatch(client(searchers), Duration.ofMillis(1), clock::incrementAndGet);
    Map<String, Map<Integer, Long>> before = watch.servedNow(List.of("s"));
    assertThat(before.get("s")).containsValue(1L).doesNotContainValue(2L);
    int searchesBefore = searcher.searches.get();

    ConvergenceWatch.Outcome outcome =
        watch.await(changed, List.of("s"), before, Duration.ofMinutes(1));

    assertThat(outcome.convergedAtNanos()).containsOnlyKeys("s");
    // no first round over every partition: nothing is searched before a version moved (partition
    // 0 turns fresh after lag + 1 polls), then one search per generation that moved a partition
    assertThat(searchesBefore).isZero();
    assertThat(searcher.firstSearchAtPoll).isGreaterThan(3);
    assertThat(searcher.searches.get()).isBetween(1, P / 4);
    assertThat(watch.searches()).isEqualTo(searcher.searches.get());
  }

  @Test
  void aRoundSearchesOnceEveryPendingPartitionHasANewVersionOrABatchHas() throws Exception {
    Map<Integer, Integer> searchesByBatch = new HashMap<>();
    for (int batch : new int[] {ConvergenceWatch.SEARCH_BATCH_PARTITIONS, 8}) {
      Searcher searcher = new Searcher(2, p -> false);
      ConvergenceWatch watch =
          new ConvergenceWatch(
              client(Map.of("s", searcher)), Duration.ofMillis(1), clock::incrementAndGet, batch);
      Map<String, Map<Integer, Long>> before = watch.servedNow(List.of("s"));

      ConvergenceWatch.Outcome outcome =
          watch.await(changed, List.of("s"), before, Duration.ofMinutes(1));

      assertThat(outcome.convergedAtNanos()).containsOnlyKeys("s");
      searchesByBatch.put(batch, searcher.searches.get());
      if (batch > P) {
        // nothing is searched until partition 31 has its new version (after 31 / 4 + 2 polls);
        // then one search (the 600 changed offers fit one body) completes the searcher
        assertThat(searcher.firstSearchAtPoll).isGreaterThan(31 / 4 + 2);
        assertThat(searcher.searches.get()).isEqualTo(1);
      } else {
        // four partitions move per poll: a batch of 8 is searched every second poll
        assertThat(searcher.searches.get()).isBetween(P / 8, P / 8 + 1);
      }
    }
    assertThat(searchesByBatch.get(8)).isGreaterThan(searchesByBatch.get(128));
  }

  @Test
  void failedRequestsArePolledAgain() throws Exception {
    Searcher searcher = new Searcher(0, p -> false);
    AtomicInteger calls = new AtomicInteger();
    ConvergenceWatch.Client flaky =
        new ConvergenceWatch.Client() {
          @Override
          public long generation(String s) throws IOException {
            if (calls.incrementAndGet() % 2 == 1) {
              throw new IOException("/health answered HTTP 503: busy");
            }
            return searcher.generation();
          }

          @Override
          public Map<Integer, Long> servedVersions(String s) {
            return searcher.versions();
          }

          @Override
          public JsonNode search(String s, ObjectNode body) throws IOException {
            if (calls.incrementAndGet() % 3 == 0) {
              throw new IOException("/search answered HTTP 503: busy");
            }
            return searcher.answer(body);
          }
        };
    ConvergenceWatch watch =
        new ConvergenceWatch(flaky, Duration.ofMillis(1), clock::incrementAndGet);

    assertThat(watch.await(changed, List.of("s"), Duration.ofMinutes(1)).convergedAtNanos())
        .containsOnlyKeys("s");
  }

  @Test
  void aSearcherThatKeepsOldContentFailsTheWaitNamingItAndItsLastFailure() {
    Map<String, Searcher> searchers =
        Map.of("fresh", new Searcher(0, p -> false), "stuck", new Searcher(0, p -> p == 7));
    ConvergenceWatch.Client healthy = client(searchers);
    AtomicInteger stuckCalls = new AtomicInteger();
    ConvergenceWatch.Client client =
        new ConvergenceWatch.Client() {
          @Override
          public long generation(String s) throws Exception {
            if (s.equals("stuck") && stuckCalls.incrementAndGet() == 1) {
              throw new IOException("/health answered HTTP 503: busy");
            }
            return healthy.generation(s);
          }

          @Override
          public Map<Integer, Long> servedVersions(String s) throws Exception {
            return healthy.servedVersions(s);
          }

          @Override
          public JsonNode search(String s, ObjectNode body) throws Exception {
            return healthy.search(s, body);
          }
        };
    ConvergenceWatch watch =
        new ConvergenceWatch(client, Duration.ofMillis(1), clock::incrementAndGet);

    assertThatThrownBy(
            () -> watch.await(changed, List.of("fresh", "stuck"), Duration.ofMillis(500)))
        .isInstanceOf(TimeoutException.class)
        .hasMessageContaining("stuck still answers 1 of 32 changed partitions with old content")
        .hasMessageContaining("(first: 7)")
        .hasMessageContaining("HTTP 503: busy")
        .hasMessageNotContaining("fresh still");
  }
}
