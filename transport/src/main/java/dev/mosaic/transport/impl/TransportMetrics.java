package dev.mosaic.transport.impl;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

/**
 * Micrometer meters of the transport. Names: {@code mosaic.transport.bytes} (tags {@code
 * direction}=sent|received|refused, {@code from_dc}, {@code to_dc}), {@code
 * mosaic.transport.deliveries} (tags {@code kind}=entry|relay|fetch, {@code
 * outcome}=accepted|failed), {@code mosaic.transport.retries} (tag {@code kind}), {@code
 * mosaic.transport.delivery.latency} (tag {@code kind}), and per node the gauges {@code
 * mosaic.transport.partitions.behind} and {@code mosaic.transport.stale}. Delivery by kind: {@code
 * mosaic.transport.bytes.sent} and {@code mosaic.transport.copies.sent} (tags {@code
 * kind}=delta|full, {@code from_dc}, {@code to_dc}), {@code mosaic.transport.full.fallbacks} (tag
 * {@code reason}, one of {@link #FALLBACK_REASONS}), {@code mosaic.transport.chained.deltas}.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class TransportMetrics {
  private final MeterRegistry registry;
  private final ConcurrentMap<String, Counter> counters = new ConcurrentHashMap<>();

  public TransportMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  public MeterRegistry registry() {
    return registry;
  }

  public void bytesSent(String fromDc, String toDc, long n) {
    bytes("sent", fromDc, toDc).increment(n);
  }

  public void bytesReceived(String fromDc, String toDc, long n) {
    bytes("received", fromDc, toDc).increment(n);
  }

  /** Bytes of refused pushes the receiver read and discarded (the sender stops on the answer). */
  public void bytesRefused(String fromDc, String toDc, long n) {
    bytes("refused", fromDc, toDc).increment(n);
  }

  private Counter bytes(String direction, String fromDc, String toDc) {
    return counters.computeIfAbsent(
        direction + '|' + fromDc + '|' + toDc,
        k ->
            Counter.builder("mosaic.transport.bytes")
                .description("partition file bytes moved, per link between datacenters")
                .baseUnit("bytes")
                .tag("direction", direction)
                .tag("from_dc", fromDc)
                .tag("to_dc", toDc)
                .register(registry));
  }

  /** Counts a connection a sender opened for change sets (kept for the next ones). */
  public void pooledConnectionOpened(String toDc) {
    counters
        .computeIfAbsent(
            "c|" + toDc,
            k ->
                Counter.builder("mosaic.transport.connections.opened")
                    .description("connections opened for pushes (each one TLS handshake)")
                    .tag("to_dc", toDc)
                    .register(registry))
        .increment();
  }

  /** Counts a delivery that ended accepted (recording its latency) or failed. */
  public void delivery(String kind, boolean accepted, Duration latency) {
    deliveries(kind, accepted ? "accepted" : "failed").increment();
    if (accepted) {
      Timer.builder("mosaic.transport.delivery.latency")
          .description("time from start of a delivery to its acknowledgement")
          .tag("kind", kind)
          .register(registry)
          .record(latency);
    }
  }

  /**
   * Counts a delivery that ended because the receiver already holds a newer version of the
   * partition: nothing was lost, so it is neither accepted nor failed.
   */
  public void superseded(String kind) {
    deliveries(kind, "superseded").increment();
  }

  private Counter deliveries(String kind, String outcome) {
    return counters.computeIfAbsent(
        "d|" + kind + '|' + outcome,
        k ->
            Counter.builder("mosaic.transport.deliveries")
                .description("partition file deliveries by outcome")
                .tag("kind", kind)
                .tag("outcome", outcome)
                .register(registry));
  }

  /** The reasons a delta push falls back to a full copy (the bounded values of the tag). */
  public static final java.util.Set<String> FALLBACK_REASONS =
      java.util.Set.of("base_missing", "malformed", "rebuild_mismatch", "rebuild_failed", "other");

  /** Bytes of one copy sent, by kind ({@code delta}: a change set, {@code full}: the file). */
  public void wireBytes(String kind, String fromDc, String toDc, long n) {
    counters
        .computeIfAbsent(
            "w|" + kind + '|' + fromDc + '|' + toDc,
            k ->
                Counter.builder("mosaic.transport.bytes.sent")
                    .description("bytes sent per copy kind: change sets (delta) or files (full)")
                    .baseUnit("bytes")
                    .tag("kind", kind)
                    .tag("from_dc", fromDc)
                    .tag("to_dc", toDc)
                    .register(registry))
        .increment(n);
  }

  /** One copy started, by kind ({@code delta} or {@code full}, catch-up fetches included). */
  public void copySent(String kind, String fromDc, String toDc) {
    counters
        .computeIfAbsent(
            "c|" + kind + '|' + fromDc + '|' + toDc,
            k ->
                Counter.builder("mosaic.transport.copies.sent")
                    .description("copies sent per kind: change sets (delta) or files (full)")
                    .tag("kind", kind)
                    .tag("from_dc", fromDc)
                    .tag("to_dc", toDc)
                    .register(registry))
        .increment();
  }

  /** A delta push the receiver answered with need-full, by reason (unknown ones: other). */
  public void fullFallback(String reason) {
    String tag = FALLBACK_REASONS.contains(reason) ? reason : "other";
    counters
        .computeIfAbsent(
            "f|" + tag,
            k ->
                Counter.builder("mosaic.transport.full.fallbacks")
                    .description("delta pushes answered need-full, then sent as the file")
                    .tag("reason", tag)
                    .register(registry))
        .increment();
  }

  /**
   * A receiver lacking a change set's base got the change sets from the version it holds instead,
   * composed into one.
   */
  public void chainedDelta() {
    counters
        .computeIfAbsent(
            "chained",
            k ->
                Counter.builder("mosaic.transport.chained.deltas")
                    .description(
                        "change sets composed from the version a receiver held, sent instead of"
                            + " the file")
                    .register(registry))
        .increment();
  }

  public void retry(String kind) {
    counters
        .computeIfAbsent(
            "r|" + kind,
            k ->
                Counter.builder("mosaic.transport.retries")
                    .description("attempts that failed and were retried")
                    .tag("kind", kind)
                    .register(registry))
        .increment();
  }
}
