package dev.mosaic.deploy;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import java.io.Closeable;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Simulated partner feeds: a few dozen partners, each with a full snapshot of car offers from a
 * seeded {@link CarOfferGenerator} (some cars listed by several partners under one dedup key), each
 * republishing a changed full snapshot every {@code feed.interval} (some offers changed, some
 * removed, some added), staggered so that publishes spread evenly over the interval.
 *
 * <p>Snapshots go to a {@link Sink} (the feed loader, which diffs them into the offers topic).
 *
 * <p>Lifecycle: {@link #publishAll()} once, then {@link #start()} the periodic republishing, then
 * {@link #close()}. Thread safety: publishing runs on one internal thread; {@link #publishAll()}
 * and the counters are safe from any thread.
 */
public final class FeedSimulator implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(FeedSimulator.class);

  /** Where snapshots go. */
  @FunctionalInterface
  public interface Sink {
    /** Publishes one partner's full snapshot; returns the number of changed offers it caused. */
    int publish(FeedSnapshot snapshot) throws Exception;
  }

  private final MosaicConfig.Feed settings;
  private final Sink sink;
  private final Clock clock;
  private final CarOfferGenerator generator;
  private final Map<String, List<CarOffer>> partners = new LinkedHashMap<>();
  private final AtomicLong snapshots = new AtomicLong();
  private final AtomicLong changes = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().name("feed-simulator").daemon().factory());
  private volatile boolean paused;
  private long snapshotSequence;
  private long addedSequence;
  private int nextPartner;

  /** A simulator with its initial snapshots generated (nothing published yet). */
  public FeedSimulator(MosaicConfig.Feed settings, Sink sink, Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.generator =
        CarOfferGenerator.builder()
            .seed(settings.seed)
            .partners(settings.partners)
            .duplicateShare(settings.duplicateShare)
            .build();
    for (int i = 1; i <= settings.partners; i++) {
      partners.put(String.format("partner-%03d", i), new ArrayList<>());
    }
    for (CarOffer offer : generator.next(settings.offers)) {
      partners.get(offer.getPartnerId()).add(offer);
    }
  }

  /** Publishes every partner's current snapshot, in the calling thread. */
  public void publishAll() throws Exception {
    publishAll((done, total) -> {});
  }

  /** Progress of {@link #publishAll(Progress)}. */
  @FunctionalInterface
  public interface Progress {
    /** Called in the publishing thread after each partner's snapshot. */
    void published(int done, int total);
  }

  /** Publishes every partner's current snapshot, in the calling thread, telling the progress. */
  public synchronized void publishAll(Progress progress) throws Exception {
    int done = 0;
    for (String partner : partners.keySet()) {
      publish(partner);
      progress.published(++done, partners.size());
    }
  }

  /** Starts republishing changed snapshots, one partner at a time, spread over the interval. */
  public void start() {
    long period = Math.max(1, settings.interval.toMillis() / Math.max(1, partners.size()));
    scheduler.scheduleAtFixedRate(this::republishNext, period, period, TimeUnit.MILLISECONDS);
    LOG.info(
        "feed simulator: {} partners republish every {} ({} offers)",
        partners.size(),
        settings.interval,
        offerCount());
  }

  private synchronized void republishNext() {
    if (paused) {
      return;
    }
    List<String> names = List.copyOf(partners.keySet());
    String partner = names.get(nextPartner++ % names.size());
    try {
      mutate(partner);
      publish(partner);
    } catch (Exception e) {
      failures.incrementAndGet();
      LOG.warn(
          "publishing a snapshot of {} failed; it is retried next round: {}",
          partner,
          e.toString());
    }
  }

  /** Changes, removes and adds offers of one partner's snapshot (added offers are its own). */
  private void mutate(String partner) {
    List<CarOffer> before = partners.get(partner);
    List<CarOffer> after =
        generator.mutate(before, settings.changeShare, settings.removeShare, settings.addShare);
    if (before.isEmpty() && settings.addShare > 0) {
      after = new ArrayList<>(after);
      after.add(generator.next());
    }
    List<CarOffer> own = new ArrayList<>(after.size());
    for (CarOffer o : after) {
      if (o.getPartnerId().equals(partner)) {
        own.add(o);
      } else {
        // a new offer the generator gave another partner: it becomes this partner's listing
        own.add(
            o.toBuilder()
                .setPartnerId(partner)
                .setOfferId(partner + "-n" + (++addedSequence))
                .build());
      }
    }
    partners.put(partner, own);
  }

  private void publish(String partner) throws Exception {
    long now = clock.millis();
    FeedSnapshot.Builder b =
        FeedSnapshot.newBuilder()
            .setPartnerId(partner)
            .setSnapshotId(++snapshotSequence)
            .setCreatedAtMillis(now);
    for (CarOffer car : partners.get(partner)) {
      b.addOffers(CarOffers.toOffer(car, now));
    }
    int changed = sink.publish(b.build());
    snapshots.incrementAndGet();
    changes.addAndGet(changed);
  }

  /**
   * Offers whose content changed in one {@link #changeContent} round, as they are listed now, and
   * the partners whose snapshots hold them (in partner order).
   */
  public record ContentChange(List<CarOffer> changed, List<String> partners) {
    public ContentChange {
      changed = List.copyOf(changed);
      partners = List.copyOf(partners);
    }
  }

  /**
   * Changes the content of about {@code share} of all offers (price, mileage, sometimes the
   * description; same offer ids and dedup keys), each offer drawn with that probability, so the
   * changes spread over the partners by their size. Nothing is published: see {@link
   * #publishPartners}.
   *
   * @throws IllegalArgumentException if {@code share} is not in [0, 1]
   */
  public synchronized ContentChange changeContent(double share) {
    List<CarOffer> changed = new ArrayList<>();
    List<String> touched = new ArrayList<>();
    for (Map.Entry<String, List<CarOffer>> e : partners.entrySet()) {
      List<CarOffer> before = e.getValue();
      List<CarOffer> after = generator.mutate(before, share, 0, 0);
      boolean any = false;
      for (int i = 0; i < before.size(); i++) {
        if (!after.get(i).equals(before.get(i))) {
          changed.add(after.get(i));
          any = true;
        }
      }
      if (any) {
        e.setValue(new ArrayList<>(after));
        touched.add(e.getKey());
      }
    }
    return new ContentChange(changed, touched);
  }

  /**
   * Publishes the current snapshot of each of these partners, in the calling thread.
   *
   * @return the offer changes (upserts and deletes) the snapshots caused
   * @throws IllegalArgumentException naming a partner the simulator does not have
   */
  public synchronized long publishPartners(List<String> names) throws Exception {
    for (String name : names) {
      if (!partners.containsKey(name)) {
        throw new IllegalArgumentException(
            "no simulated partner '" + name + "'; there are " + partners.size());
      }
    }
    long before = changes.get();
    for (String name : names) {
      publish(name);
    }
    return changes.get() - before;
  }

  /**
   * Pauses the periodic republishing (a republish in progress finishes first); the feeds stay as
   * they are until {@link #resume()}.
   */
  public synchronized void pause() {
    paused = true;
  }

  /** Resumes the periodic republishing. */
  public void resume() {
    paused = false;
  }

  /** Snapshots published so far. */
  public long snapshotsPublished() {
    return snapshots.get();
  }

  /** Offer changes (upserts and deletes) the snapshots caused so far. */
  public long changesPublished() {
    return changes.get();
  }

  /** Snapshots that failed to publish. */
  public long failures() {
    return failures.get();
  }

  /** Offers over all partners now. */
  public synchronized int offerCount() {
    return partners.values().stream().mapToInt(List::size).sum();
  }

  /** Partners. */
  public int partnerCount() {
    return partners.size();
  }

  /** Stops republishing, letting a publish in progress finish (up to 10 s); idempotent. */
  @Override
  public void close() {
    scheduler.shutdown();
    try {
      if (!scheduler.awaitTermination(10, TimeUnit.SECONDS)) {
        scheduler.shutdownNow();
      }
    } catch (InterruptedException e) {
      scheduler.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
