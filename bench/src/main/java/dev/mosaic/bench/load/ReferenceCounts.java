package dev.mosaic.bench.load;

import dev.mosaic.api.OfferPartitioning;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.feed.CarOffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What the searcher under load must answer: per partition, documents by mark and by mark and body
 * type, kept up to date as the load tool republishes partitions, and the recent states of the whole
 * data set with the time window in which each may be served. A generation serves exactly one
 * version of every partition, so a right total equals the total of some state whose window overlaps
 * the query; any other total is a wrong answer.
 *
 * <p>Thread safety: safe for concurrent use (synchronized).
 */
final class ReferenceCounts {
  /** States kept for checking answers (older ones can no longer be served). */
  private static final int HISTORY = 16;

  private final Map<String, Integer> marks = new HashMap<>();
  private final Map<String, Integer> bodies = new HashMap<>();
  private final int[][] partitionMarks;
  private final int[][][] partitionMarkBodies;
  private final int[] partitionDocs;

  private final long[] marksTotal;
  private final long[][] markBodiesTotal;
  private long docsTotal;

  private final Deque<State> states = new ArrayDeque<>();

  /**
   * One state of the data set: its totals, and when it may be served: from {@code from} (when the
   * file that made it was sent) until {@code until} (once the next state is surely served).
   */
  private static final class State {
    final long[] marks;
    final long[][] markBodies;
    final long docs;
    final long from;
    long until = Long.MAX_VALUE;

    State(long[] marks, long[][] markBodies, long docs, long from) {
      this.marks = marks;
      this.markBodies = markBodies;
      this.docs = docs;
      this.from = from;
    }
  }

  /** The expected totals of a query kind. */
  sealed interface Expectation {}

  /** {@code eq mark}. */
  record MarkTotal(String mark) implements Expectation {}

  /** {@code in marks} and {@code eq body_type}. */
  record MarksBodyTotal(Set<String> marks, String body) implements Expectation {}

  /** Every document. */
  record AllTotal() implements Expectation {}

  /** Not checked against the reference (range filters). */
  record Unchecked() implements Expectation {}

  ReferenceCounts(int partitions) {
    List<String> m = CarOfferGenerator.marks();
    List<String> b = CarOfferGenerator.bodyTypes();
    for (int i = 0; i < m.size(); i++) {
      marks.put(m.get(i), i);
    }
    for (int i = 0; i < b.size(); i++) {
      bodies.put(b.get(i), i);
    }
    partitionMarks = new int[partitions][m.size()];
    partitionMarkBodies = new int[partitions][m.size()][b.size()];
    partitionDocs = new int[partitions];
    marksTotal = new long[m.size()];
    markBodiesTotal = new long[m.size()][b.size()];
  }

  /**
   * The reference of the store {@link CarsStoreGenerator#generate} wrote with these arguments,
   * recomputed from the same generator.
   */
  static ReferenceCounts ofGeneratedStore(int documents, int partitions, long seed) {
    ReferenceCounts r = new ReferenceCounts(partitions);
    CarOfferGenerator generator = CarOfferGenerator.builder().seed(seed).build();
    for (int i = 0; i < documents; i++) {
      CarOffer car = generator.next();
      r.add(OfferPartitioning.partitionOf(car.getDedupKey(), partitions), car, 1);
    }
    r.states.add(r.snapshot(Long.MIN_VALUE));
    return r;
  }

  private void add(int p, CarOffer car, int sign) {
    partitionDocs[p] += sign;
    docsTotal += sign;
    Integer m = marks.get(car.getMark());
    if (m == null) {
      return;
    }
    partitionMarks[p][m] += sign;
    marksTotal[m] += sign;
    Integer b = bodies.get(car.getBodyType());
    if (b != null) {
      partitionMarkBodies[p][m][b] += sign;
      markBodiesTotal[m][b] += sign;
    }
  }

