package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionStateTest {
  @TempDir Path dir;

  @Test
  void putReportsChangesOnlyAndRemoveForgets() {
    PartitionState s = new PartitionState(7);
    assertThat(s.put(1L, bytes("a"))).isTrue();
    assertThat(s.put(1L, bytes("a"))).isFalse();
    assertThat(s.put(1L, bytes("b"))).isTrue();
    assertThat(s.size()).isEqualTo(1);
    assertThat(s.remove(2L)).isFalse();
    assertThat(s.remove(1L)).isTrue();
    assertThat(s.remove(1L)).isFalse();
    assertThat(s.size()).isZero();
    assertThat(s.fingerprint()).isZero();
  }

  @Test
  void fingerprintDependsOnContentNotOnArrivalOrder() {
    PartitionState a = new PartitionState(0);
    PartitionState b = new PartitionState(0);
    a.put(1L, bytes("x"));
    a.put(2L, bytes("y"));
    b.put(2L, bytes("old"));
    b.put(1L, bytes("x"));
    assertThat(a.fingerprint()).isNotEqualTo(b.fingerprint());
    b.put(2L, bytes("y"));
    assertThat(a.fingerprint()).isEqualTo(b.fingerprint());
  }

  /**
   * Rounds of random upserts and removals, each followed by a rebuild by merge on the previous
   * file, with more changes arriving between reading the state and committing the new file: every
   * file equals a from-scratch build of the reference content in key-hash order, and once built the
   * state holds no offer bytes.
   */
  @Test
  void rebuildsByMergeEqualFromScratchBuildsAndTheStateKeepsNoOfferBytes() throws Exception {
    long seed = new SplittableRandom().nextLong();
    SplittableRandom random = new SplittableRandom(seed);
    List<CarOffer> cars = KafkaTestSupport.cars(seed, 300);
    PartitionState s = new PartitionState(3);
    TreeMap<Long, byte[]> reference = new TreeMap<>();
    PartitionLayout layout = new PartitionLayout(dir);
    for (int round = 1; round <= 12; round++) {
      int changes = round == 1 ? 200 : random.nextInt(1, 40);
      change(s, reference, cars, random, changes);
      PartitionState.Plan plan = s.plan();
      TreeMap<Long, byte[]> planned = new TreeMap<>(reference);
      // changes after the rebuild read the state stay pending after its commit
      change(s, reference, cars, random, random.nextInt(0, 4));
      PartitionFileId id = new PartitionFileId(CarsSchema.VERSION, 3, round);
      Path file = layout.file(id);
      Files.createDirectories(file.getParent());
      PartitionBuild.Result built;
      try (Database base = plan.base() == null ? null : Database.open(layout.file(plan.base()))) {
        built = PartitionBuild.write(plan, CarsSchema.SCHEMA, base, id, file, true);
        assertThat(Files.readAllBytes(file))
            .as("seed %d round %d", seed, round)
            .isEqualTo(fromScratch(planned, base));
      }
      if (round > 1) {
        assertThat(built.summary().carriedOver()).as("seed %d round %d", seed, round).isPositive();
      }
      s.commit(plan, built.merged());
      assertThat(s.base()).isEqualTo(id);
    }
    change(s, reference, cars, random, 0);
    PartitionState.Plan last = s.plan();
    assertThat(last.changedKeys().length).isLessThanOrEqualTo(3);
    assertThat(s.size()).as("seed %d", seed).isEqualTo(reference.size());
    assertThat(s.liveBytes())
        .as("seed %d", seed)
        .isEqualTo(reference.values().stream().mapToLong(v -> v.length).sum());
    assertThat(s.heapBytes())
        .as("seed %d: the base holds no offer bytes", seed)
        .isLessThan(s.liveBytes() / 4 + 4096);
    PartitionState fresh = new PartitionState(3);
    reference.forEach(fresh::put);
    assertThat(s.fingerprint()).as("seed %d", seed).isEqualTo(fresh.fingerprint());
  }

  @Test
  void aRestoredPartitionAdoptsTheMatchingFileAndDropsTheOfferBytes() throws Exception {
    List<CarOffer> cars = KafkaTestSupport.cars(41, 50);
    PartitionState built = new PartitionState(1);
    TreeMap<Long, byte[]> reference = new TreeMap<>();
    for (int i = 0; i < cars.size(); i++) {
      byte[] v = CarOffers.toOffer(cars.get(i), 1L).toByteArray();
      built.put(i * 7919L, v);
      reference.put(i * 7919L, v);
    }
    built.remove(0L);
    reference.remove(0L);
    PartitionFileId id = new PartitionFileId(CarsSchema.VERSION, 1, 5);
    Path file = new PartitionLayout(dir).file(id);
    Files.createDirectories(file.getParent());
    PartitionBuild.write(built.plan(), CarsSchema.SCHEMA, null, id, file, true);

    PartitionState restored = new PartitionState(1);
    reference.forEach(restored::put);
    assertThat(restored.adopt(id, reference.size() + 1)).as("document count differs").isFalse();
    assertThat(restored.adopt(id, reference.size())).isTrue();
    assertThat(restored.pendingChanges()).isZero();
    assertThat(restored.heapBytes()).isLessThan(restored.liveBytes() / 4);
    byte[] changed =
        CarOffers.toOffer(cars.get(3).toBuilder().setPriceRub(1).build(), 1L).toByteArray();
    restored.put(3 * 7919L, changed);
    reference.put(3 * 7919L, changed);
    PartitionFileId next = new PartitionFileId(CarsSchema.VERSION, 1, 6);
    Path nextFile = new PartitionLayout(dir).file(next);
    try (Database base = Database.open(file)) {
      PartitionBuild.Result r =
          PartitionBuild.write(restored.plan(), CarsSchema.SCHEMA, base, next, nextFile, true);
      assertThat(r.summary().carriedOver()).isEqualTo(reference.size() - 1);
      assertThat(Files.readAllBytes(nextFile)).isEqualTo(fromScratch(reference, base));
    }
  }

  private static void change(
      PartitionState s,
      Map<Long, byte[]> reference,
      List<CarOffer> cars,
      SplittableRandom random,
      int count) {
    for (int i = 0; i < count; i++) {
      int c = random.nextInt(cars.size());
      long key = c * 0x9E3779B97F4A7C15L;
      if (random.nextInt(4) == 0) {
        s.remove(key);
        reference.remove(key);
      } else {
        CarOffer car = cars.get(c).toBuilder().setPriceRub(random.nextInt(3) * 1000 + c).build();
        byte[] value = CarOffers.toOffer(car, 1L).toByteArray();
        s.put(key, value);
        reference.put(key, value);
      }
    }
  }

  /** A fresh build of the content, with the base's payload dictionary (kept by an update). */
  private static byte[] fromScratch(TreeMap<Long, byte[]> content, Database base) throws Exception {
    DatabaseBuilder b = DatabaseBuilder.create(CarsSchema.SCHEMA);
    if (base != null) {
      b.payloadDictionaryOf(base);
    }
    List<Long> keys = new ArrayList<>(content.keySet());
    keys.sort(Long::compare);
    for (long k : keys) {
      b.add(OfferDocuments.toDocument(CarsSchema.SCHEMA, Offer.parseFrom(content.get(k))));
    }
    return b.toByteArray();
  }

  private static byte[] bytes(String s) {
    return s.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }
}
