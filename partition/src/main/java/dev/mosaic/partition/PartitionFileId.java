package dev.mosaic.partition;

/**
 * Identity of one partition file: schema version, partition id (0..P-1) and version (monotonic per
 * partition). Immutable.
 */
public record PartitionFileId(int schemaVersion, int partition, long version) {
  public PartitionFileId {
    if (schemaVersion < 0 || partition < 0 || version < 0) {
      throw new IllegalArgumentException(
          "schema version, partition and version must be >= 0: "
              + this.describe(schemaVersion, partition, version));
    }
  }

  private String describe(int s, int p, long v) {
    return "v" + s + "/" + p + "/" + v;
  }

  @Override
  public String toString() {
    return "v" + schemaVersion + "/" + partition + "/" + version;
  }
}
