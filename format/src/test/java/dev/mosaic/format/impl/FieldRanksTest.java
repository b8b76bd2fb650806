package dev.mosaic.format.impl;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The packed ranking of fixed-width values gives what the hashed ranking (the reference) gives. */
class FieldRanksTest {
  private static final long SEED = 0xf1e1d_4a2c5L;

  /** Documents of one field (index 0) with these values each, and no payload. */
  private static DocumentColumns source(List<List<byte[]>> docs) {
    DocumentColumns columns = new DocumentColumns(1);
    for (List<byte[]> values : docs) {
      for (byte[] v : values) {
        columns.append(0, v);
      }
      columns.end(new byte[0]);
    }
    return columns;
  }

  @Test
  void packedRanksEqualHashedRanksForRandomFixedWidthValues() {
    Random random = new Random(SEED);
    for (int trial = 0; trial < 2_000; trial++) {
      int width = 1 + random.nextInt(8);
      int documents = random.nextInt(200);
      int pool = 1 + random.nextInt(60);
      int maxValues = random.nextInt(4); // 0..3 values per document
      List<byte[]> values = new ArrayList<>();
      for (int i = 0; i < pool; i++) {
        byte[] v = new byte[width];
        random.nextBytes(v);
        if (random.nextInt(4) == 0) {
          v[0] = (byte) (random.nextBoolean() ? 0 : 0xFF); // extremes of the unsigned order
        }
        values.add(v);
      }
      List<List<byte[]>> docs = new ArrayList<>();
      for (int d = 0; d < documents; d++) {
        int count = maxValues == 1 ? 1 : random.nextInt(maxValues + 1);
        List<byte[]> mine = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          mine.add(values.get(random.nextInt(pool)).clone());
        }
        docs.add(mine);
      }
      DocumentColumns source = source(docs);
      FieldRanks packed = FieldRanks.packed(source, 0);
      FieldRanks hashed = FieldRanks.hashed(source, 0);
      if (docs.stream().allMatch(List::isEmpty)) {
        assertThat(packed).isNull();
        continue;
      }
      assertThat(packed).as("trial %d", trial).isNotNull();
      assertThat(packed.sorted()).as("trial %d", trial).isDeepEqualTo(hashed.sorted());
      assertThat(packed.start()).isEqualTo(hashed.start());
      int used = hashed.start()[documents];
      assertThat(java.util.Arrays.copyOf(packed.ranks(), used))
          .isEqualTo(java.util.Arrays.copyOf(hashed.ranks(), used));
      assertThat(packed.singleValued()).isEqualTo(hashed.singleValued());
      assertThat(FieldRanks.of(source, 0).sorted()).isDeepEqualTo(packed.sorted());
    }
  }

  /**
   * Eight-byte values around the widest spread ranked with one sort (the spread leaves room for a
   * value's position beside it) and just past it (ranked by binary search): both as hashed.
   */
  @Test
  void eightByteValuesRankAsHashedOnBothSidesOfTheOneSortSpread() {
    Random random = new Random(SEED + 1);
    for (int trial = 0; trial < 400; trial++) {
      int documents = 1 + random.nextInt(300);
      int positionBits = Math.max(1, 32 - Integer.numberOfLeadingZeros(documents - 1));
      long limit = (1L << (63 - positionBits)) - 1; // the widest spread sorted at once
      long spread = limit + (random.nextBoolean() ? 0 : 1 + random.nextInt(3));
      long low = random.nextLong();
      List<List<byte[]>> docs = new ArrayList<>();
      for (int d = 0; d < documents; d++) {
        long offset =
            switch (d) {
              case 0 -> 0;
              case 1 -> spread;
              default -> random.nextInt(3) == 0 ? spread : Math.floorMod(random.nextLong(), spread);
            };
        docs.add(List.of(java.nio.ByteBuffer.allocate(8).putLong(low + offset).array()));
      }
      DocumentColumns source = source(docs);
      FieldRanks packed = FieldRanks.packed(source, 0);
      FieldRanks hashed = FieldRanks.hashed(source, 0);
      assertThat(packed.sorted()).as("trial %d", trial).isDeepEqualTo(hashed.sorted());
      assertThat(java.util.Arrays.copyOf(packed.ranks(), documents))
          .as("trial %d", trial)
          .isEqualTo(java.util.Arrays.copyOf(hashed.ranks(), documents));
    }
  }

  @Test
  void valuesOfDifferentWidthsOrWiderThanEightBytesAreNotPacked() {
    DocumentColumns mixed = source(List.of(List.of(new byte[] {1}), List.of(new byte[] {1, 2})));
    assertThat(FieldRanks.packed(mixed, 0)).isNull();
    DocumentColumns wide = source(List.of(List.of(new byte[9]), List.of(new byte[9])));
    assertThat(FieldRanks.packed(wide, 0)).isNull();
    assertThat(FieldRanks.of(mixed, 0).sorted()).hasNumberOfRows(2);
  }
}
