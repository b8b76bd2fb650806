package dev.mosaic.deploy;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Query;
import dev.mosaic.searcher.Generation;
import java.io.Closeable;
import java.time.Duration;
import java.util.ArrayList;
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
 * Measures feed-to-searchable time end to end: a probe partner lists a few offers (distinct dedup
 * keys, so usually distinct partitions); each round changes one of them to a price never used
 * before, publishes the partner's snapshot through the same {@link FeedSimulator.Sink} as the
 * simulated partners, and polls every live searcher (its current generation, in-process) until the
 * new price is searchable there. The time from the publish call to visibility on a searcher is one
 * sample.
 *
 * <p>Thread safety: rounds are serialized (synchronized); the periodic rounds run on one internal
 * thread; {@link #measure} may be called from any thread.
 */
public final class FreshnessProbe implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(FreshnessProbe.class);

  /** The probe partner's id. */
  public static final String PARTNER = "probe";

  private static final long PRICE_BASE = 900_000_000L;

  private final MosaicConfig.Probe settings;
  private final FeedSimulator.Sink sink;
  private final Supplier<List<SearcherRole>> searchers;
  private final List<CarOffer> offers = new ArrayList<>();
  private final LatencyWindow window = new LatencyWindow(4096);
  private final AtomicLong rounds = new AtomicLong();
  private final AtomicLong misses = new AtomicLong();
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().name("freshness-probe").daemon().factory());
  private long snapshotSequence;
  private long round;

  /**
   * A probe.
   *
   * @param searchers the searchers to wait for (those running when a round starts)
   */
  public FreshnessProbe(
      MosaicConfig.Probe settings,
      FeedSimulator.Sink sink,
      Supplier<List<SearcherRole>> searchers) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.searchers = Objects.requireNonNull(searchers, "searchers");
    CarOfferGenerator generator =
        CarOfferGenerator.builder().seed(42).partners(1).duplicateShare(0).build();
    for (int i = 0; i < settings.offers; i++) {
      CarOffer car = generator.next();
      offers.add(
          car.toBuilder()
              .setPartnerId(PARTNER)
              .setOfferId(PARTNER + "-" + i)
              .setDedupKey("probe-car-" + i)
              .setPriceRub(PRICE_BASE)
              .build());
    }
  }

  /** Starts the periodic rounds. */
  public void start() {
    long period = settings.interval.toMillis();
    scheduler.scheduleWithFixedDelay(
        () -> {
          try {
            measure(settings.timeout);
          } catch (Exception e) {
            LOG.warn("freshness probe round failed: {}", e.toString());
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
    int i = (int) (r % offers.size());
    long price = PRICE_BASE + r;
    CarOffer changed = offers.get(i).toBuilder().setPriceRub(price).build();
    offers.set(i, changed);
    List<SearcherRole> waiting = new ArrayList<>(searchers.get());
    long began = System.nanoTime();
    FeedSnapshot.Builder b =
        FeedSnapshot.newBuilder()
            .setPartnerId(PARTNER)
            .setSnapshotId(++snapshotSequence)
            .setCreatedAtMillis(System.currentTimeMillis());
    for (CarOffer car : offers) {
      b.addOffers(CarOffers.toOffer(car, System.currentTimeMillis()));
    }
    sink.publish(b.build());
    Query query =
        Query.where(
            Condition.and(
                Condition.eq(CarsSchema.OFFER_ID, changed.getOfferId()),
                Condition.eq(CarsSchema.PRICE, price)));
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
        LOG.warn("probe {} not searchable on {} within {}", r, s.nodeId(), timeout);
      }
    }
    return seen;
  }

  private static boolean visible(SearcherRole s, Query query) {
    if (!s.isReady()) {
      return false;
    }
    try (Generation g = s.node().generations().acquire()) {
      return g.database().count(query) > 0;
    } catch (IllegalStateException e) {
      return false; // closed meanwhile
    }
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
