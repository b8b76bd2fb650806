package dev.mosaic.format.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link DocumentSet} form keeps, checked against a {@link BitSet} reference on
 * seeded random sets: membership, count, {@code next} and iteration, and {@code and}, {@code or}
 * and {@code andNot} with an operand of every form, leaving both operands unchanged. A subclass
 * gives random sets of its form. Reproduce a failure with {@code -Dtests.seed=<seed>}.
 */
abstract class BaseDocumentSetTestCase {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  /** A set and the same members as a reference. */
  record Sample(DocumentSet set, BitSet members) {}

  /** A random set of this test case's form over {@code [0, universe)}. */
  abstract Sample sample(Random random, int universe);

  /** The form this test case's samples have. */
  abstract Class<? extends DocumentSet> form();

  @Test
  void membershipCountNextAndIterationAgreeWithTheReference() {
    Random random = new Random(SEED);
    for (int round = 0; round < 300; round++) {
      int universe = universe(random);
      Sample s = sample(random, universe);
      String why = s.set() + " (tests.seed=" + SEED + ")";
      assertThat(s.set()).as(why).isInstanceOf(form());
      check(s.set(), s.members(), why);
    }
  }

  @Test
  void andOrAndNotWithEveryFormAgreeWithTheReferenceAndLeaveTheOperandsUnchanged() {
    Random random = new Random(SEED);
    for (int round = 0; round < 300; round++) {
      int universe = universe(random);
      Sample a = sample(random, universe);
      for (Sample b : operands(random, universe)) {
        String why = a.set() + " with " + b.set() + " (tests.seed=" + SEED + ")";
        BitSet and = (BitSet) a.members().clone();
        and.and(b.members());
        BitSet or = (BitSet) a.members().clone();
        or.or(b.members());
        BitSet andNot = (BitSet) a.members().clone();
        andNot.andNot(b.members());
        check(a.set().and(b.set()), and, "and of " + why);
        check(a.set().or(b.set()), or, "or of " + why);
        check(a.set().andNot(b.set()), andNot, "andNot of " + why);
        check(a.set(), a.members(), "left operand after the operations, " + why);
        check(b.set(), b.members(), "right operand after the operations, " + why);
      }
    }
  }

  @Test
  void iterationStopsWhenTheVisitorSaysSo() {
    Random random = new Random(SEED);
    for (int round = 0; round < 100; round++) {
      Sample s = sample(random, universe(random));
      int stopAfter = 1 + random.nextInt(5);
      List<Integer> seen = new ArrayList<>();
      boolean completed =
          s.set()
              .forEach(
                  doc -> {
                    seen.add(doc);
                    return seen.size() < stopAfter;
                  });
      int expected = Math.min(stopAfter, s.members().cardinality());
      assertThat(seen).hasSize(expected);
      assertThat(completed).isEqualTo(s.members().cardinality() < stopAfter);
    }
  }

  @Test
  void setsOfDifferentPartitionsAreRefused() {
    Random random = new Random(SEED);
    DocumentSet a = sample(random, 100).set();
    DocumentSet b = DocumentSet.all(101);
    assertThatThrownBy(() -> a.and(b))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("universes 100 and 101");
    assertThatThrownBy(() -> b.or(a)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> a.andNot(b)).isInstanceOf(IllegalArgumentException.class);
  }

  /** Sizes around word boundaries, empty and one-document partitions included. */
  private static int universe(Random random) {
    return switch (random.nextInt(5)) {
      case 0 -> random.nextInt(3);
      case 1 -> 64 * (1 + random.nextInt(3)) + random.nextInt(3) - 1;
      default -> 1 + random.nextInt(400);
    };
  }

  /** Operands of every form. */
  private static List<Sample> operands(Random random, int universe) {
    return List.of(
        RangeDocumentSetTest.randomRange(random, universe),
        SortedIdsDocumentSetTest.randomIds(random, universe),
        BitsDocumentSetTest.randomBits(random, universe));
  }

  /** A reference set of random members, dense or sparse. */
  static BitSet randomMembers(Random random, int universe) {
    BitSet members = new BitSet();
    double density = random.nextInt(4) == 0 ? 0 : random.nextDouble();
    for (int d = 0; d < universe; d++) {
      if (random.nextDouble() < density) {
        members.set(d);
      }
    }
    return members;
  }

  private static void check(DocumentSet set, BitSet members, String why) {
    assertThat(set.count()).as("count of %s", why).isEqualTo(members.cardinality());
    for (int d = -1; d <= set.universe() + 1; d++) {
      assertThat(set.contains(d))
          .as("contains(%d) of %s", d, why)
          .isEqualTo(d >= 0 && members.get(d));
      if (d >= 0) {
        int expected = d < set.universe() ? members.nextSetBit(d) : -1;
        assertThat(set.next(d)).as("next(%d) of %s", d, why).isEqualTo(expected);
      }
    }
    List<Integer> iterated = new ArrayList<>();
    assertThat(set.forEach(iterated::add)).isTrue();
    assertThat(iterated).as("members of %s", why).isEqualTo(members.stream().boxed().toList());
  }
}