  private State snapshot(long from) {
    long[][] mb = new long[markBodiesTotal.length][];
    for (int i = 0; i < mb.length; i++) {
      mb[i] = markBodiesTotal[i].clone();
    }
    return new State(marksTotal.clone(), mb, docsTotal, from);
  }

  /**
   * Partition {@code p} is being replaced by {@code cars} (the file is about to be sent, at {@code
   * sentAt}): a new state, which may be served from now on.
   *
   * @return a handle to say when the searcher served the replacement, or refused it
   */
  synchronized Replacement replace(int p, List<CarOffer> cars, long sentAt) {
    Replacement r = new Replacement(p);
    setPartition(
        p, new int[partitionMarks[p].length], new int[partitionMarks[p].length][bodies.size()], 0);
    for (CarOffer car : cars) {
      add(p, car, 1);
    }
    r.state = snapshot(sentAt);
    states.addLast(r.state);
    while (states.size() > HISTORY) {
      states.removeFirst();
    }
    return r;
  }

  /** Sets partition {@code p}'s counts, keeping the totals in step. */
  private void setPartition(int p, int[] markCounts, int[][] markBodyCounts, int docs) {
    for (int m = 0; m < markCounts.length; m++) {
      marksTotal[m] += markCounts[m] - partitionMarks[p][m];
      for (int b = 0; b < markBodyCounts[m].length; b++) {
        markBodiesTotal[m][b] += markBodyCounts[m][b] - partitionMarkBodies[p][m][b];
      }
    }
    docsTotal += docs - partitionDocs[p];
    partitionMarks[p] = markCounts;
    partitionMarkBodies[p] = markBodyCounts;
    partitionDocs[p] = docs;
  }

  /** A replacement in flight. */
  final class Replacement {
    private final int partition;
    private final int[] marksBefore;
    private final int[][] markBodiesBefore;
    private final int docsBefore;
    private State state;

    private Replacement(int p) {
      this.partition = p;
      this.marksBefore = partitionMarks[p];
      this.markBodiesBefore = partitionMarkBodies[p];
      this.docsBefore = partitionDocs[p];
    }

    /** The searcher serves the replacement from {@code at} on: earlier states end there. */
    void served(long at) {
      synchronized (ReferenceCounts.this) {
        for (State s : states) {
          if (s != state && s.from <= state.from && s.until > at) {
            s.until = at;
          }
        }
      }
    }

    /** The searcher refused the file: the replacement never happens. */
    void refused() {
      synchronized (ReferenceCounts.this) {
        states.remove(state);
        setPartition(partition, marksBefore, markBodiesBefore, docsBefore);
      }
    }
  }

  /**
   * Whether {@code total} is right for a query of kind {@code e} that ran in {@code [start, end]}
   * ({@link System#nanoTime()}): it equals the total of a state that may have been served then.
   */
  synchronized boolean accepts(Expectation e, long total, long start, long end) {
    if (e instanceof Unchecked) {
      return true;
    }
    for (State s : states) {
      if (s.from <= end && s.until >= start && expected(e, s) == total) {
        return true;
      }
    }
    return false;
  }

  /** The totals the states that may have served a query in {@code [start, end]} give it. */
  synchronized List<Long> candidates(Expectation e, long start, long end) {
    List<Long> out = new ArrayList<>();
    for (State s : states) {
      if (s.from <= end && s.until >= start) {
        out.add(expected(e, s));
      }
    }
    return out;
  }

  private long expected(Expectation e, State s) {
    return switch (e) {
      case MarkTotal(String mark) -> {
        Integer m = marks.get(mark);
        yield m == null ? 0 : s.marks[m];
      }
      case MarksBodyTotal(Set<String> ms, String body) -> {
        Integer b = bodies.get(body);
        long sum = 0;
        for (String mark : ms) {
          Integer m = marks.get(mark);
          if (m != null && b != null) {
            sum += s.markBodies[m][b];
          }
        }
        yield sum;
      }
      case AllTotal() -> s.docs;
      case Unchecked() -> -1;
    };
  }
}
