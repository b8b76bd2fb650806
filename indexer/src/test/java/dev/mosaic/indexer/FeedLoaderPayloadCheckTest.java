package dev.mosaic.indexer;

import static dev.mosaic.indexer.KafkaTestSupport.readAll;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedOutputStream;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.api.realty.RealtyGeneratorSettings;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import dev.mosaic.api.schema.BuiltInSchemas;
import dev.mosaic.api.schema.PayloadCheck;
import dev.mosaic.embedded.EmbeddedKafka;
import java.io.ByteArrayOutputStream;
import java.util.List;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The feed loader checks payloads against the index's descriptor when told to. */
class FeedLoaderPayloadCheckTest {
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void startKafka() throws Exception {
    kafka = EmbeddedKafka.builder().build().start();
  }

  @AfterAll
  static void stopKafka() {
    kafka.close();
  }

  /** One partner's three flats, the second's payload carrying field number 77, undeclared. */
  private static FeedSnapshot snapshotWithAnUndeclaredPayloadField() throws Exception {
    List<RealtyOffer> flats =
        new RealtyOfferGenerator(RealtyGeneratorSettings.DEFAULTS.withSeed(5).withPartners(1))
            .next(3);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    flats.get(1).writeTo(bytes);
    CodedOutputStream extra = CodedOutputStream.newInstance(bytes);
    extra.writeString(77, "from a newer descriptor");
    extra.flush();
    RealtyOffer undeclared = RealtyOffer.parseFrom(bytes.toByteArray());
    FeedSnapshot snapshot = RealtyOffers.snapshotsByPartner(flats, 1, 1_000L).getFirst();
    Offer second = snapshot.getOffers(1).toBuilder().setRealty(undeclared).build();
    return snapshot.toBuilder().setOffers(1, second).build();
  }

  private static FeedLoader.Builder realtyLoader(String topic) {
    return KafkaTestSupport.loaderOn(kafka, topic, 16, 2).schema(BuiltInSchemas.realty().schema());
  }

  @Test
  void anOfferWhosePayloadTheDescriptorDoesNotDeclareIsDeadLetteredWithTheReason()
      throws Exception {
    FeedSnapshot snapshot = snapshotWithAnUndeclaredPayloadField();
    try (FeedLoader loader =
        realtyLoader("checked")
            .payloadCheck(PayloadCheck.against(BuiltInSchemas.realty()))
            .build()
            .start()) {
      FeedLoader.PublishResult r = loader.publish(snapshot);
      assertThat(r.upserts()).isEqualTo(2);
      assertThat(r.rejected()).isEqualTo(1);
    }
    ConsumerRecord<byte[], byte[]> dead = readAll(kafka, "checked-dlq", 1).getFirst();
    Offer refused = snapshot.getOffers(1);
    assertThat(FeedLoaderTest.header(dead, OfferTopics.REASON_HEADER))
        .isEqualTo(
            "offer '"
                + refused.getPartnerId()
                + "/"
                + refused.getOfferId()
                + "': payload mosaic.feed.v1.RealtyOffer: field number 77 (length-delimited) is"
                + " not declared in mosaic.feed.v1.RealtyOffer (the descriptor set may be older"
                + " than the feed)");
    assertThat(FeedLoaderTest.header(dead, OfferTopics.STAGE_HEADER)).isEqualTo("loader");
    assertThat(readAll(kafka, "checked", 2))
        .extracting(c -> Offer.parseFrom(c.value()).getOfferId())
        .containsExactlyInAnyOrder(
            snapshot.getOffers(0).getOfferId(), snapshot.getOffers(2).getOfferId());
  }

  @Test
  void withoutAPayloadCheckTheSameOfferIsPublished() throws Exception {
    try (FeedLoader loader = realtyLoader("unchecked").build().start()) {
      FeedLoader.PublishResult r = loader.publish(snapshotWithAnUndeclaredPayloadField());
      assertThat(r.upserts()).isEqualTo(3);
      assertThat(r.rejected()).isZero();
    }
  }
}
