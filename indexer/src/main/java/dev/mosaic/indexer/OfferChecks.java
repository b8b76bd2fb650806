package dev.mosaic.indexer;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.SerializedOfferDocuments;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.schema.PayloadCheck;
import dev.mosaic.format.Schema;

/**
 * The checks an offer of a partner's snapshot passes before it is published: its identity (every
 * offer) and its content (new or changed offers only; unchanged ones passed when first published).
 * Each check returns the precise reason an offer fails it, or null.
 *
 * <p>Thread safety: immutable; safe for concurrent use.
 *
 * @param schema the index schema an offer must map to a document of ({@link OfferDocuments})
 * @param limits the size and count limits of one offer
 * @param payloadCheck the payload check run after the schema's
 */
record OfferChecks(Schema schema, FeedMessageLimits limits, PayloadCheck payloadCheck) {

  /**
   * Why an offer's identity is unusable, or null when it is fine: it needs an offer id, a dedup key
   * and the snapshot's partner (or none).
   */
  static String identityProblem(OfferBytes offer, String partner, byte[] partnerUtf8) {
    if (!offer.hasOfferId()) {
      return "offer of partner '" + partner + "' has no offer_id";
    }
    if (offer.hasPartnerId() && !offer.partnerIdEquals(partnerUtf8)) {
      return "offer '"
          + partner
          + "/"
          + offer.offerId()
          + "' names partner '"
          + offer.partnerId()
          + "' in a snapshot of '"
          + partner
          + "'";
    }
    if (!offer.hasDedupKey()) {
      return "offer '" + partner + "/" + offer.offerId() + "' has no dedup_key";
    }
    return null;
  }

  /**
   * Why a new or changed offer cannot be published, or null: the limits, parsing, the schema, the
   * payload check, in that order. The schema's check maps the offer's bytes ({@link
   * #schemaProblem}), not the parsed offer, which would serialize its payload again.
   */
  String contentProblem(OfferBytes offer, String partner) {
    String tooBig = limits.checkSize(offer.length());
    if (tooBig != null) {
      return "offer '" + partner + "/" + offer.offerId() + "': " + tooBig;
    }
    Offer parsed;
    try {
      parsed = offer.parse();
    } catch (InvalidProtocolBufferException e) {
      return "offer '"
          + partner
          + "/"
          + offer.offerId()
          + "' is not a mosaic.feed.v1.Offer: "
          + e.getMessage();
    }
    String reason = limits.checkCounts(parsed);
    if (reason != null) {
      return reason;
    }
    reason = schemaProblem(schema, offer.buffer(), offer.start(), offer.length());
    if (reason != null) {
      return reason;
    }
    return payloadCheck.problem(parsed);
  }

  /**
   * Why the offer serialized in {@code bytes[start, start + length)}, which parses, does not map to
   * a document of {@code schema}, or null: {@link OfferDocuments#toDocument}'s error, found by
   * {@link SerializedOfferDocuments} from the bytes as they stand (it takes the same path for
   * anything unusual), so the payload is not serialized again.
   */
  static String schemaProblem(Schema schema, byte[] bytes, int start, int length) {
    try {
      SerializedOfferDocuments.toDocument(schema, bytes, start, length);
      return null;
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("an offer that parsed does not parse again", e);
    }
  }
}
