package dev.mosaic.api.schema;

import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.format.Document;
import dev.mosaic.format.Schema;

/**
 * Maps a feed {@link Offer} to the partition {@link Document} of one schema.
 *
 * <p>Thread safety: implementations are safe from any thread.
 */
public interface OfferDocumentMapper {
  /**
   * The document of an offer.
   *
   * @throws IllegalArgumentException when the offer does not fit the schema, the message starting
   *     with the offer's partner and id (see {@link OfferDocuments#describe}) so it can go to a
   *     dead-letter record as is
   */
  Document toDocument(Offer offer);

  /** The mapper of {@link OfferDocuments}: indexed values from the offer's {@code fields}. */
  static OfferDocumentMapper ofFieldValues(Schema schema) {
    return offer -> OfferDocuments.toDocument(schema, offer);
  }
}
