package dev.mosaic.indexer;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.format.Schema;

/**
 * Decides whether an offers-topic value can be indexed in the partition its key names, and if not,
 * says precisely why (the dead-letter reason). Stateless and thread safe.
 */
final class OfferValidator {
  private final FeedMessageLimits limits;
  private final int partitions;

  OfferValidator(FeedMessageLimits limits, int partitions) {
    this.limits = limits;
    this.partitions = partitions;
  }

  /** Why {@code value} is bad for index partition {@code p} under {@code schema}, or null. */
  String check(byte[] value, int p, Schema schema) {
    String tooLarge = limits.checkSize(value.length);
    if (tooLarge != null) {
      return tooLarge;
    }
    Offer offer;
    try {
      offer = Offer.parseFrom(value);
    } catch (InvalidProtocolBufferException e) {
      return "value is not a mosaic.feed.v1.Offer: " + e.getMessage();
    }
    String overLimits = limits.checkCounts(offer);
    if (overLimits != null) {
      return overLimits;
    }
    String id = "offer '" + offer.getPartnerId() + "/" + offer.getOfferId() + "'";
    if (offer.getDedupKey().isEmpty()) {
      return id + " has no dedup_key";
    }
    int expected = OfferKeys.indexPartition(offer.getDedupKey(), partitions);
    if (expected != p) {
      return id + " is keyed to index partition " + p + " but its dedup key hashes to " + expected;
    }
    return OfferChecks.schemaProblem(schema, value, 0, value.length);
  }

  /** Why a record key cannot be indexed on Kafka partition {@code k} of {@code kafkaPartitions}. */
  String checkPlacement(int p, int k, int kafkaPartitions) {
    if (p >= partitions) {
      return "key names index partition " + p + " but there are " + partitions;
    }
    if (p % kafkaPartitions != k) {
      return "index partition "
          + p
          + " belongs on offers partition "
          + (p % kafkaPartitions)
          + ", found on "
          + k;
    }
    return null;
  }
}
