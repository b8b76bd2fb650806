package dev.mosaic.bench.freshness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FreshnessResultTest {

  private static FreshnessResult.Cycle cycle(long millis, long changedBytes, long wire, long full) {
    return new FreshnessResult.Cycle(
        100, changedBytes, 90, 5, millis, new WireCounters.Reading(wire, full, Map.of()));
  }

  @Test
  void theResultLineHasNearestRankPercentilesOverCyclesAndTotalsOfBytesAndCopies() {
    List<FreshnessResult.Cycle> cycles = new ArrayList<>();
    for (int i = 1; i <= 10; i++) {
      cycles.add(cycle(i * 100L, 1000, 2000 + i, 4));
    }
    FreshnessResult r = new FreshnessResult(500_000, 1024, cycles);
    assertThat(r.line())
        .isEqualTo(
            "RESULT freshness offers=500000 partitions=1024 cycles=10 p50_ms=500 p99_ms=1000"
                + " wire_bytes_per_changed_byte=2.01 full_copies=40");
  }

  @Test
  void theWireRatioWeighsCyclesByTheirChangedBytes() {
    FreshnessResult r =
        new FreshnessResult(10, 4, List.of(cycle(7, 1000, 1000, 0), cycle(9, 3000, 0, 0)));
    assertThat(r.wireBytesPerChangedByte()).isEqualTo(0.25);
    assertThat(r.line())
        .endsWith("cycles=2 p50_ms=7 p99_ms=9 wire_bytes_per_changed_byte=0.25 full_copies=0");
  }

  @Test
  void aResultNeedsACycle() {
    assertThatThrownBy(() -> new FreshnessResult(10, 4, List.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("at least one cycle");
  }
}
