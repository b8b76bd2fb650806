package dev.mosaic.deploy;

import dev.mosaic.api.cars.CarOfferGenerator;
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
 * Simulated partner feeds: a few dozen partners, each with a full snapshot of listings from a
 * seeded generator ({@link SimulatedListings}: car offers, or apartments and houses; some listed by
 * several partners under one dedup key), each republishing a changed full snapshot every {@code
 * feed.interval} (some offers changed, some removed, some added), staggered so that publishes
 * spread evenly over the interval.
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
  private final Book<?> book;
  private final AtomicLong snapshots = new AtomicLong();
  private final AtomicLong changes = new AtomicLong();
  private final AtomicLong failures = new AtomicLong();
  private final ScheduledExecutorService scheduler =
      Executors.newSingleThreadScheduledExecutor(
          Thread.ofPlatform().name("feed-simulator").daemon().factory());
  private volatile boolean paused;
  private long snapshotSequence;
  private int nextPartner;

  /** A simulator of car offers with its initial snapshots generated (nothing published yet). */
  public FeedSimulator(MosaicConfig.Feed settings, Sink sink, Clock clock) {
    this(settings, SimulatedListings.cars(settings), sink, clock);
  }

  /** A simulator of those listings with its initial snapshots generated (nothing published). */
  public FeedSimulator(
      MosaicConfig.Feed settings, SimulatedListings<?> listings, Sink sink, Clock clock) {
    this.settings = Objects.requireNonNull(settings, "settings");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.book = new Book<>(listings, settings.partners, settings.offers);
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
    for (String partner : book.partners.keySet()) {
      publish(partner);
      progress.published(++done, book.partners.size());
    }
  }

  /** Starts republishing changed snapshots, one partner at a time, spread over the interval. */
  public void start() {
    long period = Math.max(1, settings.interval.toMillis() / Math.max(1, book.partners.size()));
    scheduler.scheduleAtFixedRate(this::republishNext, period, period, TimeUnit.MILLISECONDS);
    LOG.info(
        "feed simulator: {} partners of {} republish every {} ({} offers)",
        book.partners.size(),
        book.listings.kind(),
        settings.interval,
        offerCount());
  }

  private synchronized void republishNext() {
    if (paused) {
      return;
    }
    List<String> names = List.copyOf(book.partners.keySet());
    String partner = names.get(nextPartner++ % names.size());
    try {
      book.mutate(partner, settings);
      publish(partner);
    } catch (Exception e) {
      failures.incrementAndGet();
      LOG.warn(
          "publishing a snapshot of {} failed; it is retried next round: {}",
          partner,
          e.toString());
    }
  }

  private void publish(String partner) throws Exception {
    int changed = sink.publish(snapshot(partner));
    snapshots.incrementAndGet();
    changes.addAndGet(changed);
  }

  private FeedSnapshot snapshot(String partner) {
    long now = clock.millis();
    FeedSnapshot.Builder b =
        FeedSnapshot.newBuilder()
            .setPartnerId(partner)
            .setSnapshotId(++snapshotSequence)
            .setCreatedAtMillis(now);
    book.addOffers(partner, now, b);
    return b.build();
  }

  /**
   * The current full snapshots of these partners, serialized as the partners would send them (the
   * input of {@link dev.mosaic.indexer.FeedLoader#publish(byte[])}), each with the next snapshot
   * id; nothing is published. Lets a measurement start when the snapshots have arrived, not while
   * the simulator still builds them.
   *
   * @throws IllegalArgumentException naming a partner the simulator does not have
   */
  public synchronized List<byte[]> serializedSnapshots(List<String> names) {
    for (String name : names) {
      if (!book.partners.containsKey(name)) {
        throw new IllegalArgumentException(
            "no simulated partner '" + name + "'; there are " + book.partners.size());
      }
    }
    List<byte[]> out = new ArrayList<>(names.size());
    for (String name : names) {
      out.add(snapshot(name).toByteArray());
    }
    return out;
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
    if (!(book.listings.generator() instanceof CarOfferGenerator generator)) {
      throw new IllegalStateException(
          "content changes are simulated for car offers only; this simulator lists "
              + book.listings.kind());
    }
    @SuppressWarnings("unchecked")
    Map<String, List<CarOffer>> partners = ((Book<CarOffer>) book).partners;
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
      if (!book.partners.containsKey(name)) {
        throw new IllegalArgumentException(
            "no simulated partner '" + name + "'; there are " + book.partners.size());
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
    return book.partners.values().stream().mapToInt(List::size).sum();
  }

  /** Partners. */
  public int partnerCount() {
    return book.partners.size();
  }

  /** What it simulates: {@code cars} or {@code realty}. */
  public String kind() {
    return book.listings.kind();
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

  /** Every partner's current listings. Guarded by the simulator's monitor. */
  private static final class Book<T> {
    final SimulatedListings<T> listings;
    final Map<String, List<T>> partners = new LinkedHashMap<>();
    private long addedSequence;

    Book(SimulatedListings<T> listings, int partnerCount, int offers) {
      this.listings = listings;
      for (int i = 1; i <= partnerCount; i++) {
        partners.put(String.format("partner-%03d", i), new ArrayList<>());
      }
      for (T offer : listings.generator().next(offers)) {
        partners.get(listings.partnerOf().apply(offer)).add(offer);
      }
    }

    /** Changes, removes and adds listings of one partner (added listings are its own). */
    void mutate(String partner, MosaicConfig.Feed settings) {
      List<T> before = partners.get(partner);
      List<T> after =
          listings
              .generator()
              .mutate(before, settings.changeShare, settings.removeShare, settings.addShare);
      if (before.isEmpty() && settings.addShare > 0) {
        after = new ArrayList<>(after);
        after.add(listings.generator().next());
      }
      List<T> own = new ArrayList<>(after.size());
      for (T o : after) {
        if (listings.partnerOf().apply(o).equals(partner)) {
          own.add(o);
        } else {
          // a new listing the generator gave another partner: it becomes this partner's
          own.add(listings.relist().as(o, partner, partner + "-n" + (++addedSequence)));
        }
      }
      partners.put(partner, own);
    }

    void addOffers(String partner, long now, FeedSnapshot.Builder into) {
      for (T listing : partners.get(partner)) {
        into.addOffers(listings.toOffer().apply(listing, now));
      }
    }
  }
}
