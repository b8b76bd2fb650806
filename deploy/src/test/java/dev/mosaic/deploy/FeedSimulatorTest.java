package dev.mosaic.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class FeedSimulatorTest {

  @Test
  void partnersPublishFullSnapshotsOfTheirOwnOffersWithDuplicatesAcrossPartners() throws Exception {
    List<FeedSnapshot> published = new ArrayList<>();
    MosaicConfig.Feed feed = MosaicConfig.withOverrides(Map.of()).feed;
    try (FeedSimulator sim = new FeedSimulator(feed, s -> add(published, s), Clock.systemUTC())) {
      sim.publishAll();
    }
    assertThat(published).hasSize(feed.partners);
    int offers = 0;
    Map<String, Set<String>> partnersByDedupKey = new HashMap<>();
    for (FeedSnapshot s : published) {
      for (Offer o : s.getOffersList()) {
        assertThat(o.getPartnerId()).isEqualTo(s.getPartnerId());
        assertThat(o.getCar().getPartnerId()).isEqualTo(s.getPartnerId());
        partnersByDedupKey
            .computeIfAbsent(o.getDedupKey(), k -> new HashSet<>())
            .add(o.getPartnerId());
        offers++;
      }
    }
    assertThat(offers).isEqualTo(feed.offers);
    assertThat(partnersByDedupKey.values().stream().filter(p -> p.size() > 1).count())
        .as("cars listed by several partners")
        .isGreaterThan(feed.offers / 50);
  }

  @Test
  void serializedSnapshotsAreTheNamedPartnersCurrentOffersAndPublishNothing() throws Exception {
    List<FeedSnapshot> published = new ArrayList<>();
    MosaicConfig.Feed feed =
        MosaicConfig.withOverrides(Map.of("mosaic.feed.partners", "4", "mosaic.feed.offers", "200"))
            .feed;
    try (FeedSimulator sim = new FeedSimulator(feed, s -> add(published, s), Clock.systemUTC())) {
      sim.publishAll();
      List<FeedSnapshot> before = List.copyOf(published);
      FeedSimulator.ContentChange change = sim.changeContent(0.5);
      List<String> partners = change.partners();
      List<byte[]> bytes = sim.serializedSnapshots(partners);

      assertThat(published).hasSameSizeAs(before);
      assertThat(bytes).hasSameSizeAs(partners);
      Set<String> changedIds =
          change.changed().stream()
              .map(c -> c.getPartnerId() + "/" + c.getOfferId())
              .collect(Collectors.toSet());
      long lastId = before.stream().mapToLong(FeedSnapshot::getSnapshotId).max().orElseThrow();
      int changedSeen = 0;
      for (int i = 0; i < bytes.size(); i++) {
        FeedSnapshot s = FeedSnapshot.parseFrom(bytes.get(i));
        assertThat(s.getPartnerId()).isEqualTo(partners.get(i));
        assertThat(s.getSnapshotId()).isGreaterThan(lastId);
        lastId = s.getSnapshotId();
        for (Offer o : s.getOffersList()) {
          if (changedIds.contains(o.getPartnerId() + "/" + o.getOfferId())) {
            changedSeen++;
          }
        }
      }
      assertThat(changedSeen).isEqualTo(change.changed().size());
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> sim.serializedSnapshots(List.of("partner-404")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("partner-404");
    }
  }

  @Test
  void realtyPartnersPublishApartmentsAndHousesOfTheirOwn() throws Exception {
    List<FeedSnapshot> published = new ArrayList<>();
    MosaicConfig.Feed feed =
        MosaicConfig.withOverrides(Map.of("mosaic.feed.partners", "5", "mosaic.feed.offers", "300"))
            .feed;
    try (FeedSimulator sim =
        new FeedSimulator(
            feed, SimulatedListings.realty(feed), s -> add(published, s), Clock.systemUTC())) {
      sim.publishAll();
      assertThat(sim.kind()).isEqualTo("realty");
    }
    Set<String> propertyTypes = new HashSet<>();
    int offers = 0;
    for (FeedSnapshot s : published) {
      for (Offer o : s.getOffersList()) {
        assertThat(o.hasRealty()).isTrue();
        assertThat(o.getRealty().getPartnerId()).isEqualTo(s.getPartnerId());
        assertThat(o.getFieldsList()).isNotEmpty();
        propertyTypes.add(o.getRealty().getPropertyType());
        offers++;
      }
    }
    assertThat(offers).isEqualTo(300);
    assertThat(propertyTypes).containsExactlyInAnyOrder("apartment", "house");
  }

  @Test
  void republishedSnapshotsChangeRemoveAndAddOffersOfTheSamePartner() throws Exception {
    MosaicConfig.Feed feed =
        MosaicConfig.withOverrides(
                Map.of(
                    "mosaic.feed.partners", "1",
                    "mosaic.feed.offers", "400",
                    "mosaic.feed.interval", "10ms"))
            .feed;
    List<FeedSnapshot> published = new ArrayList<>();
    try (FeedSimulator sim = new FeedSimulator(feed, s -> add(published, s), Clock.systemUTC())) {
      sim.publishAll();
      sim.start();
      org.awaitility.Awaitility.await().until(() -> sim.snapshotsPublished() >= 3);
    }
    FeedSnapshot first;
    FeedSnapshot later;
    synchronized (published) {
      first = published.get(0);
      later = published.get(2);
    }
    Map<String, Long> before = prices(first);
    Map<String, Long> after = prices(later);
    assertThat(before.keySet()).as("removed").isNotEqualTo(after.keySet());
    assertThat(after.keySet().stream().filter(id -> !before.containsKey(id)))
        .as("added")
        .isNotEmpty();
    assertThat(
            after.entrySet().stream()
                .filter(e -> before.containsKey(e.getKey()))
                .filter(e -> !before.get(e.getKey()).equals(e.getValue())))
        .as("changed")
        .isNotEmpty();
    assertThat(later.getOffersList())
        .allSatisfy(o -> assertThat(o.getPartnerId()).isEqualTo("partner-001"));
  }

  @Test
  void aContentChangeAltersTheShareOfOffersOverPartnersAndPublishesOnlyTheirSnapshots()
      throws Exception {
    MosaicConfig.Feed feed =
        MosaicConfig.withOverrides(
                Map.of("mosaic.feed.partners", "20", "mosaic.feed.offers", "20000"))
            .feed;
    List<FeedSnapshot> published = new ArrayList<>();
    try (FeedSimulator sim = new FeedSimulator(feed, s -> add(published, s), Clock.systemUTC())) {
      sim.publishAll();
      Map<String, Offer> before = new HashMap<>();
      published.forEach(s -> s.getOffersList().forEach(o -> before.put(o.getOfferId(), o)));
      published.clear();

      FeedSimulator.ContentChange change = sim.changeContent(0.01);

      assertThat(change.changed()).hasSizeBetween(140, 260); // 1% of 20,000, binomial spread
      assertThat(change.partners().size()).as("partners with a change").isGreaterThan(5);
      assertThat(change.changed())
          .allSatisfy(
              c -> {
                Offer old = before.get(c.getOfferId());
                assertThat(old).as("same offer id").isNotNull();
                assertThat(c.getDedupKey()).isEqualTo(old.getDedupKey());
                assertThat(c.getMileageKm()).isGreaterThan(old.getCar().getMileageKm());
                assertThat(change.partners()).contains(c.getPartnerId());
              });
      assertThat(sim.offerCount()).isEqualTo(20000);

      long changes = sim.publishPartners(change.partners());

      assertThat(published.stream().map(FeedSnapshot::getPartnerId).toList())
          .isEqualTo(change.partners());
      Map<String, Offer> after = new HashMap<>();
      published.forEach(s -> s.getOffersList().forEach(o -> after.put(o.getOfferId(), o)));
      for (var c : change.changed()) {
        assertThat(after.get(c.getOfferId()).getCar().getMileageKm()).isEqualTo(c.getMileageKm());
      }
      assertThat(changes).isEqualTo(after.size()); // this sink counts every offer it receives
    }
  }

  @Test
  void publishingAnUnknownPartnerNamesIt() {
    MosaicConfig.Feed feed = MosaicConfig.withOverrides(Map.of("mosaic.feed.offers", "10")).feed;
    try (FeedSimulator sim = new FeedSimulator(feed, s -> 0, Clock.systemUTC())) {
      org.assertj.core.api.Assertions.assertThatThrownBy(
              () -> sim.publishPartners(List.of("partner-001", "nobody")))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("'nobody'");
    }
  }

  private static int add(List<FeedSnapshot> out, FeedSnapshot s) {
    synchronized (out) {
      out.add(s);
    }
    return s.getOffersCount();
  }

  private static Map<String, Long> prices(FeedSnapshot s) {
    return s.getOffersList().stream()
        .collect(Collectors.toMap(Offer::getOfferId, o -> o.getCar().getPriceRub()));
  }
}
