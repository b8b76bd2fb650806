package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
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
