package dev.mosaic.indexer;

import static dev.mosaic.indexer.FeedLoaderFailureTest.expectedLive;
import static dev.mosaic.indexer.FeedLoaderFailureTest.liveOffers;
import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.FieldValue;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.embedded.EmbeddedKafka;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Random snapshot sequences of several partners against a reference made of plain sets of offers:
 * after every round the topic's live offers are exactly the partners' latest valid offers, and the
 * loader's counts are the reference's (new, changed, moved between partitions, removed, observed
 * again unchanged, sent without partner id, invalid, an offer id twice in a snapshot). Rounds
 * restart the loader or damage its state files at random.
 */
class FeedLoaderRandomizedDiffTest {
  private static final int P = 16;
  private static final int K = 4;
  private static final long SEED = 20261124L;
  private static EmbeddedKafka kafka;

  @BeforeAll
  static void startKafka() throws Exception {
    kafka = EmbeddedKafka.builder().build().start();
  }

  @AfterAll
  static void stopKafka() {
    kafka.close();
  }

  /** Reference diff counts of one partner's new snapshot against its previous valid offers. */
  private record Counts(int upserts, int deletes, int unchanged, int rejected) {}

  @Test
  void randomSnapshotSequencesMatchAReferenceOfOfferSets(@TempDir Path state) throws Exception {
    Random random = new Random(SEED);
    String topic = "randomized";
    List<String> partners = List.of("partner-a", "partner-b", "partner-c");
    CarOfferGenerator generator =
        CarOfferGenerator.builder().seed(SEED).partners(1).duplicateShare(0).build();
    Map<String, Map<String, Offer>> previous = new HashMap<>();
    Map<String, List<Offer>> current = new HashMap<>();
    for (String partner : partners) {
      previous.put(partner, Map.of());
      current.put(partner, new ArrayList<>());
    }
    FeedLoader loader = start(topic, state);
    try (OffersTopicView view = new OffersTopicView(kafka, topic)) {
      for (int round = 1; round <= 12; round++) {
        String action = "publish";
        // Random actions, and each kind at least once (rounds 4 and 7).
        double dice = round == 4 ? 0.1 : round == 7 ? 0.3 : random.nextDouble();
        if (round > 1 && dice < 0.25) {
          loader.close();
          loader = start(topic, state);
          action = "restart";
        } else if (round > 1 && dice < 0.45) {
          loader.close();
          damageOneStateFile(state, random);
          loader = start(topic, state);
          action = "damage + restart";
        }
        Map<String, FeedSnapshot> snapshots = new LinkedHashMap<>();
        int expectedRecords = 0;
        for (String partner : partners) {
          List<Offer> offers = mutate(current.get(partner), partner, generator, random, round);
          current.put(partner, offers);
          FeedSnapshot snapshot =
              FeedSnapshot.newBuilder()
                  .setPartnerId(partner)
                  .setSnapshotId(round)
                  .addAllOffers(offers)
                  .build();
          Map<String, Offer> valid = validByOfferId(offers);
          Counts expected = reference(previous.get(partner), valid, offers.size());
          FeedLoader.PublishResult result = loader.publish(snapshot);
          String what = "round " + round + " (" + action + "), " + partner;
          assertThat(result.upserts()).as(what + " upserts").isEqualTo(expected.upserts());
          assertThat(result.deletes()).as(what + " deletes").isEqualTo(expected.deletes());
          assertThat(result.unchanged()).as(what + " unchanged").isEqualTo(expected.unchanged());
          assertThat(result.rejected()).as(what + " rejected").isEqualTo(expected.rejected());
          expectedRecords += expected.upserts() + expected.deletes();
          previous.put(partner, valid);
          snapshots.put(partner, validSnapshot(partner, round, valid));
        }
        assertThat(view.catchUp())
            .as("records appended in round %d", round)
            .isEqualTo(expectedRecords);
        Map<String, Offer> expectedLive = new HashMap<>();
        snapshots.values().forEach(s -> expectedLive.putAll(expectedLive(s)));
        assertThat(liveOffers(view))
            .as("live offers after round %d", round)
            .isEqualTo(expectedLive);
      }
    } finally {
      loader.close();
    }
  }

  private static FeedLoader start(String topic, Path state) throws Exception {
    return KafkaTestSupport.loaderOn(kafka, topic, P, K).stateDir(state).build().start();
  }

