package dev.mosaic.indexer;

import com.dynatrace.hash4j.hashing.HashStream64;
import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.api.feed.Offer;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One serialized {@link Offer} read in place: where its partner id, offer id and dedup key sit, its
 * observation time, and its <b>fingerprint</b>, without building the message.
 *
 * <p>The fingerprint is the {@link ContentHash} of the offer's wire bytes with every {@code
 * partner_id} and {@code observed_at_millis} field left out (the partner is known from the snapshot
 * and the record key; a new observation time alone is no change): the bytes between left-out fields
 * are streamed into one hash, as if concatenated. {@link #publishedValue} only appends fields that
 * are left out, so the value published on the offers topic has the same fingerprint as the offer in
 * the snapshot: a state rebuilt from the topic compares equal to the snapshot it came from. In the
 * usual field order ({@code partner_id} first, {@code observed_at_millis} last) the hashed bytes
 * are one range, hashed in one call without copying; the stream (which buffers) is only used when
 * they are in several pieces. Both give the same hash.
 *
 * <p>Scalar fields that occur more than once take the last occurrence, as protobuf parsers do.
 *
 * <p>Thread safety: not thread safe; a reusable cursor, one per publishing thread.
 */
final class OfferBytes {
  private static final int PARTNER_ID = Offer.PARTNER_ID_FIELD_NUMBER;
  private static final int OFFER_ID = Offer.OFFER_ID_FIELD_NUMBER;
  private static final int DEDUP_KEY = Offer.DEDUP_KEY_FIELD_NUMBER;
  private static final int OBSERVED_AT = Offer.OBSERVED_AT_MILLIS_FIELD_NUMBER;

  private final WireReader in = new WireReader();
  private final HashStream64 hash = ContentHash.stream();
  private byte[] buffer;
  private int start;
  private int length;
  private int partnerStart;
  private int partnerLength;
  private int offerIdStart;
  private int offerIdLength;
  private int dedupKeyStart;
  private int dedupKeyLength;
  private long observedAtMillis;
  private long fingerprint;
  private int pieces;
  private int firstPieceStart;
  private int firstPieceLength;

  /**
   * Reads the offer in {@code buffer[start, start + length)}.
   *
   * @return this
   * @throws WireReader.MalformedWireException naming the position when the bytes are not an offer
   */
  OfferBytes read(byte[] buffer, int start, int length) {
    this.buffer = buffer;
    this.start = start;
    this.length = length;
    partnerStart = offerIdStart = dedupKeyStart = start;
    partnerLength = offerIdLength = dedupKeyLength = 0;
    observedAtMillis = 0;
    pieces = 0;
    int segment = start;
    in.reset(buffer, start, length);
    while (!in.atEnd()) {
      int fieldStart = in.position();
      int tag = in.readTag();
      int field = tag >>> 3;
      boolean delimited = (tag & 7) == WireReader.LENGTH_DELIMITED;
      if (field == PARTNER_ID || field == OBSERVED_AT) {
        if (field == PARTNER_ID && delimited) {
          partnerLength = in.readLength();
          partnerStart = in.position();
          in.skipBytes(partnerLength);
        } else if (field == OBSERVED_AT && (tag & 7) == WireReader.VARINT) {
          observedAtMillis = in.readVarint();
        } else {
          in.skipValue(tag);
        }
        hashPiece(segment, fieldStart - segment);
        segment = in.position();
      } else if (field == OFFER_ID && delimited) {
        offerIdLength = in.readLength();
        offerIdStart = in.position();
        in.skipBytes(offerIdLength);
      } else if (field == DEDUP_KEY && delimited) {
        dedupKeyLength = in.readLength();
        dedupKeyStart = in.position();
        in.skipBytes(dedupKeyLength);
      } else {
        in.skipValue(tag);
      }
    }
    hashPiece(segment, start + length - segment);
    fingerprint =
        switch (pieces) {
          case 0 -> ContentHash.of(buffer, start, 0);
          case 1 -> ContentHash.of(buffer, firstPieceStart, firstPieceLength);
          default -> hash.getAsLong();
        };
    return this;
  }

  /** Forgets the array last read, so that an idle cursor does not keep it reachable. */
  void release() {
    buffer = null;
  }

  /** Adds a non-empty range of the hashed bytes: remembered while it is the only one. */
  private void hashPiece(int from, int count) {
    if (count <= 0) {
      return;
    }
    if (pieces == 0) {
      firstPieceStart = from;
      firstPieceLength = count;
    } else {
      if (pieces == 1) {
        hash.reset();
        hash.putBytes(buffer, firstPieceStart, firstPieceLength);
      }
      hash.putBytes(buffer, from, count);
    }
    pieces++;
  }

  /** The array the offer was read from; its bytes are {@code [start(), start() + length())}. */
  byte[] buffer() {
    return buffer;
  }

  int start() {
    return start;
  }

  int length() {
    return length;
  }

  long fingerprint() {
    return fingerprint;
  }

  long observedAtMillis() {
    return observedAtMillis;
  }

  boolean hasOfferId() {
    return offerIdLength > 0;
  }

  boolean hasDedupKey() {
    return dedupKeyLength > 0;
  }

  boolean hasPartnerId() {
    return partnerLength > 0;
  }

  /** Whether the offer's partner id is exactly these UTF-8 bytes. */
  boolean partnerIdEquals(byte[] partnerUtf8) {
    return partnerIdEquals(partnerUtf8, 0, partnerUtf8.length);
  }

  /**
   * Whether the offer's partner id is exactly the UTF-8 bytes {@code other[from, from + count)}.
   */
  boolean partnerIdEquals(byte[] other, int from, int count) {
    return Arrays.equals(
        buffer, partnerStart, partnerStart + partnerLength, other, from, from + count);
  }

  /** Where the partner id's bytes start in the buffer read. */
  int partnerIdStart() {
    return partnerStart;
  }

  /** How many bytes the partner id has in the buffer read. */
  int partnerIdLength() {
    return partnerLength;
  }

  String partnerId() {
    return new String(buffer, partnerStart, partnerLength, StandardCharsets.UTF_8);
  }

  String offerId() {
    return new String(buffer, offerIdStart, offerIdLength, StandardCharsets.UTF_8);
  }

  /** {@link OfferKeys#hash(String)} of the offer id, from its bytes. */
  long offerIdHash() {
    return OfferKeys.hash(buffer, offerIdStart, offerIdLength);
  }

  /** {@link OfferKeys#indexPartition} of the dedup key, from its bytes. */
  int indexPartition(int partitions) {
    return OfferKeys.indexPartition(buffer, dedupKeyStart, dedupKeyLength, partitions);
  }

  /** {@link OfferKeys#hash(byte[], int, int)} of the dedup key's bytes. */
  long dedupKeyHash() {
    return OfferKeys.hash(buffer, dedupKeyStart, dedupKeyLength);
  }

  byte[] offerIdBytes() {
    return Arrays.copyOfRange(buffer, offerIdStart, offerIdStart + offerIdLength);
  }

  /** A copy of the offer's bytes as they came. */
  byte[] copy() {
    return Arrays.copyOfRange(buffer, start, start + length);
  }

  /** Parses the whole offer (for the checks only new or changed offers go through). */
  Offer parse() throws InvalidProtocolBufferException {
    return Offer.parser().parseFrom(buffer, start, length);
  }

  /**
   * The bytes to publish: the offer as it came, with {@code partner_id} appended when it has none
   * and {@code observed_at_millis = defaultObservedAt} appended when it has none (or 0). Protobuf
   * parsers take the last occurrence of a field, and the fingerprint leaves both fields out, so the
   * published value parses to the completed offer and has the offer's fingerprint.
   */
  byte[] publishedValue(byte[] partnerUtf8, long defaultObservedAt) {
    int extra = 0;
    boolean addPartner = !hasPartnerId();
    boolean addObserved = observedAtMillis == 0;
    if (addPartner) {
      extra += CodedOutputStream.computeByteArraySize(PARTNER_ID, partnerUtf8);
    }
    if (addObserved) {
      extra += CodedOutputStream.computeInt64Size(OBSERVED_AT, defaultObservedAt);
    }
    byte[] out = Arrays.copyOfRange(buffer, start, start + length + extra);
    if (extra == 0) {
      return out;
    }
    CodedOutputStream tail = CodedOutputStream.newInstance(out, length, extra);
    try {
      if (addPartner) {
        tail.writeByteArray(PARTNER_ID, partnerUtf8);
      }
      if (addObserved) {
        tail.writeInt64(OBSERVED_AT, defaultObservedAt);
      }
      tail.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new IllegalStateException("cannot complete the offer's bytes", e);
    }
    return out;
  }
}
