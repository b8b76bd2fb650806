package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class OfferBytesTest {
  private static final byte[] PARTNER = "partner-001".getBytes(StandardCharsets.UTF_8);

  private static Offer offer() {
    return KafkaTestSupport.snapshot(KafkaTestSupport.cars(15, 1), 1).getOffers(0);
  }

  private static OfferBytes read(Offer offer) {
    byte[] bytes = offer.toByteArray();
    return new OfferBytes().read(bytes, 0, bytes.length);
  }

  @Test
  void idsAndPartitionComeFromTheBytesAsTheParsedOfferWouldGiveThem() {
    Offer offer = offer();
    OfferBytes bytes = read(offer);
    assertThat(bytes.offerId()).isEqualTo(offer.getOfferId());
    assertThat(bytes.partnerId()).isEqualTo(offer.getPartnerId());
    assertThat(bytes.offerIdHash()).isEqualTo(OfferKeys.hash(offer.getOfferId()));
    assertThat(bytes.indexPartition(1024))
        .isEqualTo(OfferKeys.indexPartition(offer.getDedupKey(), 1024));
    assertThat(bytes.observedAtMillis()).isEqualTo(offer.getObservedAtMillis());
  }

  @Test
  void fingerprintIsTheHashOfTheOtherFieldsWhereverTheLeftOutFieldsSit() throws Exception {
    java.util.Random random = new java.util.Random(16);
    for (var car : KafkaTestSupport.cars(16, 200)) {
      Offer offer = KafkaTestSupport.snapshot(java.util.List.of(car), 1).getOffers(0);
      // the offer without partner_id and observed_at_millis, one field per piece
      java.util.List<byte[]> pieces = new java.util.ArrayList<>();
      pieces.add(Offer.newBuilder().setOfferId(offer.getOfferId()).build().toByteArray());
      pieces.add(Offer.newBuilder().setDedupKey(offer.getDedupKey()).build().toByteArray());
      for (var field : offer.getFieldsList()) {
        pieces.add(Offer.newBuilder().addFields(field).build().toByteArray());
      }
      pieces.add(Offer.newBuilder().setCar(offer.getCar()).build().toByteArray());
      java.io.ByteArrayOutputStream core = new java.io.ByteArrayOutputStream();
      java.io.ByteArrayOutputStream wire = new java.io.ByteArrayOutputStream();
      byte[] partner =
          Offer.newBuilder().setPartnerId("p" + random.nextInt(9)).build().toByteArray();
      byte[] observed =
          Offer.newBuilder().setObservedAtMillis(1 + random.nextInt(1000)).build().toByteArray();
      for (int i = 0; i <= pieces.size(); i++) {
        // left-out fields at random places: none, one or several pieces of hashed bytes
        if (random.nextInt(4) == 0) {
          wire.write(random.nextBoolean() ? partner : observed);
        }
        if (i < pieces.size()) {
          core.write(pieces.get(i));
          wire.write(pieces.get(i));
        }
      }
      byte[] coreBytes = core.toByteArray();
      byte[] wireBytes = wire.toByteArray();
      assertThat(new OfferBytes().read(wireBytes, 0, wireBytes.length).fingerprint())
          .isEqualTo(ContentHash.of(coreBytes, 0, coreBytes.length));
    }
  }

  @Test
  void fingerprintIgnoresObservationTimeAndPartnerIdButNotContent() {
    Offer offer = offer();
    long fingerprint = read(offer).fingerprint();
    assertThat(read(offer.toBuilder().setObservedAtMillis(42).build()).fingerprint())
        .isEqualTo(fingerprint);
    assertThat(
            read(offer.toBuilder().clearObservedAtMillis().clearPartnerId().build()).fingerprint())
        .isEqualTo(fingerprint);
    assertThat(
            read(offer.toBuilder().setCar(offer.getCar().toBuilder().setPriceRub(1)).build())
                .fingerprint())
        .isNotEqualTo(fingerprint);
    assertThat(read(offer.toBuilder().setDedupKey("other").build()).fingerprint())
        .isNotEqualTo(fingerprint);
  }

  @Test
  void publishedValueCompletesPartnerAndObservationTimeAndKeepsTheFingerprint() {
    Offer bare = offer().toBuilder().clearPartnerId().clearObservedAtMillis().build();
    OfferBytes bytes = read(bare);
    byte[] published = bytes.publishedValue(PARTNER, 1_700_000_000_123L);
    Offer expected =
        bare.toBuilder()
            .setPartnerId("partner-001")
            .setObservedAtMillis(1_700_000_000_123L)
            .build();
    assertThat(parse(published)).isEqualTo(expected);
    assertThat(new OfferBytes().read(published, 0, published.length).fingerprint())
        .isEqualTo(bytes.fingerprint());

    Offer complete = offer();
    byte[] asItCame = read(complete).publishedValue(PARTNER, 5);
    assertThat(asItCame).isEqualTo(complete.toByteArray());
  }

  @Test
  void anEmptyPartnerIdInTheBytesIsOverriddenByTheAppendedOne() {
    // An explicit empty partner_id (field 1, length 0) before the content.
    byte[] content = offer().toBuilder().clearPartnerId().build().toByteArray();
    byte[] withEmpty = new byte[content.length + 2];
    withEmpty[0] = 0x0a;
    System.arraycopy(content, 0, withEmpty, 2, content.length);
    byte[] published =
        new OfferBytes().read(withEmpty, 0, withEmpty.length).publishedValue(PARTNER, 7);
    assertThat(parse(published).getPartnerId()).isEqualTo("partner-001");
  }

  @Test
  void snapshotBytesFindEveryOfferAndTheHeader() {
    FeedSnapshot snapshot = KafkaTestSupport.snapshot(KafkaTestSupport.cars(16, 5), 77);
    SnapshotBytes bytes = SnapshotBytes.read(snapshot.toByteArray());
    assertThat(bytes.partnerId()).isEqualTo(snapshot.getPartnerId());
    assertThat(bytes.snapshotId()).isEqualTo(77);
    assertThat(bytes.offerCount()).isEqualTo(5);
    for (int i = 0; i < 5; i++) {
      byte[] offer =
          Arrays.copyOfRange(
              bytes.bytes(), bytes.offerStart(i), bytes.offerStart(i) + bytes.offerLength(i));
      assertThat(parse(offer)).isEqualTo(snapshot.getOffers(i));
    }
  }

  @Test
  void theDigestsHashIsEqualExactlyWhenTheDiffWouldFindTheSameOffers() {
    List<CarOffer> cars = KafkaTestSupport.cars(23, 6);
    FeedSnapshot first = KafkaTestSupport.snapshot(cars, 1);
    long hash = SnapshotBytes.read(first.toByteArray()).digests().hash();
    FeedSnapshot later =
        KafkaTestSupport.snapshot(cars, 2).toBuilder().setCreatedAtMillis(9).build();
    FeedSnapshot observedLater =
        later.toBuilder()
            .setOffers(0, later.getOffers(0).toBuilder().setObservedAtMillis(123_456).build())
            .build();
    for (FeedSnapshot same : List.of(later, observedLater)) {
      assertThat(SnapshotBytes.read(same.toByteArray()).digests().hash())
          .as("the same offers in another snapshot, observed at another time")
          .isEqualTo(hash);
    }

    Offer changed = first.getOffers(3);
    FeedSnapshot reordered =
        first.toBuilder()
            .clearOffers()
            .addAllOffers(first.getOffersList().subList(1, 6))
            .addOffers(first.getOffers(0))
            .build();
    byte[] garbage = {(byte) 0xff, 1, 2};
    byte[] otherGarbage = {(byte) 0xff, 1, 3};
    List<byte[]> others =
        List.of(
            first.toBuilder()
                .setOffers(
                    3,
                    changed.toBuilder()
                        .setCar(
                            changed.getCar().toBuilder()
                                .setPriceRub(changed.getCar().getPriceRub() + 1)))
                .build()
                .toByteArray(),
            first.toBuilder()
                .setOffers(3, changed.toBuilder().setDedupKey(changed.getDedupKey() + "-2"))
                .build()
                .toByteArray(),
            reordered.toByteArray(),
            first.toBuilder().removeOffers(5).build().toByteArray(),
            first.toBuilder().addOffers(first.getOffers(5)).build().toByteArray());
    for (byte[] other : others) {
      assertThat(SnapshotBytes.read(other).digests().hash()).isNotEqualTo(hash);
    }
    assertThat(SnapshotBytes.read(withRawOffer(first, garbage)).digests().hash())
        .as("an offer that is not valid wire format counts with its bytes")
        .isNotEqualTo(SnapshotBytes.read(withRawOffer(first, otherGarbage)).digests().hash());
  }

  /** {@code snapshot} with one more offer field holding {@code raw}. */
  private static byte[] withRawOffer(FeedSnapshot snapshot, byte[] raw) {
    byte[] head = snapshot.toByteArray();
    byte[] out = Arrays.copyOf(head, head.length + 2 + raw.length);
    out[head.length] = (byte) (FeedSnapshot.OFFERS_FIELD_NUMBER << 3 | 2);
    out[head.length + 1] = (byte) raw.length;
    System.arraycopy(raw, 0, out, head.length + 2, raw.length);
    return out;
  }

  @Test
  void snapshotDigestsAreWhatTheOfferReaderFindsInEachOffer() {
    FeedSnapshot snapshot = KafkaTestSupport.snapshot(KafkaTestSupport.cars(19, 4), 3);
    SnapshotBytes bytes = SnapshotBytes.read(snapshot.toByteArray());
    OfferDigests digests = bytes.digests();
    assertThat(digests.count()).isEqualTo(4);
    assertThat(digests.referenceEquals(PARTNER)).isTrue();
    for (int i = 0; i < 4; i++) {
      OfferBytes offer =
          new OfferBytes().read(bytes.bytes(), bytes.offerStart(i), bytes.offerLength(i));
      assertThat(digests.identityPasses(i, true)).isTrue();
      assertThat(digests.identityPasses(i, false)).isFalse(); // names a partner it cannot vouch for
      assertThat(digests.fingerprint(i)).isEqualTo(offer.fingerprint());
      assertThat(digests.offerIdHash(i)).isEqualTo(offer.offerIdHash());
      assertThat(OfferKeys.indexPartitionOfHash(digests.dedupKeyHash(i), 1024))
          .isEqualTo(offer.indexPartition(1024));
    }
  }

  @Test
  void anOfferThatIsNotWireFormatHasADigestThatVouchesForNothing() {
    byte[] truncatedOffer = {(byte) 0x12, (byte) 0x05, 'x'};
    OfferDigests digests = new OfferDigests(truncatedOffer);
    digests.add(new OfferBytes(), 0, truncatedOffer.length);
    assertThat(digests.count()).isEqualTo(1);
    assertThat(digests.identityPasses(0, true)).isFalse();
  }

  @Test
  void truncatedBytesAreRefusedNamingThePosition() {
    byte[] whole = KafkaTestSupport.snapshot(KafkaTestSupport.cars(17, 2), 1).toByteArray();
    assertThatThrownBy(() -> SnapshotBytes.read(Arrays.copyOf(whole, whole.length - 3)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("not a mosaic.feed.v1.FeedSnapshot: length ")
        .hasMessageContaining("runs past the end");
    byte[] offer = offer().toByteArray();
    assertThatThrownBy(() -> new OfferBytes().read(offer, 0, offer.length - 1))
        .isInstanceOf(WireReader.MalformedWireException.class)
        .hasMessageContaining("at byte");
  }

  private static Offer parse(byte[] bytes) {
    try {
      return Offer.parseFrom(bytes);
    } catch (com.google.protobuf.InvalidProtocolBufferException e) {
      throw new AssertionError(e);
    }
  }
}
