package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FieldTypeOrderTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  @Test
  void encodingPreservesOrderOfSignedNumbersAndDoubles() {
    Random random = new Random(SEED);
    for (int i = 0; i < 20_000; i++) {
      int a = randomInt(random);
      int b = randomInt(random);
      assertSameOrder(
          Integer.compare(a, b), FieldType.INT.encode(a), FieldType.INT.encode(b), a, b);
      long la = random.nextLong() >> random.nextInt(64);
      long lb = random.nextLong() >> random.nextInt(64);
      assertSameOrder(
          Long.compare(la, lb), FieldType.LONG.encode(la), FieldType.LONG.encode(lb), la, lb);
      double da = randomDouble(random);
      double db = randomDouble(random);
      assertSameOrder(
          Double.compare(da, db), FieldType.DOUBLE.encode(da), FieldType.DOUBLE.encode(db), da, db);
    }
  }

  @Test
  void everyTypeRoundTrips() {
    assertThat(FieldType.INT.decode(FieldType.INT.encode(Integer.MIN_VALUE)))
        .isEqualTo(Integer.MIN_VALUE);
    assertThat(FieldType.LONG.decode(FieldType.LONG.encode(-5L))).isEqualTo(-5L);
    assertThat(FieldType.DOUBLE.decode(FieldType.DOUBLE.encode(-0.0))).isEqualTo(-0.0);
    assertThat(FieldType.DOUBLE.decode(FieldType.DOUBLE.encode(Double.NaN))).isEqualTo(Double.NaN);
    assertThat(FieldType.BOOLEAN.decode(FieldType.BOOLEAN.encode(true))).isEqualTo(true);
    assertThat(FieldType.STRING.decode(FieldType.STRING.encode("Москва"))).isEqualTo("Москва");
    Instant t = Instant.ofEpochMilli(-123_456L);
    assertThat(FieldType.TIMESTAMP.decode(FieldType.TIMESTAMP.encode(t))).isEqualTo(t);
    assertThat((byte[]) FieldType.BYTES.decode(FieldType.BYTES.encode(new byte[] {1, 2})))
        .containsExactly(1, 2);
  }

  @Test
  void wrongJavaTypeIsRejectedWithTheTypeNamed() {
    assertThatThrownBy(() -> FieldType.INT.encode("12"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("INT")
        .hasMessageContaining("String");
  }

  private static int randomInt(Random random) {
    return random.nextBoolean() ? random.nextInt() : random.nextInt(21) - 10;
  }

  private static double randomDouble(Random random) {
    return switch (random.nextInt(6)) {
      case 0 -> Double.longBitsToDouble(random.nextLong());
      case 1 -> random.nextBoolean() ? Double.NEGATIVE_INFINITY : Double.POSITIVE_INFINITY;
      case 2 -> random.nextBoolean() ? 0.0 : -0.0;
      default -> (random.nextDouble() - 0.5) * Math.pow(10, random.nextInt(20) - 10);
    };
  }

  private static void assertSameOrder(int expected, byte[] a, byte[] b, Object va, Object vb) {
    assertThat(Integer.signum(Arrays.compareUnsigned(a, b)))
        .as("order of %s vs %s (seed %d)", va, vb, SEED)
        .isEqualTo(Integer.signum(expected));
  }
}
