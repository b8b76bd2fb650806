package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.schema.PayloadCheck;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The diff alone, without Kafka: exactly which changes and refusals a snapshot produces. */
class SnapshotDiffTest {
  private static final int PARTITIONS = 64;
  private static final OfferChecks CHECKS =
      new OfferChecks(CarsSchema.SCHEMA, FeedMessageLimits.DEFAULT, PayloadCheck.none());

  /** What a diff handed out, in order. */
  private static final class Recorded implements SnapshotDiff.Changes, SnapshotDiff.Refusals {
    final List<String> changes = new ArrayList<>();
    final List<String> reasons = new ArrayList<>();

    @Override
    public void upsert(int indexPartition, long offerHash, byte[] value) {
      changes.add("upsert " + indexPartition + " " + offerHash);
    }

    @Override
    public void tombstone(int indexPartition, long offerHash) {
      changes.add("tombstone " + indexPartition + " " + offerHash);
    }

    @Override
    public void refuse(byte[] key, byte[] value, String source, String reason) {
      reasons.add(source + ": " + reason);
    }
  }

  private static FeedSnapshot cars(int count) {
    return KafkaTestSupport.snapshot(KafkaTestSupport.cars(7, count), 1);
  }

  private static SnapshotDiff run(FeedSnapshot snapshot, PartnerSnapshotState prev, Recorded out) {
    SnapshotDiff diff =
        new SnapshotDiff(
            snapshot.getPartnerId(),
            SnapshotBytes.read(snapshot.toByteArray()),
            prev,
            PARTITIONS,
            CHECKS,
            new OfferBytes(),
            1_000L,
            out,
            out);
    diff.run();
    return diff;
  }

  private static String upsert(Offer offer) {
    return "upsert "
        + OfferKeys.indexPartition(offer.getDedupKey(), PARTITIONS)
        + " "
        + OfferKeys.hash(offer.getOfferId());
  }

  @Test
  void aFirstSnapshotUpsertsEveryOfferAndTheSameSnapshotAgainChangesNothing() {
    FeedSnapshot snapshot = cars(20);
    Recorded first = new Recorded();
    SnapshotDiff diff = run(snapshot, new PartnerSnapshotState(0), first);
    assertThat(first.changes)
        .containsExactlyElementsOf(snapshot.getOffersList().stream().map(o -> upsert(o)).toList());
    assertThat(diff.upserts()).isEqualTo(20);

    Recorded again = new Recorded();
    SnapshotDiff second = run(snapshot.toBuilder().setSnapshotId(2).build(), diff.next(), again);
    assertThat(again.changes).isEmpty();
    assertThat(second.unchanged()).isEqualTo(20);
  }

  @Test
  void aChangedOfferIsUpsertedAMovedOneTombstonedWhereItWasAndAGoneOneTombstoned() {
    FeedSnapshot before = cars(10);
    PartnerSnapshotState prev = run(before, new PartnerSnapshotState(0), new Recorded()).next();
    Offer changed = before.getOffers(0).toBuilder().setObservedAtMillis(1).build();
    changed = changed.toBuilder().setCar(changed.getCar().toBuilder().setPriceRub(777)).build();
    Offer moved = before.getOffers(1);
    String newKey = moved.getDedupKey() + "-x";
    while (OfferKeys.indexPartition(newKey, PARTITIONS)
        == OfferKeys.indexPartition(moved.getDedupKey(), PARTITIONS)) {
      newKey += "x";
    }
    Offer movedNow = moved.toBuilder().setDedupKey(newKey).build();
    List<Offer> offers = new ArrayList<>(before.getOffersList().subList(2, 9)); // offer 9 is gone
    offers.add(0, changed);
    offers.add(1, movedNow);
    FeedSnapshot after =
        before.toBuilder().clearOffers().addAllOffers(offers).setSnapshotId(2).build();

    Recorded out = new Recorded();
    SnapshotDiff diff = run(after, prev, out);

    Offer gone = before.getOffers(9);
    assertThat(out.changes)
        .containsExactly(
            upsert(changed),
            "tombstone "
                + OfferKeys.indexPartition(moved.getDedupKey(), PARTITIONS)
                + " "
                + OfferKeys.hash(moved.getOfferId()),
            upsert(movedNow),
            "tombstone "
                + OfferKeys.indexPartition(gone.getDedupKey(), PARTITIONS)
                + " "
                + OfferKeys.hash(gone.getOfferId()));
    assertThat(diff.upserts()).isEqualTo(2);
    assertThat(diff.deletes()).isEqualTo(2);
    assertThat(diff.unchanged()).isEqualTo(7);
    assertThat(out.reasons).isEmpty();
  }

  @Test
  void refusedOffersNameTheirReasonAndAreAbsentFromTheNextState() {
    FeedSnapshot base = cars(3);
    Offer noKey = base.getOffers(0).toBuilder().clearDedupKey().build();
    Offer twice = base.getOffers(1);
    FeedSnapshot snapshot =
        base.toBuilder()
            .clearOffers()
            .addOffers(noKey)
            .addOffers(twice)
            .addOffers(twice)
            .addOffers(base.getOffers(2))
            .build();

    Recorded out = new Recorded();
    SnapshotDiff diff = run(snapshot, new PartnerSnapshotState(0), out);

    String partner = snapshot.getPartnerId();
    assertThat(out.reasons)
        .containsExactly(
            "snapshot "
                + partner
                + "/1: offer '"
                + partner
                + "/"
                + noKey.getOfferId()
                + "' has no dedup_key",
            "snapshot "
                + partner
                + "/1: offer '"
                + partner
                + "/"
                + twice.getOfferId()
                + "' appears twice in the snapshot; the first one is kept");
    assertThat(out.changes).containsExactly(upsert(twice), upsert(base.getOffers(2)));
    assertThat(diff.rejected()).isEqualTo(2);
    assertThat(diff.next().size()).isEqualTo(2);
    assertThat(diff.next().contains(OfferKeys.hash(noKey.getOfferId()))).isFalse();
  }
}
