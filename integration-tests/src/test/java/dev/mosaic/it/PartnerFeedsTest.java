package dev.mosaic.it;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.google.protobuf.CodedOutputStream;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.api.feedfile.SnapshotFileWriter;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.deploy.MosaicConfig;
import dev.mosaic.deploy.SearcherRole;
import dev.mosaic.indexer.OfferTopics;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.function.Predicate;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Partner feeds of a realty index on real ZooKeeper and Kafka, as the deploy jar's feed loader runs
 * them: snapshot files dropped into the index's watched directory ({@code feed-directory}) and
 * snapshots on its snapshot topic ({@code snapshot-topic}) become searchable through HTTP on every
 * searcher of both datacenters; a malformed line and a payload the index's descriptor does not
 * declare go to the dead-letter topic with their reasons while the rest is indexed.
 */
@Timeout(400)
class PartnerFeedsTest {
  /** The freshness target of feed-to-searchable (README, "What was tested"), reported. */
  private static final long TARGET_MILLIS = 2_000;

  /**
   * The correctness bound asserted: this machine is shared and loaded (as FeedToSearchableTest).
   */
  private static final Duration BOUND = Duration.ofSeconds(30);

  private static Path feeds;
  private static Path staging;
  private static LocalCluster cluster;

  @BeforeAll
  static void start() throws Exception {
    Path root = Files.createTempDirectory("mosaic-partner-feeds-");
    feeds = root.resolve("realty-feeds");
    staging = Files.createDirectories(root.resolve("staging"));
    Map<String, String> o = SharedCluster.testOverrides();
    o.put(
        "mosaic.indexes",
        "[{name = realty, partitions = 8, topic-partitions = 2, simulate = realty,"
            + " feed-directory = \""
            + feeds
            + "\", snapshot-topic = realty-snapshots}]");
    o.put("mosaic.feed.partners", "4");
    o.put("mosaic.feed.offers", "300");
    o.put("mosaic.indexer.nodes", "1");
    o.put("mosaic.searcher.nodes-per-dc", "1");
    cluster = new LocalCluster(MosaicConfig.withOverrides(o)).start();
  }

