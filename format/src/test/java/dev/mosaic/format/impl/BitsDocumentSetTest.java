package dev.mosaic.format.impl;

import java.util.BitSet;
import java.util.Random;

/** The {@link DocumentSet} contract for bit sets. */
class BitsDocumentSetTest extends BaseDocumentSetTestCase {
  @Override
  Sample sample(Random random, int universe) {
    return randomBits(random, universe);
  }

  @Override
  Class<? extends DocumentSet> form() {
    return DocumentSet.Bits.class;
  }

  static Sample randomBits(Random random, int universe) {
    BitSet members = randomMembers(random, universe);
    long[] words = java.util.Arrays.copyOf(members.toLongArray(), (universe + 63) >>> 6);
    return new Sample(DocumentSet.bits(universe, words), members);
  }
}
