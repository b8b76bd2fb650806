package dev.mosaic.bench.load;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The open loop against a simulated server: a stall shows as latency of every request scheduled
 * during it (not as fewer requests), and failed requests count in the latencies and the errors.
 */
class OpenLoopTest {
  private final ScheduledExecutorService server = Executors.newScheduledThreadPool(2);

  @AfterEach
  void stop() {
    server.shutdownNow();
  }

  private CompletableFuture<OpenLoop.Outcome> answerAfter(long millis, OpenLoop.Outcome o) {
    CompletableFuture<OpenLoop.Outcome> f = new CompletableFuture<>();
    server.schedule(() -> f.complete(o), millis, TimeUnit.MILLISECONDS);
    return f;
  }

  @Test
  void aStallShowsAsLatencyOfEveryRequestScheduledDuringItNotAsFewerRequests() throws Exception {
    long[] start = new long[1];
    long stallFrom = TimeUnit.MILLISECONDS.toNanos(500);
    long stallTo = TimeUnit.MILLISECONDS.toNanos(1000);
    OpenLoop.Result r =
        new OpenLoop(200, Duration.ofSeconds(2), Duration.ofSeconds(5))
            .run(
                () ->
                    () -> {
                      long now = System.nanoTime();
                      if (start[0] == 0) {
                        start[0] = now;
                      }
                      long t = now - start[0];
                      // the server is frozen from 0.5 s to 1 s: whatever arrives waits until then
                      long wait = t >= stallFrom && t < stallTo ? (stallTo - t) / 1_000_000 : 1;
                      return answerAfter(wait, OpenLoop.Outcome.OK);
                    });
    assertThat(r.scheduled()).isEqualTo(400); // the rate held through the stall
    assertThat(r.sortedNanos()).hasSize(400);
    assertThat(r.ok()).isEqualTo(400);
    assertThat(r.errors()).isZero();
    // about a quarter of the requests were scheduled into the stall, the earliest waited ~0.5 s
    assertThat(r.percentileMs(0.99)).isGreaterThan(350);
    assertThat(r.percentileMs(0.50)).isLessThan(100);
    assertThat(r.achievedRps()).isCloseTo(200, org.assertj.core.data.Offset.offset(1.0));
  }

  @Test
  void failedWrongAndUnansweredRequestsCountInLatenciesAndFailures() throws Exception {
    AtomicInteger n = new AtomicInteger();
    OpenLoop.Result r =
        new OpenLoop(100, Duration.ofSeconds(1), Duration.ofMillis(300))
            .run(
                () ->
                    () -> {
                      int i = n.getAndIncrement();
                      if (i % 10 == 0) {
                        return answerAfter(60, OpenLoop.Outcome.ERROR);
                      }
                      if (i % 10 == 1) {
                        return answerAfter(1, OpenLoop.Outcome.WRONG_ANSWER);
                      }
                      if (i % 10 == 2) {
                        return CompletableFuture.failedFuture(new java.io.IOException("reset"));
                      }
                      if (i == 3) {
                        return new CompletableFuture<>(); // never answered
                      }
                      return answerAfter(1, OpenLoop.Outcome.OK);
                    });
    assertThat(r.scheduled()).isEqualTo(100);
    assertThat(r.sortedNanos()).hasSize(100);
    assertThat(r.wrongAnswers()).isEqualTo(10);
    assertThat(r.unfinished()).isEqualTo(1);
    assertThat(r.errors()).isEqualTo(10 + 10 + 1);
    assertThat(r.ok()).isEqualTo(100 - 10 - 10 - 10 - 1);
    // the slow errors are in the latencies: p90 and above see their 60 ms
    assertThat(r.percentileMs(0.95)).isGreaterThanOrEqualTo(60);
    // the unanswered one waited until the drain ended
    assertThat(r.percentileMs(1.0)).isGreaterThanOrEqualTo(300);
  }
}
