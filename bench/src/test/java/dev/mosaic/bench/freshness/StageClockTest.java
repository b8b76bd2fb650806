package dev.mosaic.bench.freshness;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class StageClockTest {

  @Test
  void eachStageCountsWhatItsCounterGrewDuringTheCycleAndNothingBefore() throws Exception {
    MeterRegistry indexer = new SimpleMeterRegistry();
    MeterRegistry searcher = new SimpleMeterRegistry();
    Timer rebuild = indexer.timer("mosaic.indexer.rebuild.duration", "node", "i1");
    Counter entries =
        indexer.counter("mosaic.transport.deliveries", "kind", "entry", "outcome", "accepted");
    Counter failed =
        indexer.counter("mosaic.transport.deliveries", "kind", "entry", "outcome", "failed");
    Timer entryLatency = indexer.timer("mosaic.transport.delivery.latency", "kind", "entry");
    Timer reopen = searcher.timer("mosaic.searcher.reopen");
    AtomicLong stored = new AtomicLong();
    rebuild.record(Duration.ofSeconds(9)); // before the cycle: not counted
    entries.increment();
    StageClock clock =
        new StageClock(
            List.of(indexer), List.of(searcher), List.of(indexer, searcher), stored::get, 1);

    long t0 = System.nanoTime();
    StageClock.Run run = clock.start(t0);
    rebuild.record(Duration.ofMillis(40));
    rebuild.record(Duration.ofMillis(60));
    entries.increment(2);
    failed.increment(5);
    entryLatency.record(Duration.ofMillis(30));
    stored.addAndGet(4);
    reopen.record(Duration.ofMillis(1));
    StageClock.Stages s = run.stop(System.nanoTime());

    assertThat(s.counts())
        .containsEntry("rebuilt", 2L)
        .containsEntry("entry", 2L)
        .containsEntry("relay", 0L)
        .containsEntry("stored", 4L)
        .containsEntry("reopened", 1L);
    assertThat(s.firstMillis().get("relay")).isEqualTo(-1);
    assertThat(s.lastMillis().get("relay")).isEqualTo(-1);
    for (String stage : List.of("rebuilt", "entry", "stored", "reopened")) {
      assertThat(s.firstMillis().get(stage)).as(stage).isBetween(0L, s.lastMillis().get(stage));
    }
    assertThat(s.meanMillis())
        .containsEntry("rebuild", 50L)
        .containsEntry("entry", 30L)
        .containsEntry("relay", -1L);
    assertThat(s.describe()).contains("rebuilt_ms=").contains("rebuild_mean_ms=50");
  }

  @Test
  void theMedianOfAnEvenCountIsTheUpperMiddleValue() {
    assertThat(StageClock.median(List.of(5L, 1L, 9L))).isEqualTo(5);
    assertThat(StageClock.median(List.of(4L, 1L, 9L, 2L))).isEqualTo(4);
  }
}
