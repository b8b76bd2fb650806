package dev.mosaic.api;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.feed.FeedSnapshot;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * What every {@link ListingGenerator} must do, whatever the vertical: a seed fixes the sequence,
 * duplicates are the same listing under another partner, {@code mutate} changes, removes and adds
 * the requested shares, and snapshots group offers by partner. Each vertical's test extends this
 * and adds its own ranges and skews.
 *
 * @param <T> the offer message
 */
public abstract class BaseListingGeneratorTestCase<T> {
  /** Offers drawn for the share checks; large enough for the tolerances below. */
  protected static final int N = 20_000;

  /** A generator with the vertical's defaults, seeded. */
  protected abstract ListingGenerator<T> generator(long seed);

  /** A generator with that duplicate share. */
  protected abstract ListingGenerator<T> generatorWithDuplicateShare(long seed, double share);

  /** A generator over that many partners. */
  protected abstract ListingGenerator<T> generatorWithPartners(long seed, int partners);

  protected abstract String offerId(T offer);

  protected abstract String dedupKey(T offer);

  protected abstract String partnerId(T offer);

  /** What two listings of the same item by two partners must share (make, area, floor...). */
  protected abstract List<Object> sameItemAttributes(T offer);

  /** One full snapshot per partner, as the vertical's offer codec groups them. */
  protected abstract List<FeedSnapshot> snapshotsByPartner(
      List<T> offers, long snapshotId, long createdAtMillis);

  /** The lowest share of offers {@code mutate(.., 0.1, ..)} may leave changed (0.1 asked). */
  protected double lowestChangedShare() {
    return 0.08;
  }

  @Test
  void sameSeedGivesTheSameOffersAndAnotherSeedOthers() {
    assertThat(generator(42).next(2_000))
        .isEqualTo(generator(42).next(2_000))
        .isNotEqualTo(generator(43).next(2_000));
  }

  @Test
  void aShareOfOffersAreTheSameItemListedByAnotherPartner() {
    List<T> offers = generatorWithDuplicateShare(9, 0.2).next(N);
    Map<String, List<T>> byKey = offers.stream().collect(Collectors.groupingBy(this::dedupKey));

    assertThat((double) (offers.size() - byKey.size()) / N).isBetween(0.17, 0.23);
    for (List<T> same : byKey.values()) {
      List<Object> first = sameItemAttributes(same.getFirst());
      assertThat(same).allSatisfy(o -> assertThat(sameItemAttributes(o)).isEqualTo(first));
    }
    assertThat(byKey.values())
        .filteredOn(l -> l.size() == 2)
        .allSatisfy(l -> assertThat(partnerId(l.get(0))).isNotEqualTo(partnerId(l.get(1))));
    Set<String> ids = new HashSet<>();
    offers.forEach(o -> assertThat(ids.add(offerId(o))).as(offerId(o)).isTrue());
  }

  @Test
  void mutateChangesRemovesAndAddsTheRequestedShares() {
    ListingGenerator<T> generator = generator(11);
    List<T> before = generator.next(N);
    List<T> after = generator.mutate(before, 0.1, 0.05, 0.08);

    Map<String, T> old = new HashMap<>();
    before.forEach(o -> old.put(offerId(o), o));
    List<T> kept = after.stream().filter(o -> old.containsKey(offerId(o))).toList();
    long changed = kept.stream().filter(o -> !old.get(offerId(o)).equals(o)).count();

    assertThat((double) (N - kept.size()) / N).isBetween(0.04, 0.06);
    assertThat((double) changed / N).isBetween(lowestChangedShare(), 0.12);
    assertThat(after.size() - kept.size()).isEqualTo(Math.round(0.08 * N));
    assertThat(kept)
        .allSatisfy(o -> assertThat(dedupKey(o)).isEqualTo(dedupKey(old.get(offerId(o)))));
  }

  @Test
  void snapshotsGroupOffersByPartnerInPartnerOrder() {
    List<T> offers = generatorWithPartners(3, 4).next(400);
    List<FeedSnapshot> snapshots = snapshotsByPartner(offers, 12, 1000L);

    assertThat(snapshots)
        .extracting(FeedSnapshot::getPartnerId)
        .containsExactly("partner-001", "partner-002", "partner-003", "partner-004");
    assertThat(snapshots.stream().flatMap(s -> s.getOffersList().stream()))
        .extracting(o -> o.getOfferId())
        .containsExactlyInAnyOrderElementsOf(offers.stream().map(this::offerId).toList());
    assertThat(snapshots)
        .allSatisfy(
            s -> {
              assertThat(s.getSnapshotId()).isEqualTo(12);
              assertThat(s.getOffersList())
                  .allSatisfy(
                      o -> {
                        assertThat(o.getPartnerId()).isEqualTo(s.getPartnerId());
                        assertThat(o.getObservedAtMillis()).isEqualTo(1000L);
                      });
            });
  }
}
