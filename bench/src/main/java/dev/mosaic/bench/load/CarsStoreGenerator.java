package dev.mosaic.bench.load;

import dev.mosaic.api.OfferPartitioning;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.bench.progress.Progress;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.io.DurableFiles;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes a searcher store of generated car offers: {@code documents} offers spread over {@code
 * partitions} partitions by dedup key, as version 1 of each partition under {@code
 * store/v{CarsSchema.VERSION}/{partition}/1.mosaic} (the layout of the searcher's partition store).
 * Same seed, same bytes.
 */
public final class CarsStoreGenerator {
  private CarsStoreGenerator() {}

  /**
   * Generates the store.
   *
   * @return total bytes written
   */
  public static long generate(Path store, int documents, int partitions, long seed)
      throws IOException {
    DatabaseBuilder[] builders = new DatabaseBuilder[partitions];
    for (int p = 0; p < partitions; p++) {
      builders[p] = DatabaseBuilder.create(CarsSchema.SCHEMA);
    }
    CarOfferGenerator generator = CarOfferGenerator.builder().seed(seed).build();
    Progress generating = Progress.start("cars store: generating", documents, "documents");
    for (int i = 0; i < documents; i++) {
      CarOffer car = generator.next();
      builders[OfferPartitioning.partitionOf(car.getDedupKey(), partitions)].add(
          CarOffers.toDocument(car));
      generating.advance();
    }
    generating.done();
    Progress writing = Progress.start("cars store: writing", partitions, "partition files");
    long bytes = 0;
    for (int p = 0; p < partitions; p++) {
      bytes += write(store, p, 1, builders[p].toByteArray());
      builders[p] = null;
      writing.advance();
    }
    writing.done();
    return bytes;
  }

  /** A partition file of freshly generated offers, for republishing. */
  public static byte[] partition(List<CarOffer> cars) {
    DatabaseBuilder b = DatabaseBuilder.create(CarsSchema.SCHEMA);
    cars.forEach(c -> b.add(CarOffers.toDocument(c)));
    return b.toByteArray();
  }

  private static long write(Path store, int partition, long version, byte[] bytes)
      throws IOException {
    DurableFiles.write(
        new PartitionLayout(store)
            .file(new PartitionFileId(CarsSchema.VERSION, partition, version)),
        bytes);
    return bytes.length;
  }
}
