package dev.mosaic.bench.freshness;

import dev.mosaic.deploy.LatencyWindow;
import java.util.List;
import java.util.Locale;

/**
 * The measured cycles of a freshness run and its {@code RESULT} line: feed-to-searchable
 * percentiles over the cycles (nearest rank), the bytes that crossed datacenters per raw byte of
 * the changed offers (over all cycles), and the full partition files shipped (all cycles).
 *
 * <p>Immutable; thread safe.
 *
 * @param offers offers in the feed
 * @param partitions index partitions
 * @param cycles the measured cycles, in order
 */
record FreshnessResult(int offers, int partitions, List<Cycle> cycles) {

  /**
   * One cycle.
   *
   * @param changedOffers offers whose content changed
   * @param changedBytes raw bytes of those offers (serialized feed offers, new content)
   * @param changedPartitions index partitions holding them
   * @param publishMillis from the snapshots' arrival at the feed loader until Kafka acknowledged
   *     the last change
   * @param searchableMillis from the snapshots' arrival until every searcher answered every changed
   *     offer with its new content
   * @param wire the transport's counters over the cycle
   */
  record Cycle(
      int changedOffers,
      long changedBytes,
      int changedPartitions,
      long publishMillis,
      long searchableMillis,
      WireCounters.Reading wire) {

    /** Cross-DC bytes per raw changed byte in this cycle. */
    double wireBytesPerChangedByte() {
      return changedBytes == 0 ? 0 : (double) wire.crossDcBytes() / changedBytes;
    }
  }

  FreshnessResult {
    cycles = List.copyOf(cycles);
    if (cycles.isEmpty()) {
      throw new IllegalArgumentException("a result needs at least one cycle");
    }
  }

  /** Nearest-rank percentile of the cycles' feed-to-searchable times. */
  long percentileMillis(double percentile) {
    LatencyWindow w = new LatencyWindow(cycles.size());
    cycles.forEach(c -> w.add(c.searchableMillis()));
    return w.percentile(percentile);
  }

  /** Cross-DC bytes over all cycles per raw byte of all changed offers. */
  double wireBytesPerChangedByte() {
    long changed = cycles.stream().mapToLong(Cycle::changedBytes).sum();
    long wire = cycles.stream().mapToLong(c -> c.wire().crossDcBytes()).sum();
    return changed == 0 ? 0 : (double) wire / changed;
  }

  /** Full partition files shipped over all cycles. */
  long fullCopies() {
    return cycles.stream().mapToLong(c -> c.wire().fullCopies()).sum();
  }

  /** The {@code RESULT freshness ...} line. */
  String line() {
    return String.format(
        Locale.ROOT,
        "RESULT freshness offers=%d partitions=%d cycles=%d p50_ms=%d p99_ms=%d"
            + " wire_bytes_per_changed_byte=%.2f full_copies=%d",
        offers,
        partitions,
        cycles.size(),
        percentileMillis(50),
        percentileMillis(99),
        wireBytesPerChangedByte(),
        fullCopies());
  }
}
