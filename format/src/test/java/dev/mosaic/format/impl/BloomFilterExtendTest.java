package dev.mosaic.format.impl;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/**
 * A filter extended with new values ({@link BloomFilter#extend}) is the filter a build of the union
 * makes, byte for byte, whenever the union's bit count is the base's; otherwise there is none and
 * the caller builds.
 */
class BloomFilterExtendTest {
  private static final long SEED = 0xB100F11E7L;

  @Test
  void anExtendedFilterIsTheBytesOfABuildOfTheUnionOrNothingWhenTheBitCountChanges() {
    Random random = new Random(SEED);
    int extended = 0;
    int refused = 0;
    for (int round = 0; round < 300; round++) {
      TreeSet<String> base = new TreeSet<>();
      int baseCount = 1 + random.nextInt(2000);
      while (base.size() < baseCount) {
        base.add("v" + random.nextInt(1_000_000));
      }
      TreeSet<String> added = new TreeSet<>();
      int addedCount = random.nextInt(1 + baseCount / (1 + random.nextInt(20)));
      while (added.size() < addedCount) {
        String v = "v" + random.nextInt(1_000_000);
        if (!base.contains(v)) {
          added.add(v);
        }
      }
      TreeSet<String> union = new TreeSet<>(base);
      union.addAll(added);

      BloomFilter baseFilter = read(BloomFilter.build(bytes(base)));
      ByteSink extension = BloomFilter.extend(baseFilter, union.size(), bytes(added));
      byte[] built = content(BloomFilter.build(bytes(union)));
      if (BloomFilter.bitsFor(union.size()) == BloomFilter.bitsFor(base.size())) {
        assertThat(extension).as("round %d", round).isNotNull();
        assertThat(content(extension)).as("round %d", round).isEqualTo(built);
        extended++;
      } else {
        assertThat(extension).as("round %d", round).isNull();
        refused++;
      }
    }
    // both outcomes were exercised
    assertThat(extended).isGreaterThan(50);
    assertThat(refused).isGreaterThan(10);
  }

  private static BloomFilter read(ByteSink sink) {
    byte[] bytes = content(sink);
    try {
      return BloomFilter.read("test", MemorySegment.ofArray(bytes), 0, bytes.length);
    } catch (dev.mosaic.format.CorruptDatabaseException e) {
      throw new AssertionError(e);
    }
  }

  private static byte[] content(ByteSink sink) {
    return Arrays.copyOf(sink.array(), sink.size());
  }

  private static byte[][] bytes(TreeSet<String> values) {
    return values.stream().map(v -> v.getBytes(StandardCharsets.UTF_8)).toArray(byte[][]::new);
  }
}
