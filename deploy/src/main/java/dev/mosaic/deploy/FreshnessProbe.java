package dev.mosaic.deploy;

import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Query;
import dev.mosaic.searcher.Generation;
import dev.mosaic.searcher.IndexMeters;
import io.micrometer.core.instrument.Timer;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Measures one index's feed-to-searchable time end to end: a probe partner lists a few offers of
 * the index's vertical (distinct dedup keys, so usually distinct partitions); each round changes
 * one of them to a price never used before, publishes the partner's snapshot through the same
 * {@link FeedSimulator.Sink} as the index's simulated partners, and polls every live searcher (that
 * index's current generation, in-process) until the new price is searchable there. The time from
 * the publish call to visibility on a searcher is one sample, also recorded in that searcher's
 * {@code /metrics} as {@code mosaic_probe_freshness_seconds{index=<name>}} so the dashboard shows
 * each index's freshness.
 *
 * <p>Thread safety: rounds are serialized (synchronized); the periodic rounds run on one internal
 * thread; {@link #measure} may be called from any thread.
 */
public final class FreshnessProbe implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(FreshnessProbe.class);

  /** The probe partner's id. */
  public static final String PARTNER = "probe";

  private static final long PRICE_BASE = 900_000_000L;

  /** The fields every vertical's schema has that the probe's query reads. */
  private static final String OFFER_ID = "offer_id";

  private static final String PRICE = "price";

  private final MosaicConfig.Probe settings;
  private final FeedSimulator.Sink sink;
  private final Supplier<List<SearcherRole>> searchers;
  private final String index;
  private final ProbeListings listings;
  private final long[] prices;
  private final LatencyWindow window = new LatencyWindow(4096);
  private final AtomicLong rounds = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().name("freshness-probe").daemon().factory());
  private long snapshotSequence;
  private long round;

  /**
   * A probe of one index.
   *
   * @param index the index's name, whose generations are polled
   * @param kind the index's vertical ({@link ProbeListings#KINDS})
   * @param sink where the index's feed snapshots go
   * @param searchers the searchers to wait for (those running when a round starts)
   * @throws IllegalArgumentException for a vertical the probe cannot list
   */
  public FreshnessProbe(
      MosaicConfig.Probe settings,
      String index,
      String kind,
      FeedSimulator.Sink sink,
      Supplier<List<SearcherRole>> searchers) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.index = Objects.requireNonNull(index, "index");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.searchers = Objects.requireNonNull(searchers, "searchers");
    this.listings = ProbeListings.of(kind, settings.offers, PARTNER);
    this.prices = new long[settings.offers];
    Arrays.fill(prices, PRICE_BASE);
  }

  /** The index measured. */
  public String index() {
    return index;
  }

  /** Starts the periodic rounds. */
  public void start() {
    long period = settings.interval.toMillis();
    scheduler.scheduleWithFixedDelay(
        () -> {
          try {
            measure(settings.timeout);
          } catch (Exception e) {
            LOG.warn("freshness probe round of {} failed: {}", index, e.toString());
          }
        },
        0,
        period,
        TimeUnit.MILLISECONDS);
  }

  /**
   * One round: changes one probe offer, publishes, and waits until every running searcher serves
   * the change or the timeout passes.
   *
   * @return the feed-to-searchable time per searcher node id; searchers that did not see the change
   *     in time are absent (and counted as misses)
   */
  public synchronized Map<String, Duration> measure(Duration timeout) throws Exception {
    long r = ++round;
    int i = (int) (r % prices.length);
    long price = PRICE_BASE + r;
    prices[i] = price;
    List<SearcherRole> waiting = new ArrayList<>();
    for (SearcherRole s : searchers.get()) {
      if (s.node() != null && s.node().indexes().containsKey(index)) {
        waiting.add(s);
      }
    }
    long began = System.nanoTime();
    FeedSnapshot.Builder b =
        FeedSnapshot.newBuilder()
            .setPartnerId(PARTNER)
            .setSnapshotId(++snapshotSequence)
            .setCreatedAtMillis(System.currentTimeMillis());
    for (int o = 0; o < prices.length; o++) {
      b.addOffers(listings.priced().offer(o, prices[o], System.currentTimeMillis()));
    }
    sink.publish(b.build());
    Query query =
        Query.where(
            Condition.and(Condition.eq(OFFER_ID, PARTNER + "-" + i), Condition.eq(PRICE, price)));
    Map<String, Duration> seen = new LinkedHashMap<>();
    long deadline = began + timeout.toNanos();
    while (!waiting.isEmpty() && System.nanoTime() < deadline) {
      for (var it = waiting.iterator(); it.hasNext(); ) {
        SearcherRole s = it.next();
        if (!s.isRunning()) {
          it.remove();
        } else if (visible(s, query)) {
          long nanos = System.nanoTime() - began;
          seen.put(s.nodeId(), Duration.ofNanos(nanos));
          timer(s).record(nanos, TimeUnit.NANOSECONDS);
          window.add(TimeUnit.NANOSECONDS.toMillis(nanos));
          it.remove();
        }
      }
      if (Thread.currentThread().isInterrupted()) {
        throw new InterruptedException("freshness probe interrupted");
      }
      if (!waiting.isEmpty()) {
        LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // polling cadence
      }
    }
    rounds.incrementAndGet();
    for (SearcherRole s : waiting) {
      if (s.isRunning()) {
        misses.incrementAndGet();
        LOG.warn("probe {} of {} not searchable on {} within {}", r, index, s.nodeId(), timeout);
      }
    }
    return seen;
  }

  private boolean visible(SearcherRole s, Query query) {
    if (!s.isReady()) {
      return false;
    }
    try (Generation g = s.node().index(index).generations().acquire()) {
      return g.database().count(query) > 0;
    } catch (IllegalStateException e) {
      return false; // closed meanwhile
    }
  }

  /** The searcher's timer of this index's feed-to-searchable times. */
  private Timer timer(SearcherRole s) {
    return Timer.builder("mosaic.probe.freshness")
        .description("Feed-to-searchable time of the freshness probe's changes, by index")
        .tag(IndexMeters.TAG, index)
        .publishPercentileHistogram()
        .register(s.node().meterRegistry());
  }

  /** Feed-to-searchable percentile in milliseconds over the recent samples, -1 without any. */
  public long percentileMillis(double percentile) {
    return window.percentile(percentile);
  }

  /** Samples taken (one per searcher and round). */
  public long samples() {
    return window.count();
  }

  /** Rounds run. */
  public long rounds() {
    return rounds.get();
  }

  /** Searcher-rounds that did not see their change in time. */
  public long misses() {
    return misses.get();
  }

  /** Stops the periodic rounds, letting a round in progress finish (up to 5 s); idempotent. */
  @Override
  public void close() {
    scheduler.shutdown();
    try {
      if (!scheduler.awaitTermination(5, TimeUnit.SECONDS)) {
        scheduler.shutdownNow();
      }
    } catch (InterruptedException e) {
      scheduler.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
