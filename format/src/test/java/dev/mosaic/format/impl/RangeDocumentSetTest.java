package dev.mosaic.format.impl;

import java.util.BitSet;
import java.util.Random;

/** The {@link DocumentSet} contract for ranges of consecutive ids. */
class RangeDocumentSetTest extends BaseDocumentSetTestCase {
  @Override
  Sample sample(Random random, int universe) {
    return randomRange(random, universe);
  }

  @Override
  Class<? extends DocumentSet> form() {
    return DocumentSet.Range.class;
  }

  /** A random range: empty, whole, or anywhere. */
  static Sample randomRange(Random random, int universe) {
    int from = random.nextInt(universe + 1);
    int to = from + random.nextInt(universe - from + 1);
    if (random.nextInt(6) == 0) {
      from = 0;
      to = universe;
    }
    BitSet members = new BitSet();
    members.set(from, to);
    return new Sample(DocumentSet.range(universe, from, to), members);
  }
}
