package dev.mosaic.bench.freshness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mosaic.api.feed.CarOffer;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
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

  /** A searcher that shows partition p's new content from its {@code p}-th poll on. */
  private final class Searcher {
    final AtomicInteger polls = new AtomicInteger();
    final IntPredicate freshAfter;

    Searcher(int lag) {
      freshAfter = p -> polls.get() > p / 4 + lag;
    }

    JsonNode answer(JsonNode body) {
      polls.incrementAndGet();
      List<CarOffer> asked = Offers.idsOf(body).stream().map(byId::get).toList();
      return Offers.answer(asked, P, freshAfter);
    }
  }

  @Test
  void everySearcherConvergesWhenItAnswersEveryChangedPartitionWithTheNewContent()
      throws Exception {
    Map<String, Searcher> searchers = Map.of("dc-a-1", new Searcher(0), "dc-b-1", new Searcher(5));
    ConvergenceWatch watch =
        new ConvergenceWatch(
            (s, body) -> searchers.get(s).answer(body),
            Duration.ofMillis(1),
            clock::incrementAndGet);

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
  }

  @Test
  void failedSearchesArePolledAgain() throws Exception {
    Searcher searcher = new Searcher(0);
    AtomicInteger calls = new AtomicInteger();
    ConvergenceWatch watch =
        new ConvergenceWatch(
            (s, body) -> {
              if (calls.incrementAndGet() % 2 == 1) {
                throw new IOException("HTTP 503: busy");
              }
              return searcher.answer(body);
            },
            Duration.ofMillis(1),
            clock::incrementAndGet);

    assertThat(watch.await(changed, List.of("s"), Duration.ofMinutes(1)).convergedAtNanos())
        .containsOnlyKeys("s");
  }

  @Test
  void aSearcherThatKeepsOldContentFailsTheWaitNamingItAndTheLastFailure() {
    Map<String, AtomicInteger> calls = new ConcurrentHashMap<>();
    ConvergenceWatch watch =
        new ConvergenceWatch(
            (s, body) -> {
              if (calls.computeIfAbsent(s, k -> new AtomicInteger()).incrementAndGet() == 1) {
                throw new IOException("HTTP 503: busy");
              }
              List<CarOffer> asked = Offers.idsOf(body).stream().map(byId::get).toList();
              return Offers.answer(asked, P, p -> s.equals("fresh") || p != 7);
            },
            Duration.ofMillis(1),
            clock::incrementAndGet);

    assertThatThrownBy(
            () -> watch.await(changed, List.of("fresh", "stuck"), Duration.ofMillis(300)))
        .isInstanceOf(TimeoutException.class)
        .hasMessageContaining("stuck still answers 1 of 32 changed partitions with old content")
        .hasMessageContaining("(first: 7)")
        .hasMessageContaining("HTTP 503: busy")
        .hasMessageNotContaining("fresh still");
  }
}
