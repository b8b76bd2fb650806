package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import net.jpountz.xxhash.XXHash64;
import net.jpountz.xxhash.XXHashFactory;
import org.junit.jupiter.api.Test;

class XxHash64Test {
  private static final long SEED = 0x0ffe_2b17_e5L;
  private static final XXHash64 REFERENCE = XXHashFactory.safeInstance().hash64();

  @Test
  void everyLengthOffsetAndSeedHashesAsTheReferenceImplementation() {
    Random random = new Random(SEED);
    byte[] bytes = new byte[600];
    random.nextBytes(bytes);
    for (int length = 0; length <= 300; length++) {
      for (int trial = 0; trial < 20; trial++) {
        int offset = random.nextInt(bytes.length - length + 1);
        long seed = trial == 0 ? 0 : random.nextLong();
        assertThat(XxHash64.hash(bytes, offset, length, seed))
            .as("length %d offset %d seed %d", length, offset, seed)
            .isEqualTo(REFERENCE.hash(bytes, offset, length, seed));
      }
    }
  }

  @Test
  void theEmptyInputHasTheReferenceValue() {
    assertThat(XxHash64.hash(new byte[0], 0, 0, 0)).isEqualTo(0xEF46DB3751D8E999L);
  }

  @Test
  void aRangeOutsideTheArrayIsRefused() {
    assertThatThrownBy(() -> XxHash64.hash(new byte[8], 4, 5, 0))
        .isInstanceOf(IndexOutOfBoundsException.class);
  }
}
