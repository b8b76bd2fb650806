package dev.mosaic.indexer;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.format.ChangeSet;
import dev.mosaic.format.Database;
import dev.mosaic.partition.ChangeSetFile;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The change set a rebuild keeps beside its file: replayed on the base file it gives the file byte
 * for byte, and for a 1% change of car offers it is about the size of the changed offers, not of
 * the file. Seeded: reproduce with {@code -Dtests.seed=<seed>}.
 */
class PartitionBuildChangeSetTest {
  private static final long SEED = Long.getLong("tests.seed", System.nanoTime());

  @TempDir Path dir;

  @Test
  void theKeptChangeSetRebuildsEachVersionFromItsBaseByteForByte() throws Exception {
    System.out.println("PartitionBuildChangeSetTest seed " + SEED);
    SplittableRandom random = new SplittableRandom(SEED);
    List<CarOffer> cars = KafkaTestSupport.cars(SEED, 2000);
    PartitionState s = new PartitionState(3);
    PartitionLayout layout = new PartitionLayout(dir.resolve("out"));
    long changedBytes = 0;
    long changeSetBytes = 0;
    long fileBytes = 0;
    for (int round = 1; round <= 6; round++) {
      long changed = change(s, cars, random, round == 1 ? cars.size() : cars.size() / 100);
      PartitionState.Plan plan = s.plan();
      PartitionFileId id = new PartitionFileId(CarsSchema.VERSION, 3, round);
      Path file = layout.file(id);
      Files.createDirectories(file.getParent());
      PartitionBuild.Result built;
      try (Database base = plan.base() == null ? null : Database.open(layout.file(plan.base()))) {
        built = PartitionBuild.write(plan, CarsSchema.SCHEMA, base, id, file, false);
      }
      s.commit(plan, built.merged());
      if (round == 1) {
        assertThat(ChangeSetFile.read(file)).as("a first build has no base").isEmpty();
        continue;
      }
      ChangeSetFile kept = ChangeSetFile.read(file).orElseThrow();
      assertThat(kept.baseVersion()).isEqualTo(plan.base().version());
      Path rebuilt = dir.resolve("rebuilt-" + round);
      try (Database base = Database.open(layout.file(plan.base()))) {
        ChangeSet.decode(base.schema(), kept.changes()).applyTo(base, rebuilt, false);
      }
      assertThat(Files.readAllBytes(rebuilt))
          .as("seed %d round %d", SEED, round)
          .isEqualTo(Files.readAllBytes(file));
      changedBytes += changed;
      changeSetBytes += kept.changes().length;
      fileBytes += Files.size(file);
    }
    System.out.printf(
        "PartitionBuildChangeSetTest: 1%% of %d car offers changed per round: change sets %d bytes"
            + " for %d bytes of changed offers (%.2f per changed byte), files %d bytes%n",
        cars.size(),
        changeSetBytes,
        changedBytes,
        (double) changeSetBytes / changedBytes,
        fileBytes);
    assertThat(changeSetBytes).isLessThanOrEqualTo(3 * changedBytes);
    assertThat(changeSetBytes).isLessThan(fileBytes / 20);
  }

  /** Upserts (price changes) and removals of random offers; returns the upserted offers' bytes. */
  private static long change(
      PartitionState s, List<CarOffer> cars, SplittableRandom random, int count) {
    long bytes = 0;
    for (int i = 0; i < count; i++) {
      int c = count == cars.size() ? i : random.nextInt(cars.size());
      long key = c * 0x9E3779B97F4A7C15L;
      if (count != cars.size() && random.nextInt(10) == 0) {
        s.remove(key);
      } else {
        CarOffer car = cars.get(c).toBuilder().setPriceRub(random.nextInt(1000) * 1000 + c).build();
        byte[] value = CarOffers.toOffer(car, 1L).toByteArray();
        s.put(key, value);
        bytes += value.length;
      }
    }
    return bytes;
  }
}
