package dev.mosaic.indexer;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * One partner snapshot's diff against the partner's previous state: finds the upserts (new or
 * changed offers) and tombstones (offers that disappeared, old keys of offers that moved to another
 * index partition), hands them to {@link Changes} as it finds them, refuses offers that fail {@link
 * OfferChecks} through {@link Refusals}, and builds the next state.
 *
 * <p>Each offer is compared by its digest ({@link OfferDigests}: offer id and dedup key hashes, a
 * fingerprint), taken when the snapshot was read; an unchanged offer's bytes are never read again.
 * An offer is read again only when it is new, changed or a duplicate, or when its digest cannot
 * vouch for its identity (it is then checked and refused with the precise reason).
 *
 * <p>Thread safety: not thread safe; one instance per snapshot, confined to the publishing thread.
 * The {@link OfferBytes} reader given is used by this diff alone while it runs.
 */
final class SnapshotDiff {

  /** Where a diff's changes go, in the order it finds them. */
  interface Changes {
    /** A new or changed offer: {@code value} is what to publish under its key. */
    void upsert(int indexPartition, long offerHash, byte[] value);

    /** An offer that is no longer in {@code indexPartition}. */
    void tombstone(int indexPartition, long offerHash);
  }

  /** Where refused offers go (the dead-letter topic). */
  interface Refusals {
    /**
     * @param key the offer id's bytes, or null when it has none
     * @param value the offer's bytes
     * @param source the snapshot, as {@code snapshot <partner>/<snapshot id>}
     * @param reason why it was refused, naming the offer
     */
    void refuse(byte[] key, byte[] value, String source, String reason);
  }

  private final String partner;
  private final byte[] partnerUtf8;
  private final SnapshotBytes snapshot;
  private final PartnerSnapshotState prev;
  private final PartnerSnapshotState next;
  private final int partitions;
  private final OfferChecks checks;
  private final OfferBytes reader;
  private final long nowMillis;
  private final Changes changes;
  private final Refusals refusals;
  private final String source;
  private int upserts;
  private int deletes;
  private int unchanged;
  private int rejected;

  /**
   * Offers of the previous state that are in the next one: when that is all of them, nothing
   * disappeared and the previous state need not be walked for tombstones.
   */
  private int previousKept;

  /**
   * @param partitions the index partition count (an offer's partition is its dedup key hash's)
   * @param reader the reader offers are read again with
   * @param nowMillis the observation time stamped on offers that lack one
   */
  SnapshotDiff(
      String partner,
      SnapshotBytes snapshot,
      PartnerSnapshotState prev,
      int partitions,
      OfferChecks checks,
      OfferBytes reader,
      long nowMillis,
      Changes changes,
      Refusals refusals) {
    this.partner = partner;
    this.partnerUtf8 = partner.getBytes(StandardCharsets.UTF_8);
    this.snapshot = snapshot;
    this.prev = prev;
    this.next = new PartnerSnapshotState(snapshot.offerCount());
    next.madeFrom(snapshot.digests().hash());
    this.partitions = partitions;
    this.checks = checks;
    this.reader = reader;
    this.nowMillis = nowMillis;
    this.changes = changes;
    this.refusals = refusals;
    this.source = "snapshot " + partner + "/" + snapshot.snapshotId();
  }

  /** Diffs every offer, then finds the previous ones that disappeared; call once. */
  void run() {
    OfferDigests digests = snapshot.digests();
    boolean referenceIsPartner = digests.referenceEquals(partnerUtf8);
    for (int i = 0; i < snapshot.offerCount(); i++) {
      if (digests.identityPasses(i, referenceIsPartner)) {
        diffOne(
            i,
            digests.offerIdHash(i),
            digests.fingerprint(i),
            OfferKeys.indexPartitionOfHash(digests.dedupKeyHash(i), partitions));
      } else {
        checkThenDiff(i);
      }
    }
    if (previousKept < prev.size()) {
      prev.forEach(
          (offerHash, entry) -> {
            if (!next.contains(offerHash)) {
              changes.tombstone(PartnerSnapshotState.partitionOf(entry), offerHash);
              deletes++;
            }
          });
    }
  }

  /** The partner's state after this snapshot: the base of its next diff once published. */
  PartnerSnapshotState next() {
    return next;
  }

  /** The snapshot, as {@code snapshot <partner>/<snapshot id>}. */
  String source() {
    return source;
  }

  /** New or changed offers handed to {@link Changes#upsert}. */
  int upserts() {
    return upserts;
  }

  /** Tombstones handed to {@link Changes#tombstone}. */
  int deletes() {
    return deletes;
  }

  /** Offers identical to the previous state's. */
  int unchanged() {
    return unchanged;
  }

  /** Offers refused. */
  int rejected() {
    return rejected;
  }

  /**
   * An offer whose digest cannot vouch for its identity: read again, refused with the precise
   * reason when it is not an offer or its identity is unusable, else diffed.
   */
  private void checkThenDiff(int i) {
    int start = snapshot.offerStart(i);
    int length = snapshot.offerLength(i);
    try {
      reader.read(snapshot.bytes(), start, length);
    } catch (WireReader.MalformedWireException e) {
      refuse(
          null,
          Arrays.copyOfRange(snapshot.bytes(), start, start + length),
          "offer " + i + " of " + source + " is not a mosaic.feed.v1.Offer: " + e.getMessage());
      return;
    }
    String reason = OfferChecks.identityProblem(reader, partner, partnerUtf8);
    if (reason != null) {
      refuse(reader, null, reason);
      return;
    }
    diffOne(i, reader.offerIdHash(), reader.fingerprint(), reader.indexPartition(partitions));
  }

  /** Offer {@code i} read again: it was read once already, so its bytes are an offer. */
  private OfferBytes reread(int i) {
    return reader.read(snapshot.bytes(), snapshot.offerStart(i), snapshot.offerLength(i));
  }

  /**
   * Diffs offer {@code i}, whose identity passed the checks, by its digest; its bytes are read
   * again only when it is a duplicate, new or changed.
   */
  private void diffOne(int i, long offerHash, long fingerprint, int partition) {
    long entry = PartnerSnapshotState.entry(fingerprint, partition);
    // One probe of the next state both claims the offer id and finds a duplicate.
    if (!next.putIfAbsent(offerHash, entry)) {
      OfferBytes offer = reread(i);
      refuse(
          offer,
          null,
          "offer '"
              + partner
              + "/"
              + offer.offerId()
              + "' appears twice in the snapshot; the first one is kept");
      return;
    }
    long previousEntry = prev.entry(offerHash);
    if (previousEntry == entry) {
      // Unchanged offers passed every check when they were first published.
      unchanged++;
      previousKept++;
      return;
    }
    OfferBytes offer = reread(i);
    String reason = checks.contentProblem(offer, partner);
    if (reason != null) {
      next.remove(offerHash); // absent from the snapshot: a later offer with its id may take it
      refuse(offer, null, reason);
      return;
    }
    int before = -1;
    if (previousEntry != PartnerSnapshotState.ABSENT) {
      previousKept++;
      before = PartnerSnapshotState.partitionOf(previousEntry);
    }
    if (before >= 0 && before != partition) {
      changes.tombstone(before, offerHash);
      deletes++;
    }
    changes.upsert(partition, offerHash, offer.publishedValue(partnerUtf8, nowMillis));
    upserts++;
  }

  private void refuse(OfferBytes offer, byte[] value, String reason) {
    rejected++;
    byte[] key = offer == null || !offer.hasOfferId() ? null : offer.offerIdBytes();
    refusals.refuse(key, offer == null ? value : offer.copy(), source, reason);
  }
}
