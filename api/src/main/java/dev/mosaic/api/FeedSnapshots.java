package dev.mosaic.api;

import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Groups feed offers into full snapshots, one per partner.
 *
 * <p>Thread safety: stateless, safe from any thread.
 */
public final class FeedSnapshots {
  private FeedSnapshots() {}

  /**
   * One snapshot per partner of the offers (ordered by partner id; offers keep their relative
   * order), each with that snapshot id and creation time.
   */
  public static List<FeedSnapshot> byPartner(
      List<Offer> offers, long snapshotId, long createdAtMillis) {
    Map<String, FeedSnapshot.Builder> byPartner = new TreeMap<>();
    for (Offer offer : offers) {
      byPartner
          .computeIfAbsent(
              offer.getPartnerId(),
              p ->
                  FeedSnapshot.newBuilder()
                      .setPartnerId(p)
                      .setSnapshotId(snapshotId)
                      .setCreatedAtMillis(createdAtMillis))
          .addOffers(offer);
    }
    return byPartner.values().stream().map(FeedSnapshot.Builder::build).toList();
  }
}
