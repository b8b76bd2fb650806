package dev.mosaic.indexer;

import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.Offer;

/**
 * Bounds on one feed message, so that a hostile or broken feed cannot make the indexer build huge
 * documents: the serialized size of an offer, and the number of its fields (generic field values
 * plus the repeated lists of a car payload). Invalid UTF-8 in any string field is refused by the
 * protobuf parser (proto3 strings are checked on parse), so such a message is dead-lettered as "not
 * a mosaic.feed.v1.Offer: ... invalid UTF-8".
 *
 * <p>Thread safety: immutable.
 *
 * @param maxOfferBytes largest serialized offer accepted
 * @param maxFields most field values (and most entries of one repeated car list) accepted
 */
record FeedMessageLimits(int maxOfferBytes, int maxFields) {
  /** Defaults: 512 KiB per offer, 256 fields. */
  static final FeedMessageLimits DEFAULT = new FeedMessageLimits(512 * 1024, 256);

  FeedMessageLimits {
    if (maxOfferBytes < 1 || maxFields < 1) {
      throw new IllegalArgumentException(
          "feed limits must be >= 1, got maxOfferBytes "
              + maxOfferBytes
              + " and maxFields "
              + maxFields);
    }
  }

  /** Why a serialized offer of this size is refused before parsing, or null. */
  String checkSize(int bytes) {
    return bytes > maxOfferBytes
        ? "offer of " + bytes + " bytes is over the maximum of " + maxOfferBytes + " bytes"
        : null;
  }

  /**
   * Why a parsed offer is refused, or null when it is within the limits: its field values and the
   * entries of one repeated car list. The size limit is the bytes' ({@link #checkSize}), checked
   * before parsing: those are the bytes that arrived and that are published, and computing the
   * parsed offer's serialized size again walked every string of it once more (a fifth of the feed
   * loader's checks of a changed offer in a flight recording).
   */
  String checkCounts(Offer offer) {
    if (offer.getFieldsCount() > maxFields) {
      return OfferDocuments.describe(offer)
          + " has "
          + offer.getFieldsCount()
          + " field values, over the maximum of "
          + maxFields;
    }
    if (offer.hasCar()) {
      CarOffer car = offer.getCar();
      if (car.getImageUrlsCount() > maxFields || car.getOptionsCount() > maxFields) {
        return OfferDocuments.describe(offer)
            + " has "
            + Math.max(car.getImageUrlsCount(), car.getOptionsCount())
            + " entries in one car list, over the maximum of "
            + maxFields;
      }
    }
    return null;
  }
}
