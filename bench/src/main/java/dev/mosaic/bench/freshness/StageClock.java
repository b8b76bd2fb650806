package dev.mosaic.bench.freshness;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Times the stages of one freshness cycle from the pipeline's own counters, sampled on a daemon
 * thread every few milliseconds: for each stage the first and the last moment (since the cycle's
 * start) its counter grew, up to the moment the cycle became searchable. The stages, in pipeline
 * order:
 *
 * <ul>
 *   <li>{@code rebuilt}: partition files rebuilt by the indexers ({@code
 *       mosaic.indexer.rebuild.duration} count);
 *   <li>{@code entry}: versions acknowledged by a datacenter's entry searcher ({@code
 *       mosaic.transport.deliveries} {@code kind=entry}, {@code outcome=accepted});
 *   <li>{@code relay}: versions relayed inside a datacenter and acknowledged ({@code kind=relay});
 *   <li>{@code stored}: files published in the searchers' stores (a store listener each);
 *   <li>{@code reopened}: generations built by the searchers ({@code mosaic.searcher.reopen}
 *       count).
 * </ul>
 *
 * Besides, per cycle: the mean time of one rebuild (rebuild, write and record) and of one entry and
 * one relay delivery ({@code mosaic.transport.delivery.latency}), how long reopens were held back
 * by the unmapper ({@code mosaic.searcher.reopen.throttled}), and the arena closes and their time
 * ({@code mosaic.searcher.unmap}).
 *
 * <p>Thread safety: {@link #start} and {@link #stop} from one thread; the sampler is internal.
 */
final class StageClock {
  /** The stage names, in pipeline order. */
  static final List<String> STAGES = List.of("rebuilt", "entry", "relay", "stored", "reopened");

  private final Map<String, LongSupplier> probes = new LinkedHashMap<>();
  private final Collection<MeterRegistry> searchers;
  private final Collection<MeterRegistry> indexers;
  private final Collection<MeterRegistry> senders;
  private final long pollNanos;

  /**
   * @param indexers the indexers' registries
   * @param searchers the searchers' registries
   * @param senders every node that sends (indexers and searchers)
   * @param stored how many files the searchers' stores published so far
   * @param pollMillis sampling period
   */
  StageClock(
      Collection<MeterRegistry> indexers,
      Collection<MeterRegistry> searchers,
      Collection<MeterRegistry> senders,
      LongSupplier stored,
      int pollMillis) {
    this.searchers = List.copyOf(searchers);
    this.indexers = List.copyOf(indexers);
    this.senders = List.copyOf(senders);
    this.pollNanos = TimeUnit.MILLISECONDS.toNanos(pollMillis);
    probes.put("rebuilt", () -> timerCount(indexers, "mosaic.indexer.rebuild.duration"));
    probes.put("entry", () -> deliveries(senders, "entry"));
    probes.put("relay", () -> deliveries(senders, "relay"));
    probes.put("stored", stored);
    probes.put("reopened", () -> timerCount(this.searchers, "mosaic.searcher.reopen"));
  }

  /**
   * One cycle's stages.
   *
   * @param firstMillis per stage, when its counter first grew (-1: never)
   * @param lastMillis per stage, when its counter last grew before the end (-1: never)
   * @param counts per stage, how much its counter grew
   * @param meanMillis mean time of one rebuild ({@code rebuild}), entry delivery ({@code entry})
   *     and relay ({@code relay}) in the cycle
   * @param throttledMillis total time reopens were held back by the unmapper
   * @param unmaps arena closes
   * @param unmapMillis their total time
   */
  record Stages(
      Map<String, Long> firstMillis,
      Map<String, Long> lastMillis,
      Map<String, Long> counts,
      Map<String, Long> meanMillis,
      long throttledMillis,
      long unmaps,
      long unmapMillis) {

    /** {@code name=first..last(count)} per stage, then the unmapper figures. */
    String describe() {
      StringBuilder b = new StringBuilder();
      for (String s : STAGES) {
        b.append(
            String.format(
                Locale.ROOT,
                " %s_ms=%d..%d(%d)",
                s,
                firstMillis.get(s),
                lastMillis.get(s),
                counts.get(s)));
      }
      meanMillis.forEach((k, v) -> b.append(' ').append(k).append("_mean_ms=").append(v));
      b.append(
          String.format(
              Locale.ROOT,
              " reopen_throttled_ms=%d unmaps=%d unmap_ms=%d",
              throttledMillis,
              unmaps,
              unmapMillis));
      return b.toString();
    }
  }

  /** A running measurement of one cycle. */
  final class Run {
    private final long t0;
    private final long[] base;
    private final long[] previous;
    private final long[] first;
    private final long[] last;
    private final Map<String, long[]> meansBefore = new LinkedHashMap<>();
    private final long throttledBefore;
    private final long unmapsBefore;
    private final long unmapNanosBefore;
    private final Thread sampler;
    private volatile boolean stopping;
    private volatile long endNanos = Long.MAX_VALUE;

    private Run(long t0) {
      this.t0 = t0;
      int n = STAGES.size();
      base = new long[n];
      previous = new long[n];
      first = new long[n];
      last = new long[n];
      for (int i = 0; i < n; i++) {
        base[i] = probes.get(STAGES.get(i)).getAsLong();
        previous[i] = base[i];
        first[i] = -1;
        last[i] = -1;
      }
      means().forEach((k, v) -> meansBefore.put(k, v));
      throttledBefore = timerNanos(searchers, "mosaic.searcher.reopen.throttled");
      unmapsBefore = timerCount(searchers, "mosaic.searcher.unmap");
      unmapNanosBefore = timerNanos(searchers, "mosaic.searcher.unmap");
      sampler = Thread.ofPlatform().daemon().name("freshness-stages").start(this::sample);
    }

    private void sample() {
      while (!stopping) {
        long now = System.nanoTime();
        if (now - endNanos > 0) {
          return;
        }
        sampleOnce(now);
        try {
          TimeUnit.NANOSECONDS.sleep(pollNanos);
        } catch (InterruptedException e) {
          return;
        }
      }
    }

    private void sampleOnce(long now) {
      for (int i = 0; i < previous.length; i++) {
        long v = probes.get(STAGES.get(i)).getAsLong();
        if (v != previous[i]) {
          previous[i] = v;
          if (first[i] < 0) {
            first[i] = now;
          }
          last[i] = now;
        }
      }
    }

    /**
     * Stops sampling at {@code endNanos} (the moment the cycle became searchable): growth seen
     * after it is not counted, except what grew between it and this call (a last sample, dated
     * {@code endNanos}, so nothing that grew before it is lost).
     */
    Stages stop(long endNanos) throws InterruptedException {
      this.endNanos = endNanos;
      stopping = true;
      sampler.join();
      sampleOnce(Math.min(System.nanoTime(), endNanos)); // what grew since the last round
      Map<String, Long> f = new LinkedHashMap<>();
      Map<String, Long> l = new LinkedHashMap<>();
      Map<String, Long> c = new LinkedHashMap<>();
      for (int i = 0; i < STAGES.size(); i++) {
        f.put(STAGES.get(i), millisSince(first[i]));
        l.put(STAGES.get(i), millisSince(last[i]));
        c.put(STAGES.get(i), previous[i] - base[i]);
      }
      Map<String, Long> m = new LinkedHashMap<>();
      means()
          .forEach(
              (k, v) -> {
                long[] was = meansBefore.get(k);
                long n = v[0] - was[0];
                m.put(k, n == 0 ? -1 : TimeUnit.NANOSECONDS.toMillis((v[1] - was[1]) / n));
              });
      return new Stages(
          f,
          l,
          c,
          m,
          TimeUnit.NANOSECONDS.toMillis(
              timerNanos(searchers, "mosaic.searcher.reopen.throttled") - throttledBefore),
          timerCount(searchers, "mosaic.searcher.unmap") - unmapsBefore,
          TimeUnit.NANOSECONDS.toMillis(
              timerNanos(searchers, "mosaic.searcher.unmap") - unmapNanosBefore));
    }

    private long millisSince(long nanos) {
      return nanos < 0 ? -1 : TimeUnit.NANOSECONDS.toMillis(nanos - t0);
    }
  }

  /** Count and total nanoseconds of the rebuild and delivery timers. */
  private Map<String, long[]> means() {
    Map<String, long[]> out = new LinkedHashMap<>();
    out.put(
        "rebuild",
        new long[] {
          timerCount(indexers, "mosaic.indexer.rebuild.duration"),
          timerNanos(indexers, "mosaic.indexer.rebuild.duration")
        });
    for (String kind : List.of("entry", "relay")) {
      long n = 0;
      double nanos = 0;
      for (MeterRegistry r : senders) {
        for (Timer t : r.find("mosaic.transport.delivery.latency").tag("kind", kind).timers()) {
          n += t.count();
          nanos += t.totalTime(TimeUnit.NANOSECONDS);
        }
      }
      out.put(kind, new long[] {n, (long) nanos});
    }
    return out;
  }

  /** Starts timing a cycle that started at {@code t0} ({@link System#nanoTime()}). */
  Run start(long t0) {
    return new Run(t0);
  }

  /** Medians over the cycles of each stage's last moment, as one INFO line. */
  static String medians(List<Stages> cycles) {
    StringBuilder b = new StringBuilder("INFO freshness stage medians (ms after the snapshots):");
    for (String s : STAGES) {
      b.append(' ')
          .append(s)
          .append("_first=")
          .append(median(cycles.stream().map(c -> c.firstMillis().get(s)).toList()))
          .append(' ')
          .append(s)
          .append("_last=")
          .append(median(cycles.stream().map(c -> c.lastMillis().get(s)).toList()));
    }
    b.append(" reopen_throttled=")
        .append(median(cycles.stream().map(Stages::throttledMillis).toList()))
        .append(" unmap=")
        .append(median(cycles.stream().map(Stages::unmapMillis).toList()));
    return b.toString();
  }

  /** The median (upper of the two middle values) of non-empty values. */
  static long median(List<Long> values) {
    List<Long> sorted = new ArrayList<>(values);
    sorted.sort(null);
    return sorted.get(sorted.size() / 2);
  }

  private static long timerCount(Collection<MeterRegistry> registries, String name) {
    long n = 0;
    for (MeterRegistry r : registries) {
      for (Timer t : r.find(name).timers()) {
        n += t.count();
      }
    }
    return n;
  }

  private static long timerNanos(Collection<MeterRegistry> registries, String name) {
    double n = 0;
    for (MeterRegistry r : registries) {
      for (Timer t : r.find(name).timers()) {
        n += t.totalTime(TimeUnit.NANOSECONDS);
      }
    }
    return (long) n;
  }

  private static long deliveries(Collection<MeterRegistry> registries, String kind) {
    long n = 0;
    for (MeterRegistry r : registries) {
      for (Counter c :
          r.find("mosaic.transport.deliveries")
              .tag("kind", kind)
              .tag("outcome", "accepted")
              .counters()) {
        n += (long) c.count();
      }
    }
    return n;
  }
}