  /**
   * The next snapshot's offers: some removed, changed, moved to another partition, re-observed,
   * stripped of their partner id, made invalid (no dedup key), some new, in a shuffled order.
   */
  private static List<Offer> mutate(
      List<Offer> offers, String partner, CarOfferGenerator generator, Random random, int round) {
    List<Offer> next = new ArrayList<>();
    for (Offer o : offers) {
      double d = random.nextDouble();
      if (d < 0.08) {
        continue; // removed
      } else if (d < 0.16) {
        o =
            o.toBuilder()
                .setCar(o.getCar().toBuilder().setPriceRub(random.nextInt(9_000_000)))
                .build();
      } else if (d < 0.22) {
        o =
            o.toBuilder()
                .setDedupKey(FeedLoaderFailureTest.otherPartitionKey(o.getDedupKey() + round))
                .build();
      } else if (d < 0.32) {
        o = o.toBuilder().setObservedAtMillis(1_000L * round + random.nextInt(1000)).build();
      } else if (d < 0.36) {
        o = o.toBuilder().clearPartnerId().build();
      } else if (d < 0.38) {
        o = o.toBuilder().setDedupKey("").build(); // invalid: dead-lettered, counts as absent
      } else if (d < 0.40 && !o.getDedupKey().isEmpty()) {
        o = o.toBuilder().setPartnerId(partner).build(); // partner id back
      } else if (d < 0.43) {
        o = wrongType(o); // a valid identity but not the schema: dead-lettered, counts as absent
      } else if (d < 0.48) {
        // Its id twice, the copies in random order: the first valid one is kept.
        Offer copy =
            o.toBuilder()
                .setCar(o.getCar().toBuilder().setPriceRub(random.nextInt(9_000_000)))
                .build();
        next.add(random.nextBoolean() ? copy : wrongType(copy));
      }
      next.add(o);
    }
    int added = random.nextInt(8) + (round == 1 ? 20 : 0);
    for (CarOffer car : generator.next(added)) {
      car =
          car.toBuilder()
              .setPartnerId(partner)
              .setOfferId(partner + "-" + car.getOfferId())
              .build();
      next.add(CarOffers.toOffer(car, random.nextBoolean() ? 0 : 1_000L * round));
    }
    Collections.shuffle(next, random);
    return next;
  }

  /** An offer with a field value of the wrong type for the schema. */
  private static Offer wrongType(Offer o) {
    return o.toBuilder()
        .addFields(FieldValue.newBuilder().setName("year").setStringValue("2019"))
        .build();
  }

  private static boolean hasWrongType(Offer o) {
    return o.getFieldsList().stream()
        .anyMatch(f -> f.hasStringValue() && f.getName().equals("year"));
  }

  /**
   * Offer id → offer of the offers the loader accepts: valid ones, the first of each offer id in
   * snapshot order.
   */
  private static Map<String, Offer> validByOfferId(List<Offer> offers) {
    Map<String, Offer> valid = new LinkedHashMap<>();
    for (Offer o : offers) {
      if (!o.getDedupKey().isEmpty() && !hasWrongType(o)) {
        valid.putIfAbsent(o.getOfferId(), o);
      }
    }
    return valid;
  }

  private static Counts reference(
      Map<String, Offer> before, Map<String, Offer> after, int offered) {
    int upserts = 0;
    int deletes = 0;
    int unchanged = 0;
    for (Offer o : after.values()) {
      Offer old = before.get(o.getOfferId());
      if (old == null) {
        upserts++;
      } else if (partition(old) != partition(o)) {
        upserts++;
        deletes++;
      } else if (!content(old).equals(content(o))) {
        upserts++;
      } else {
        unchanged++;
      }
    }
    for (String id : before.keySet()) {
      if (!after.containsKey(id)) {
        deletes++;
      }
    }
    return new Counts(upserts, deletes, unchanged, offered - after.size());
  }

  private static int partition(Offer o) {
    return OfferKeys.indexPartition(o.getDedupKey(), P);
  }

  private static Offer content(Offer o) {
    return o.toBuilder().clearPartnerId().clearObservedAtMillis().build();
  }

  private static FeedSnapshot validSnapshot(String partner, long id, Map<String, Offer> valid) {
    return FeedSnapshot.newBuilder()
        .setPartnerId(partner)
        .setSnapshotId(id)
        .addAllOffers(valid.values())
        .build();
  }

  private static void damageOneStateFile(Path state, Random random) throws Exception {
    List<Path> files;
    try (var listing = Files.list(state)) {
      files = listing.sorted().toList();
    }
    Path file = files.get(random.nextInt(files.size()));
    byte[] bytes = Files.readAllBytes(file);
    if (random.nextBoolean()) {
      Files.write(file, java.util.Arrays.copyOf(bytes, random.nextInt(bytes.length)));
    } else {
      bytes[random.nextInt(bytes.length)] ^= (byte) (1 + random.nextInt(255));
      Files.write(file, bytes);
    }
  }
}
