package dev.mosaic.partition;

/** The manifest contract in memory; "another process" is the same instance (close is a no-op). */
class InMemoryPartitionManifestTest extends BasePartitionManifestTestCase {
  private PartitionManifest shared;

  @Override
  protected void freshStorage() {
    shared = PartitionManifest.inMemory();
  }

  @Override
  protected PartitionManifest open() {
    return shared;
  }
}
