package dev.mosaic.api.schema;

import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.schema.impl.DescriptorPayloadCheck;

/**
 * Checks an offer's payload against the payload message type of an index, so that a feed loader can
 * dead-letter what the searchers could not render or the schema could not read.
 *
 * <p>Thread safety: implementations are safe from any thread.
 */
@FunctionalInterface
public interface PayloadCheck {
  /**
   * Why the offer's payload does not fit, or null when it does. The reason starts with the offer's
   * partner and id ({@link dev.mosaic.api.OfferDocuments#describe}) and names the payload type and
   * the field, so it can go to a dead-letter record as is.
   */
  String problem(Offer offer);

  /** Accepts every payload. */
  static PayloadCheck none() {
    return offer -> null;
  }

  /**
   * The strict check against the index's descriptor ({@link DescriptorPayloadCheck}): the payload
   * is of the schema's payload type, parses as it, carries no field its descriptor does not declare
   * (nor a declared one in another wire type), has its required fields, and yields the schema's
   * indexed values along their paths.
   */
  static PayloadCheck against(IndexSchema index) {
    return new DescriptorPayloadCheck(index);
  }
}
