package dev.mosaic.it;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** Percentiles over measured milliseconds (nearest rank). Not thread safe. */
final class Freshness {
  private final List<Long> millis = new ArrayList<>();

  void add(long ms) {
    millis.add(ms);
  }

  int count() {
    return millis.size();
  }

  long percentile(double p) {
    List<Long> sorted = new ArrayList<>(millis);
    Collections.sort(sorted);
    int rank = (int) Math.ceil(p / 100.0 * sorted.size());
    return sorted.get(Math.clamp(rank - 1, 0, sorted.size() - 1));
  }
}
