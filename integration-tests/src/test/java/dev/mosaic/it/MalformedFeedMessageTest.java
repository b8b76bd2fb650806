package dev.mosaic.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.deploy.SearcherRole;
import dev.mosaic.indexer.FeedLoader;
import dev.mosaic.indexer.OfferKeys;
import dev.mosaic.indexer.OfferTopics;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Bad feed messages go to the dead-letter topic, at the loader and at the indexer; the rest flows.
 */
@ExtendWith(SharedCluster.class)
@Timeout(300)
class MalformedFeedMessageTest {
  private static final String PARTNER = "it-partner";

  @AfterEach
  void heal(LocalCluster cluster) throws Exception {
    SharedCluster.heal(cluster);
  }

  @Test
  void malformedMessageOnTheOffersTopicIsDeadLetteredAndTheRestFlows(LocalCluster cluster)
      throws Exception {
    int partitions = cluster.config().partitions;
    int kafkaPartitions = cluster.config().topicPartitions;
    int p = 3;
    byte[] key = OfferKeys.recordKey(p, PARTNER, "garbage-1");
    Properties pp = new Properties();
    pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(pp, new ByteArraySerializer(), new ByteArraySerializer())) {
      producer
          .send(
              new ProducerRecord<>(
                  cluster.config().offersTopic,
                  OfferKeys.kafkaPartition(p, kafkaPartitions),
                  key,
                  "this is not a protobuf Offer".getBytes(StandardCharsets.UTF_8)))
          .get();
    }
    ConsumerRecord<byte[], byte[]> dead = awaitDeadLetter(cluster, key);
    assertThat(header(dead, OfferTopics.STAGE_HEADER)).isEqualTo("indexer");
    assertThat(header(dead, OfferTopics.REASON_HEADER)).contains("not a mosaic.feed.v1.Offer");

    // The rest flows: a change made after the bad message reaches every searcher.
    Set<String> all = new HashSet<>();
    cluster.runningSearchers().forEach(s -> all.add(s.nodeId()));
    assertThat(cluster.probe().measure(Duration.ofSeconds(60)).keySet()).isEqualTo(all);
    for (var i : cluster.runningIndexers()) {
      assertThat(i.node().failure()).isEmpty();
    }
    assertThat(partitions).isGreaterThan(p);
  }

  @Test
  void offerTheLoaderRefusesIsDeadLetteredAndTheSnapshotsOtherOffersBecomeSearchable(
      LocalCluster cluster) throws Exception {
    List<CarOffer> cars =
        CarOfferGenerator.builder().seed(77).partners(1).duplicateShare(0).build().next(2);
    List<Offer> offers = new ArrayList<>();
    CarOffer good = cars.get(0).toBuilder().setPartnerId(PARTNER).setOfferId("it-good").build();
    CarOffer bad = cars.get(1).toBuilder().setPartnerId(PARTNER).setOfferId("it-bad").build();
    offers.add(CarOffers.toOffer(good, System.currentTimeMillis()));
    offers.add(
        CarOffers.toOffer(bad, System.currentTimeMillis()).toBuilder().clearDedupKey().build());
    FeedLoader.PublishResult result =
        cluster
            .feedLoader()
            .publish(
                FeedSnapshot.newBuilder()
                    .setPartnerId(PARTNER)
                    .setSnapshotId(1)
                    .setCreatedAtMillis(System.currentTimeMillis())
                    .addAllOffers(offers)
                    .build());
    assertThat(result.rejected()).isEqualTo(1);
    assertThat(result.upserts()).isEqualTo(1);
    ConsumerRecord<byte[], byte[]> dead =
        awaitDeadLetter(cluster, "it-bad".getBytes(StandardCharsets.UTF_8));
    assertThat(header(dead, OfferTopics.STAGE_HEADER)).isEqualTo("loader");
    assertThat(header(dead, OfferTopics.REASON_HEADER)).contains("dedup_key");

    String query = "{\"filter\": {\"eq\": {\"offer_id\": \"it-good\"}}}";
    for (SearcherRole s : cluster.runningSearchers()) {
      await(s.nodeId() + " finds the good offer of the snapshot")
          .atMost(Duration.ofSeconds(60))
          .until(
              () -> {
                SearcherClient.Answer a = SearcherClient.post(s.httpAddress(), "/count", query);
                return a.status() == 200 && a.body().get("total").asLong() == 1;
              });
    }
  }

  private static ConsumerRecord<byte[], byte[]> awaitDeadLetter(LocalCluster cluster, byte[] key) {
    return DeadLetters.awaitKey(cluster.bootstrapServers(), cluster.config().deadLetterTopic, key);
  }

  private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
    return DeadLetters.header(r, name);
  }
}
