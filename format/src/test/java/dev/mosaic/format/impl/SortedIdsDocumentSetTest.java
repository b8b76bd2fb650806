package dev.mosaic.format.impl;

import java.util.BitSet;
import java.util.Random;

/** The {@link DocumentSet} contract for ascending ids (with spare room at the array's end). */
class SortedIdsDocumentSetTest extends BaseDocumentSetTestCase {
  @Override
  Sample sample(Random random, int universe) {
    return randomIds(random, universe);
  }

  @Override
  Class<? extends DocumentSet> form() {
    return DocumentSet.SortedIds.class;
  }

  static Sample randomIds(Random random, int universe) {
    BitSet members = randomMembers(random, universe);
    int[] ids = new int[members.cardinality() + random.nextInt(3)];
    int n = 0;
    for (int d = members.nextSetBit(0); d >= 0; d = members.nextSetBit(d + 1)) {
      ids[n++] = d;
    }
    for (int i = n; i < ids.length; i++) {
      ids[i] = -7; // ignored: past the count
    }
    return new Sample(DocumentSet.ids(universe, ids, n), members);
  }
}
