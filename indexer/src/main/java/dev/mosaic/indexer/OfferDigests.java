package dev.mosaic.indexer;

import com.dynatrace.hash4j.hashing.HashStream64;
import java.util.Arrays;

/**
 * What the loader's diff needs of each offer of a snapshot, taken while {@link SnapshotBytes#read}
 * walks the snapshot's bytes anyway: whether the offer could be read, whether it has an offer id, a
 * dedup key and a partner id, and the hashes of its offer id, dedup key and content ({@link
 * OfferBytes#fingerprint()}). The bytes are walked once, in order, so the diff of an unchanged
 * offer never goes back to them; it reads an offer again only when it is new, changed or refused.
 *
 * <p>An offer's partner id is compared to a <b>reference</b>: the first non-empty partner id seen
 * in the snapshot, its own {@code partner_id} field or an offer's. In the usual field order that is
 * the snapshot's partner; when it is not ({@link #referenceEquals} false), the digests cannot say
 * that an offer names the snapshot's partner and the diff reads such offers again to check.
 *
 * <p>Thread safety: not thread safe while filled; filled by the thread reading the snapshot, then
 * only read (published with the immutable {@link SnapshotBytes}).
 */
final class OfferDigests {
  private static final int READ = 1;
  private static final int HAS_OFFER_ID = 1 << 1;
  private static final int HAS_DEDUP_KEY = 1 << 2;
  private static final int HAS_PARTNER_ID = 1 << 3;
  private static final int PARTNER_IS_REFERENCE = 1 << 4;

  private final byte[] bytes;
  private long[] fingerprints = new long[64];
  private long[] offerIdHashes = new long[64];
  private long[] dedupKeyHashes = new long[64];
  private byte[] flags = new byte[64];
  private int count;
  private int referenceStart;
  private int referenceLength;
  private long hash;
  private boolean hashed;

  /** Digests of offers within {@code bytes}, the whole serialized snapshot. */
  OfferDigests(byte[] bytes) {
    this.bytes = bytes;
  }

  /** Takes the snapshot's own {@code partner_id} as the reference when there is none yet. */
  void snapshotPartner(int start, int length) {
    if (referenceLength == 0) {
      referenceStart = start;
      referenceLength = length;
    }
  }

  /**
   * Reads the offer at {@code bytes[start, start + length)} with {@code reader} and appends its
   * digest; an offer that is not valid wire format is appended as unread.
   */
  void add(OfferBytes reader, int start, int length) {
    grow();
    int i = count++;
    try {
      reader.read(bytes, start, length);
    } catch (WireReader.MalformedWireException e) {
      flags[i] = 0; // the diff reads it again and refuses it with this error
      fingerprints[i] = ContentHash.of(bytes, start, length); // for hash() alone
      return;
    }
    int f = READ;
    if (reader.hasOfferId()) {
      f |= HAS_OFFER_ID;
      offerIdHashes[i] = reader.offerIdHash();
    }
    if (reader.hasDedupKey()) {
      f |= HAS_DEDUP_KEY;
      dedupKeyHashes[i] = reader.dedupKeyHash();
    }
    if (reader.hasPartnerId()) {
      f |= HAS_PARTNER_ID;
      if (referenceLength == 0) {
        referenceStart = reader.partnerIdStart();
        referenceLength = reader.partnerIdLength();
      }
      if (reader.partnerIdEquals(bytes, referenceStart, referenceLength)) {
        f |= PARTNER_IS_REFERENCE;
      }
    }
    fingerprints[i] = reader.fingerprint();
    flags[i] = (byte) f;
  }

  private void grow() {
    if (count == flags.length) {
      int n = count * 2;
      fingerprints = Arrays.copyOf(fingerprints, n);
      offerIdHashes = Arrays.copyOf(offerIdHashes, n);
      dedupKeyHashes = Arrays.copyOf(dedupKeyHashes, n);
      flags = Arrays.copyOf(flags, n);
    }
  }

  int count() {
    return count;
  }

  /** Whether the reference partner id is exactly these UTF-8 bytes (false when there is none). */
  boolean referenceEquals(byte[] partnerUtf8) {
    return referenceLength > 0
        && Arrays.equals(
            bytes,
            referenceStart,
            referenceStart + referenceLength,
            partnerUtf8,
            0,
            partnerUtf8.length);
  }

  /**
   * Whether offer {@code i} is known to pass the identity checks: it was read, has an offer id and
   * a dedup key, and names no partner or the reference, which is the snapshot's partner when {@code
   * referenceIsPartner}. False says only that the digest cannot tell.
   */
  boolean identityPasses(int i, boolean referenceIsPartner) {
    int f = flags[i];
    int needed = READ | HAS_OFFER_ID | HAS_DEDUP_KEY;
    if ((f & needed) != needed) {
      return false;
    }
    return (f & HAS_PARTNER_ID) == 0 || (referenceIsPartner && (f & PARTNER_IS_REFERENCE) != 0);
  }

  /**
   * A hash of everything the diff decides by: every offer's flags, id and dedup key hashes and
   * fingerprint (for an offer that is not valid wire format, the hash of its bytes), in order, and
   * the reference partner id. Two snapshots of one partner with equal hashes get the same diff
   * against a state, so a snapshot whose hash is that of the snapshot a state was made from changes
   * nothing (but with probability about 2^-64).
   */
  long hash() {
    if (hashed) {
      return hash;
    }
    HashStream64 h = ContentHash.stream().reset();
    h.putBytes(bytes, referenceStart, referenceLength).putInt(referenceLength);
    for (int i = 0; i < count; i++) {
      h.putByte(flags[i])
          .putLong(fingerprints[i])
          .putLong(offerIdHashes[i])
          .putLong(dedupKeyHashes[i]);
    }
    hash = h.putInt(count).getAsLong();
    hashed = true;
    return hash;
  }

  /** {@link OfferBytes#fingerprint()} of offer {@code i}. */
  long fingerprint(int i) {
    return fingerprints[i];
  }

  /** {@link OfferBytes#offerIdHash()} of offer {@code i}. */
  long offerIdHash(int i) {
    return offerIdHashes[i];
  }

  /** {@link OfferBytes#dedupKeyHash()} of offer {@code i}. */
  long dedupKeyHash(int i) {
    return dedupKeyHashes[i];
  }
}
