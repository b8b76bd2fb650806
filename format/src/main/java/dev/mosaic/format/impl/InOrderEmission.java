package dev.mosaic.format.impl;

import dev.mosaic.format.DocumentProcessor;

/**
 * The page of an unordered query, emitted partition after partition: whole partitions inside the
 * skip are passed over by their count, then matches go to the processor until the limit is reached
 * or the processor stops. Shared by the sequential and the parallel path, which differ only in when
 * each partition's matches are evaluated.
 *
 * <p>Thread safety: not thread safe; one instance per query, used by the emitting thread.
 */
final class InOrderEmission {
  private long skip;
  private long limit;
  private boolean stopped;

  InOrderEmission(long skip, long limit) {
    this.skip = skip;
    this.limit = limit;
  }

  /** Whether the page is complete: the limit is reached or the processor stopped. */
  boolean done() {
    return stopped || limit <= 0;
  }

  /**
   * Emits what {@code m}, the matches of unit {@code unit} of {@code units}, contributes to the
   * page; the unit's processor (a wrapper for a group's window) is made only when it emits.
   */
  void emit(CompositeUnits units, int unit, Matches m, DocumentProcessor processor) {
    PartitionSearcher partition = units.searchers[unit];
    if (done() || m.kind == Matches.NONE) {
      return;
    }
    if (skip > 0) {
      long c = partition.count(m);
      if (skip >= c) {
        skip -= c;
        return;
      }
    }
    long emitted =
        partition.emitInDocumentOrder(m, skip, limit, units.processorOf(unit, processor));
    if (emitted == PartitionSearcher.STOPPED) {
      stopped = true;
      return;
    }
    limit -= emitted;
    skip = 0;
  }
}