  @AfterAll
  static void stop() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
    if (feeds != null) {
      try (Stream<Path> paths = Files.walk(feeds.getParent())) {
        for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(p);
        }
      }
    }
  }

  /** {@code count} flats of one partner, with ids and dedup keys of their own. */
  private static List<RealtyOffer> flats(String partner, long seed, int count) {
    RealtyOfferGenerator generator = RealtyOfferGenerator.seeded(seed);
    List<RealtyOffer> out = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      out.add(
          generator.next().toBuilder()
              .setPartnerId(partner)
              .setOfferId(partner + "-" + i)
              .setDedupKey(partner + "-dedup-" + i)
              .build());
    }
    return out;
  }

  private static FeedSnapshot snapshot(String partner, List<Offer> offers) {
    long now = System.currentTimeMillis();
    return FeedSnapshot.newBuilder()
        .setPartnerId(partner)
        .setSnapshotId(1)
        .setCreatedAtMillis(now)
        .addAllOffers(offers)
        .build();
  }

  private static List<Offer> offers(List<RealtyOffer> flats) {
    long now = System.currentTimeMillis();
    return flats.stream().map(f -> RealtyOffers.toOffer(f, now)).toList();
  }

  /** Drops a file written in the staging directory into the watched one, as a partner would. */
  private static long drop(Path file) throws Exception {
    long dropped = System.nanoTime();
    Files.move(file, feeds.resolve(file.getFileName()), StandardCopyOption.ATOMIC_MOVE);
    return dropped;
  }

  /**
   * Waits until every searcher counts exactly these offer ids in the realty index, and returns the
   * milliseconds since {@code sinceNanos} when the last one did.
   */
  private static long awaitSearchableEverywhere(List<String> offerIds, long sinceNanos) {
    String query =
        "{\"filter\": {\"in\": {\"offer_id\": ["
            + offerIds.stream().map(id -> "\"" + id + "\"").collect(Collectors.joining(", "))
            + "]}}}";
    for (SearcherRole s : cluster.runningSearchers()) {
      await(s.nodeId() + " counts " + offerIds)
          .atMost(BOUND)
          .pollInterval(Duration.ofMillis(50))
          .until(
              () -> {
                SearcherClient.Answer a =
                    SearcherClient.post(s.httpAddress(), "/indexes/realty/count", query);
                return a.status() == 200 && a.body().get("total").asLong() == offerIds.size();
              });
    }
    return (System.nanoTime() - sinceNanos) / 1_000_000;
  }

  @Test
  void aJsonLinesFileBecomesSearchableAndItsMalformedLineIsDeadLetteredWithTheReason()
      throws Exception {
    List<RealtyOffer> flats = flats("file-partner", 41, 5);
    Path file =
        new SnapshotFileWriter()
            .writeAtomically(
                snapshot("file-partner", offers(flats)), staging, "file-partner.jsonl");
    List<String> lines = new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8));
    String malformed = "{\"offer_id\": \"file-partner-broken\", \"dedup_key\": 7, \"realty\": {";
    lines.set(2, malformed); // line 3: the second flat
    Files.write(file, lines, StandardCharsets.UTF_8);

    long dropped = drop(file);
    List<String> good =
        List.of("file-partner-1", "file-partner-3", "file-partner-4", "file-partner-5");
    long millis = awaitSearchableEverywhere(good, dropped);
    System.out.printf(
        "RESULT it-feed-file searchers=%d searchable_ms=%d target_ms=%d met=%s%n",
        cluster.runningSearchers().size(), millis, TARGET_MILLIS, millis <= TARGET_MILLIS);
    assertThat(millis).as("dropped file to searchable everywhere, ms").isLessThan(BOUND.toMillis());
    for (SearcherRole s : cluster.runningSearchers()) {
      SearcherClient.Answer a =
          SearcherClient.post(
              s.httpAddress(),
              "/indexes/realty/count",
              "{\"filter\": {\"eq\": {\"offer_id\": \"file-partner-2\"}}}");
      assertThat(a.body().get("total").asLong()).as(s.nodeId()).isZero();
    }

    ConsumerRecord<byte[], byte[]> dead =
        awaitDeadLetter(
            "the malformed line",
            r -> Arrays.equals(r.value(), malformed.getBytes(StandardCharsets.UTF_8)));
    assertThat(DeadLetters.header(dead, OfferTopics.STAGE_HEADER)).isEqualTo("file");
    assertThat(DeadLetters.header(dead, OfferTopics.REASON_HEADER))
        .startsWith("file-partner.jsonl line 3: not an Offer: ");
    assertThat(new String(dead.key(), StandardCharsets.UTF_8)).isEqualTo("file-partner.jsonl");
    assertThat(Files.exists(feeds.resolve("done").resolve("file-partner.jsonl"))).isTrue();
  }

  @Test
  void aPayloadFieldTheDescriptorDoesNotDeclareIsDeadLetteredAndTheRestOfTheFileIndexed()
      throws Exception {
    List<RealtyOffer> flats = flats("pb-partner", 43, 3);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    flats.get(1).writeTo(bytes);
    CodedOutputStream extra = CodedOutputStream.newInstance(bytes);
    extra.writeInt64(90, 12345);
    extra.flush();
    List<Offer> offers = new ArrayList<>(offers(flats));
    offers.set(
        1, offers.get(1).toBuilder().setRealty(RealtyOffer.parseFrom(bytes.toByteArray())).build());
    Path file =
        new SnapshotFileWriter()
            .writeAtomically(snapshot("pb-partner", offers), staging, "pb-partner.pb");

    long dropped = drop(file);
    awaitSearchableEverywhere(List.of("pb-partner-1", "pb-partner-3"), dropped);

    ConsumerRecord<byte[], byte[]> dead =
        DeadLetters.awaitKey(
            cluster.bootstrapServers(),
            cluster.config().defaultIndex().deadLetterTopic(),
            "pb-partner-2".getBytes(StandardCharsets.UTF_8));
    assertThat(DeadLetters.header(dead, OfferTopics.STAGE_HEADER)).isEqualTo("loader");
    assertThat(DeadLetters.header(dead, OfferTopics.REASON_HEADER))
        .isEqualTo(
            "offer 'pb-partner/pb-partner-2': payload mosaic.feed.v1.RealtyOffer: field number 90"
                + " (varint) is not declared in mosaic.feed.v1.RealtyOffer (the descriptor set may"
                + " be older than the feed)");
  }

  @Test
  void aSnapshotOnTheSnapshotTopicBecomesSearchable() throws Exception {
    List<RealtyOffer> flats = flats("topic-partner", 47, 3);
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    long sent = System.nanoTime();
    try (KafkaProducer<byte[], byte[]> producer =
        new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
      producer
          .send(
              new ProducerRecord<>(
                  "realty-snapshots",
                  "topic-partner".getBytes(StandardCharsets.UTF_8),
                  snapshot("topic-partner", offers(flats)).toByteArray()))
          .get();
    }
    awaitSearchableEverywhere(flats.stream().map(RealtyOffer::getOfferId).toList(), sent);
  }

  private static ConsumerRecord<byte[], byte[]> awaitDeadLetter(
      String description, Predicate<ConsumerRecord<byte[], byte[]>> wanted) {
    return DeadLetters.awaitFirst(
        cluster.bootstrapServers(),
        cluster.config().defaultIndex().deadLetterTopic(),
        description,
        wanted);
  }
}
