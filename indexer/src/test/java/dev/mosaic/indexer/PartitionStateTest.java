package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.HashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class PartitionStateTest {

  @Test
  void putReportsChangesOnlyAndRemoveForgets() {
    PartitionState s = new PartitionState(7);
    assertThat(s.put(1L, bytes("a"))).isTrue();
    assertThat(s.put(1L, bytes("a"))).isFalse();
    assertThat(s.put(1L, bytes("b"))).isTrue();
    assertThat(s.size()).isEqualTo(1);
    assertThat(s.remove(2L)).isFalse();
    assertThat(s.remove(1L)).isTrue();
    assertThat(s.size()).isZero();
    assertThat(s.fingerprint()).isZero();
  }

  @Test
  void fingerprintDependsOnContentNotOnArrivalOrder() {
    PartitionState a = new PartitionState(0);
    PartitionState b = new PartitionState(0);
    a.put(1L, bytes("x"));
    a.put(2L, bytes("y"));
    b.put(2L, bytes("old"));
    b.put(1L, bytes("x"));
    assertThat(a.fingerprint()).isNotEqualTo(b.fingerprint());
    b.put(2L, bytes("y"));
    assertThat(a.fingerprint()).isEqualTo(b.fingerprint());
  }

  @Test
  void randomOperationsMatchAReferenceMapThroughCompactions() {
    long seed = new SplittableRandom().nextLong();
    SplittableRandom random = new SplittableRandom(seed);
    PartitionState s = new PartitionState(3);
    Map<Long, byte[]> reference = new HashMap<>();
    PartitionState.Snapshot early = null;
    Map<Long, byte[]> earlyReference = null;
    for (int i = 0; i < 50_000; i++) {
      long key = random.nextInt(500);
      if (random.nextInt(4) == 0) {
        s.remove(key);
        reference.remove(key);
      } else {
        byte[] value = new byte[1 + random.nextInt(300)];
        random.nextBytes(value);
        s.put(key, value);
        reference.put(key, value);
      }
      if (i == 10_000) {
        early = s.snapshot();
        earlyReference = new HashMap<>(reference);
      }
    }
    assertContent(s.snapshot(), reference, seed);
    assertContent(early, earlyReference, seed); // older snapshots survive later writes
    assertThat(s.liveBytes())
        .as("seed %d", seed)
        .isEqualTo(reference.values().stream().mapToLong(v -> v.length).sum());
    assertThat(s.heapBytes()).as("seed %d", seed).isLessThan(4 * s.liveBytes() + 64 * 1024);
  }

  private static void assertContent(
      PartitionState.Snapshot snap, Map<Long, byte[]> expected, long seed) {
    assertThat(snap.size()).as("seed %d", seed).isEqualTo(expected.size());
    long previous = Long.MIN_VALUE;
    for (int i = 0; i < snap.size(); i++) {
      long ptr = snap.pointers()[i];
      byte[] actual =
          Arrays.copyOfRange(snap.slab(), snap.offset(i), snap.offset(i) + snap.length(i));
      // pointers are ordered by key hash; find the key by content
      boolean found = expected.values().stream().anyMatch(v -> Arrays.equals(v, actual));
      assertThat(found).as("seed %d, entry %d (%d)", seed, i, ptr).isTrue();
      assertThat(ptr).isNotEqualTo(previous);
      previous = ptr;
    }
  }

  private static byte[] bytes(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }
}
