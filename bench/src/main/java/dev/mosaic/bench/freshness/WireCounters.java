package dev.mosaic.bench.freshness;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Collection;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads the transport's byte and delivery counters from the meter registries of every node (the
 * indexers' senders and the searchers' transport nodes) and sums them:
 *
 * <ul>
 *   <li>cross-DC bytes: {@code mosaic.transport.bytes} with {@code direction=sent} and {@code
 *       from_dc} other than {@code to_dc} (each byte is counted once, by the node that sent it);
 *   <li>full copies: whole partition files sent ({@code mosaic.transport.copies.sent} with {@code
 *       kind=full}: entry pushes, relays, fallbacks after a refused change set, catch-up fetches);
 *       change sets ({@code kind=delta}) are not full copies;
 *   <li>bytes by kind: {@code mosaic.transport.bytes.sent} by its {@code kind} tag (e.g. {@code
 *       delta}, {@code full}), when a transport reports it; empty otherwise.
 * </ul>
 *
 * <p>Thread safety: stateless; reading counters is safe while the nodes update them.
 */
final class WireCounters {
  static final String BYTES = "mosaic.transport.bytes";
  static final String COPIES_SENT = "mosaic.transport.copies.sent";
  static final String BYTES_SENT_BY_KIND = "mosaic.transport.bytes.sent";

  private WireCounters() {}

  /** Counter totals at one moment; {@link #minus} gives what a cycle added. */
  record Reading(long crossDcBytes, long fullCopies, Map<String, Long> bytesSentByKind) {
    Reading {
      bytesSentByKind = Map.copyOf(bytesSentByKind);
    }

    /** What happened between {@code before} and this reading. */
    Reading minus(Reading before) {
      Map<String, Long> kinds = new TreeMap<>(bytesSentByKind);
      before.bytesSentByKind.forEach((k, v) -> kinds.merge(k, -v, Long::sum));
      return new Reading(crossDcBytes - before.crossDcBytes, fullCopies - before.fullCopies, kinds);
    }
  }

  /** The current totals over these registries. */
  static Reading read(Collection<MeterRegistry> registries) {
    long cross = 0;
    long full = 0;
    Map<String, Long> kinds = new TreeMap<>();
    for (MeterRegistry r : registries) {
      for (Counter c : r.find(BYTES).tag("direction", "sent").counters()) {
        String from = c.getId().getTag("from_dc");
        String to = c.getId().getTag("to_dc");
        if (from != null && !from.equals(to)) {
          cross += (long) c.count();
        }
      }
      for (Counter c : r.find(COPIES_SENT).tag("kind", "full").counters()) {
        full += (long) c.count();
      }
      for (Counter c : r.find(BYTES_SENT_BY_KIND).counters()) {
        String kind = c.getId().getTag("kind");
        kinds.merge(kind == null ? "all" : kind, (long) c.count(), Long::sum);
      }
    }
    return new Reading(cross, full, kinds);
  }
}
