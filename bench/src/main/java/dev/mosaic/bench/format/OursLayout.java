package dev.mosaic.bench.format;

import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.PartitionGroup;
import java.io.Closeable;
import java.io.IOException;
import java.util.List;

/**
 * Our cars partitions opened in one layout, and the composite a benchmark queries: {@value
 * #GROUPED}, the production path (the {@code mosaic.bench.partitions} partitions, 1024 by default,
 * with consecutive runs merged into {@link CarsData#groupCount()} groups, 32 by default, under
 * {@link CompositeDatabase#grouped}: what a searcher's background grouping serves once its merges
 * are done, at its default of 32 partitions per group); {@value #UNGROUPED}, the same partitions
 * under {@link CompositeDatabase#of}; or a partition count (the same documents in that many
 * partitions, ungrouped).
 *
 * <p>Thread safety: the composite is safe for concurrent queries; open and close on one thread.
 */
final class OursLayout implements Closeable {
  static final String GROUPED = "grouped";
  static final String UNGROUPED = "ungrouped";

  final List<Database> partitions;
  final List<PartitionGroup> groups;
  final CompositeDatabase composite;

  private OursLayout(List<Database> partitions, List<PartitionGroup> groups) {
    this.partitions = partitions;
    this.groups = groups;
    this.composite = CompositeDatabase.grouped(CarsSchema.SCHEMA, partitions, groups);
  }

  /**
   * Opens {@code layout}.
   *
   * @throws IllegalArgumentException when the layout is none of the above
   */
  static OursLayout open(String layout) throws IOException {
    if (layout.equals(GROUPED) || layout.equals(UNGROUPED)) {
      List<Database> partitions = CarsData.openPartitions(CarsData.oursDirectory());
      try {
        return new OursLayout(
            partitions,
            layout.equals(GROUPED)
                ? CarsData.openGroups(partitions, CarsData.groupCount())
                : List.of());
      } catch (IOException | RuntimeException e) {
        partitions.forEach(Database::close);
        throw e;
      }
    }
    int count;
    try {
      count = Integer.parseInt(layout);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "layout must be " + GROUPED + ", " + UNGROUPED + " or a partition count, got " + layout);
    }
    return new OursLayout(CarsData.openPartitions(CarsData.oursDirectory(count), count), List.of());
  }

  @Override
  public void close() {
    groups.forEach(PartitionGroup::close);
    partitions.forEach(Database::close);
  }
}
