package dev.mosaic.api.realty;

import dev.mosaic.api.FeedSnapshots;
import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.FieldValue;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.api.schema.BuiltInSchemas;
import dev.mosaic.format.Document;
import java.util.List;
import java.util.Objects;

/**
 * Conversions of {@link RealtyOffer}s into feed messages and partition documents of the realty
 * schema ({@link BuiltInSchemas#realty()}, from {@value BuiltInSchemas#REALTY_RESOURCE}).
 *
 * <p>Thread safety: stateless, safe from any thread.
 */
public final class RealtyOffers {
  private RealtyOffers() {}

  /** The indexed values of a realty offer, as the realty schema file reads them from it. */
  public static List<FieldValue> fieldValues(RealtyOffer realty) {
    return BuiltInSchemas.realty().fieldValues(Objects.requireNonNull(realty, "realty"));
  }

  /**
   * The feed offer of a realty offer: partner, offer id and dedup key copied from it, its indexed
   * {@link #fieldValues}, and the realty offer itself as payload.
   */
  public static Offer toOffer(RealtyOffer realty, long observedAtMillis) {
    return Offer.newBuilder()
        .setPartnerId(realty.getPartnerId())
        .setOfferId(realty.getOfferId())
        .setDedupKey(realty.getDedupKey())
        .addAllFields(fieldValues(realty))
        .setRealty(realty)
        .setObservedAtMillis(observedAtMillis)
        .build();
  }

  /** The partition document of a realty offer (realty schema, payload the realty offer). */
  public static Document toDocument(RealtyOffer realty) {
    return OfferDocuments.toDocument(BuiltInSchemas.realty().schema(), toOffer(realty, 0L));
  }

  /** One full feed snapshot per partner, each offer observed at {@code createdAtMillis}. */
  public static List<FeedSnapshot> snapshotsByPartner(
      List<RealtyOffer> offers, long snapshotId, long createdAtMillis) {
    return FeedSnapshots.byPartner(
        offers.stream().map(o -> toOffer(o, createdAtMillis)).toList(),
        snapshotId,
        createdAtMillis);
  }
}
