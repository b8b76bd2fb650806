package dev.mosaic.indexer;

import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import java.util.Collection;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A real manifest whose {@link #record} throws while {@link #failing} is set, as when ZooKeeper is
 * unreachable: counts the attempts. Everything else goes to the wrapped manifest.
 */
final class FailingManifest implements PartitionManifest {
  private final PartitionManifest delegate;
  private final AtomicInteger failedRecords = new AtomicInteger();
  private volatile boolean failing;

  FailingManifest(PartitionManifest delegate) {
    this.delegate = delegate;
  }

  void failing(boolean failing) {
    this.failing = failing;
  }

  int failedRecords() {
    return failedRecords.get();
  }

  @Override
  public Recorded record(ManifestRecord record) throws Exception {
    if (failing) {
      failedRecords.incrementAndGet();
      throw new java.io.IOException("manifest unreachable (test)");
    }
    return delegate.record(record);
  }

  @Override
  public void start() throws Exception {
    delegate.start();
  }

  @Override
  public long claim(int partition, String owner) throws Exception {
    return delegate.claim(partition, owner);
  }

  @Override
  public long[] claimAll(int[] partitions, String owner) throws Exception {
    return delegate.claimAll(partitions, owner);
  }

  @Override
  public boolean advance(ManifestRecord record) throws Exception {
    return delegate.advance(record);
  }

  @Override
  public void delivered(PartitionFileId id, Collection<String> datacenters) throws Exception {
    delegate.delivered(id, datacenters);
  }

  @Override
  public Optional<ManifestRecord> latest(int schemaVersion, int partition) {
    return delegate.latest(schemaVersion, partition);
  }

  @Override
  public Collection<ManifestRecord> all() {
    return delegate.all();
  }

  @Override
  public void addListener(Runnable listener) {
    delegate.addListener(listener);
  }

  @Override
  public void close() {}
}
