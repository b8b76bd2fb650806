package dev.mosaic.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class OfferPartitioningTest {
  @Test
  void routingIsStableAcrossRunsAndMachines() {
    // Pinned values: changing the hash would move every offer to another partition.
    assertThat(OfferPartitioning.partitionOf("car-0000000000000001", 1024)).isEqualTo(PINNED_1);
    assertThat(OfferPartitioning.partitionOf("", 1024)).isEqualTo(PINNED_EMPTY);
  }

  @Test
  void keysSpreadEvenlyOverPartitions() {
    int[] counts = new int[64];
    for (int i = 0; i < 64_000; i++) {
      counts[OfferPartitioning.partitionOf("car-" + i, 64)]++;
    }
    for (int c : counts) {
      assertThat(c).isBetween(800, 1200);
    }
  }

  @Test
  void partitionCountMustBePositive() {
    assertThatThrownBy(() -> OfferPartitioning.partitionOf("k", 0))
        .hasMessage("partitionCount must be >= 1, got 0");
  }

  private static final int PINNED_1 = 799;
  private static final int PINNED_EMPTY = 409; // xxHash64("") = 0xEF46DB3751D8E999
}
