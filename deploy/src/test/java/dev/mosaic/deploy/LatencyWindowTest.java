package dev.mosaic.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyWindowTest {
  @Test
  void percentilesAreNearestRankOverTheLastSamples() {
    LatencyWindow w = new LatencyWindow(100);
    assertThat(w.percentile(50)).isEqualTo(-1);
    for (int i = 1; i <= 100; i++) {
      w.add(i);
    }
    assertThat(w.percentile(50)).isEqualTo(50);
    assertThat(w.percentile(99)).isEqualTo(99);
    assertThat(w.percentile(100)).isEqualTo(100);
    for (int i = 0; i < 100; i++) {
      w.add(1000); // the old samples leave the window
    }
    assertThat(w.percentile(1)).isEqualTo(1000);
    assertThat(w.count()).isEqualTo(200);
  }
}
