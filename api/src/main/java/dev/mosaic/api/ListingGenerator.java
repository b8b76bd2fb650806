package dev.mosaic.api;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * The part the offer generators share: a seeded random source, partners named {@code
 * partner-001}... picked by a Zipf-like law, offer ids {@code <partner>-<sequence>}, and
 * duplicates: with probability {@code duplicateShare} the next offer re-lists one of the 512 most
 * recent new listings under another partner.
 *
 * <p>Thread safety: not thread safe (it holds the random state); use one per thread.
 *
 * @param <T> the offer message
 */
public abstract class ListingGenerator<T> {
  /** The one random source: every draw comes from it, so a seed fixes the whole sequence. */
  protected final SplittableRandom random;

  private final double duplicateShare;
  private final String[] partners;
  private final long[] partnerSequences;
  private final Zipf partnerPick;
  private final List<T> recent = new ArrayList<>();
  private long generated;
  private long listings;

  /**
   * A generator of that seed, partner count (1..999) and duplicate share ([0, 1]).
   *
   * @throws IllegalArgumentException if partners or the share are out of range
   */
  protected ListingGenerator(long seed, int partners, double duplicateShare) {
    if (partners < 1 || partners > 999) {
      throw new IllegalArgumentException("partners must be in [1, 999], got " + partners);
    }
    FeedMutation.checkShare("duplicateShare", duplicateShare);
    this.random = new SplittableRandom(seed);
    this.duplicateShare = duplicateShare;
    this.partners = new String[partners];
    for (int i = 0; i < partners; i++) {
      this.partners[i] = String.format("partner-%03d", i + 1);
    }
    this.partnerSequences = new long[partners];
    this.partnerPick = new Zipf(partners, 0.8);
  }

  /** Number of offers generated so far. */
  public long generated() {
    return generated;
  }

  /** The next offer. */
  public T next() {
    T offer;
    int recentCount = (int) Math.min(listings, 512);
    if (recentCount > 0 && partners.length > 1 && random.nextDouble() < duplicateShare) {
      offer = duplicateOf(recent.get(random.nextInt(recentCount)));
    } else {
      offer = newListing();
      if (recent.size() < 512) {
        recent.add(offer);
      } else {
        recent.set((int) (listings % 512), offer);
      }
      listings++;
    }
    generated++;
    return offer;
  }

  /** The next {@code count} offers. */
  public List<T> next(int count) {
    List<T> offers = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      offers.add(next());
    }
    return offers;
  }

  /**
   * A later version of a snapshot, as a feed would show it (see {@link FeedMutation}): removed,
   * {@link #changed} (same offer id and dedup key) or kept offers, then new ones.
   */
  public List<T> mutate(List<T> snapshot, double changeShare, double removeShare, double addShare) {
    return FeedMutation.mutate(
        snapshot, random, changeShare, removeShare, addShare, this::changed, this::next);
  }

  /** A new listing of a new item (a new dedup key). */
  protected abstract T newListing();

  /** The same item listed again under {@link #otherPartner}, with its own offer id. */
  protected abstract T duplicateOf(T original);

  /** A later version of an offer: same offer id and dedup key. */
  protected abstract T changed(T offer);

  /** A partner index, drawn by popularity. */
  protected int pickPartner() {
    return partnerPick.sample(random);
  }

  /** A partner index, drawn by popularity, other than the partner of that name. */
  protected int otherPartner(String partnerId) {
    int original = Integer.parseInt(partnerId.substring(8)) - 1;
    int partner = partnerPick.sample(random);
    if (partner == original) {
      partner = (partner + 1 + random.nextInt(partners.length - 1)) % partners.length;
    }
    return partner;
  }

  /** The name of a partner index: {@code partner-001}... */
  protected String partnerId(int partner) {
    return partners[partner];
  }

  /** The partner's next offer id: {@code <partner>-<sequence>}. */
  protected String nextOfferId(int partner) {
    return partners[partner] + "-" + (++partnerSequences[partner]);
  }
}
