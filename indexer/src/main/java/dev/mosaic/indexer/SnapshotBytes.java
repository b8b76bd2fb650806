package dev.mosaic.indexer;

import dev.mosaic.api.feed.FeedSnapshot;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A serialized {@link FeedSnapshot} read field by field, without parsing its offers: the partner
 * id, the snapshot id, where each offer's bytes sit, and each offer's {@link OfferDigests digest}
 * for the diff, taken with {@link OfferBytes} as the walk passes the offer (so the bytes are walked
 * once, in order, rather than once to find the offers and again to read them).
 *
 * <p>Thread safety: immutable after {@link #read} (the byte array is shared, never written).
 */
final class SnapshotBytes {
  private static final int PARTNER_ID = FeedSnapshot.PARTNER_ID_FIELD_NUMBER;
  private static final int SNAPSHOT_ID = FeedSnapshot.SNAPSHOT_ID_FIELD_NUMBER;
  private static final int OFFERS = FeedSnapshot.OFFERS_FIELD_NUMBER;

  private final byte[] bytes;
  private final String partnerId;
  private final long snapshotId;
  private final int[] offerStarts;
  private final int[] offerLengths;
  private final int offerCount;
  private final OfferDigests digests;

  private SnapshotBytes(
      byte[] bytes,
      String partnerId,
      long snapshotId,
      int[] offerStarts,
      int[] offerLengths,
      int offerCount,
      OfferDigests digests) {
    this.bytes = bytes;
    this.partnerId = partnerId;
    this.snapshotId = snapshotId;
    this.offerStarts = offerStarts;
    this.offerLengths = offerLengths;
    this.offerCount = offerCount;
    this.digests = digests;
  }

  /**
   * Reads the top-level fields of a serialized snapshot (later occurrences of a scalar field win,
   * as in protobuf).
   *
   * @throws IllegalArgumentException naming the byte position when the bytes are not a snapshot
   */
  static SnapshotBytes read(byte[] bytes) {
    WireReader in = new WireReader().reset(bytes, 0, bytes.length);
    String partner = "";
    long snapshotId = 0;
    int[] starts = new int[64];
    int[] lengths = new int[64];
    int n = 0;
    OfferBytes offer = new OfferBytes();
    OfferDigests digests = new OfferDigests(bytes);
    try {
      while (!in.atEnd()) {
        int tag = in.readTag();
        int field = tag >>> 3;
        int type = tag & 7;
        if (field == OFFERS && type == WireReader.LENGTH_DELIMITED) {
          int length = in.readLength();
          if (n == starts.length) {
            starts = Arrays.copyOf(starts, n * 2);
            lengths = Arrays.copyOf(lengths, n * 2);
          }
          starts[n] = in.position();
          lengths[n] = length;
          n++;
          digests.add(offer, in.position(), length);
          in.skipBytes(length);
        } else if (field == PARTNER_ID && type == WireReader.LENGTH_DELIMITED) {
          int length = in.readLength();
          partner = new String(bytes, in.position(), length, StandardCharsets.UTF_8);
          digests.snapshotPartner(in.position(), length);
          in.skipBytes(length);
        } else if (field == SNAPSHOT_ID && type == WireReader.VARINT) {
          snapshotId = in.readVarint();
        } else {
          in.skipValue(tag);
        }
      }
    } catch (WireReader.MalformedWireException e) {
      throw new IllegalArgumentException("not a mosaic.feed.v1.FeedSnapshot: " + e.getMessage(), e);
    }
    return new SnapshotBytes(bytes, partner, snapshotId, starts, lengths, n, digests);
  }

  byte[] bytes() {
    return bytes;
  }

  String partnerId() {
    return partnerId;
  }

  long snapshotId() {
    return snapshotId;
  }

  int offerCount() {
    return offerCount;
  }

  /** Where offer {@code i}'s serialized bytes start in {@link #bytes()}. */
  int offerStart(int i) {
    return offerStarts[i];
  }

  /** How long offer {@code i}'s serialized bytes are. */
  int offerLength(int i) {
    return offerLengths[i];
  }

  /** The offers' digests, offer {@code i} at index {@code i}. */
  OfferDigests digests() {
    return digests;
  }
}
