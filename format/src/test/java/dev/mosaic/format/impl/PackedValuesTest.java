package dev.mosaic.format.impl;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PackedValuesTest {
  @Test
  void packedValuesReadBackAsTheArraysTheyWereMadeFrom() {
    byte[][] sorted = {bytes(""), bytes("a"), bytes("bc"), bytes("def")};
    PackedValues packed = PackedValues.of(sorted);
    assertThat(packed.count()).isEqualTo(4);
    assertThat(packed.totalBytes()).isEqualTo(6);
    assertThat(Arrays.copyOf(packed.starts(), 5)).containsExactly(0, 0, 1, 3, 6);
    assertThat(valuesOf(packed)).containsExactly(sorted);
  }

  @Test
  void runsOfAMappedAreaInterleavedWithSingleValuesMatchTheValuesAppendedOneByOne() {
    Random random = new Random(7);
    for (int round = 0; round < 200; round++) {
      int areaCount = random.nextInt(40);
      byte[][] area = new byte[areaCount][];
      int[] areaStarts = new int[areaCount + 1];
      for (int v = 0; v < areaCount; v++) {
        area[v] = randomBytes(random);
        areaStarts[v + 1] = areaStarts[v] + area[v].length;
      }
      int base = random.nextInt(16);
      MemorySegment mapped = MemorySegment.ofArray(new byte[base + areaStarts[areaCount]]);
      for (int v = 0; v < areaCount; v++) {
        MemorySegment.copy(
            MemorySegment.ofArray(area[v]), 0, mapped, base + areaStarts[v], area[v].length);
      }
      // a capacity too small on purpose: the packed values grow as needed
      PackedValues packed = new PackedValues(2 * areaCount + 8, random.nextInt(4));
      List<byte[]> expected = new ArrayList<>();
      int v = 0;
      while (v < areaCount) {
        if (random.nextBoolean()) {
          byte[] single = randomBytes(random);
          packed.append(single, 0, single.length);
          expected.add(single);
        }
        int end = v + random.nextInt(areaCount - v + 1);
        packed.appendRun(mapped, base, areaStarts, v, end);
        expected.addAll(Arrays.asList(area).subList(v, end));
        v = end + (random.nextInt(3) == 0 ? 1 : 0); // sometimes a value left out
      }
      assertThat(valuesOf(packed)).containsExactlyElementsOf(expected);
    }
  }

  private static List<byte[]> valuesOf(PackedValues packed) {
    List<byte[]> values = new ArrayList<>();
    for (int v = 0; v < packed.count(); v++) {
      values.add(Arrays.copyOfRange(packed.bytes(), packed.starts()[v], packed.starts()[v + 1]));
    }
    return values;
  }

  private static byte[] randomBytes(Random random) {
    byte[] b = new byte[random.nextInt(9)];
    random.nextBytes(b);
    return b;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
