package dev.mosaic.searcher.status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class StatusHistoryTest {

  private static StatusSample sample(long t) {
    return new StatusSample(t, 1, 2, 0, 0, 5, 0, 1.5, 3.5);
  }

  @Test
  void samplesOnItsOwnThreadKeepsTheNewestAndSurvivesAFailedSample() {
    AtomicInteger calls = new AtomicInteger();
    try (StatusHistory history =
        new StatusHistory(
            new StatusHistory.Settings(Duration.ofMillis(5), 10),
            () -> {
              int n = calls.incrementAndGet();
              if (n == 3) {
                throw new IllegalStateException("no generation yet");
              }
              return sample(n);
            })) {
      history.start();
      await().atMost(Duration.ofSeconds(20)).until(() -> calls.get() >= 30);
      assertThat(history.samples()).hasSize(10);
      long last = 0;
      for (StatusSample s : history.samples()) {
        assertThat(s.epochMillis()).isGreaterThan(last);
        last = s.epochMillis();
      }
      assertThat(history.samples().getFirst().epochMillis()).isGreaterThan(3);
      history.close();
      int stopped = calls.get();
      // closed: no sample is added any more (a sample under way when closing may still end)
      await()
          .pollDelay(Duration.ofMillis(50))
          .atMost(Duration.ofSeconds(5))
          .until(() -> calls.get() <= stopped + 1);
    }
  }

  @Test
  void settingsRefuseANonPositiveIntervalOrLength() {
    assertThatThrownBy(() -> new StatusHistory.Settings(Duration.ZERO, 10))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("interval must be positive");
    assertThatThrownBy(() -> new StatusHistory.Settings(Duration.ofSeconds(1), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("samples must be >= 1");
  }
}
