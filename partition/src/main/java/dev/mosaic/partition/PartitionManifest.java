package dev.mosaic.partition;

import dev.mosaic.partition.impl.InMemoryPartitionManifest;
import dev.mosaic.partition.impl.ZooKeeperPartitionManifest;
import java.io.Closeable;
import java.util.Collection;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;

/**
 * The one version manifest: the latest version of every partition per schema version, with what the
 * file is, who recorded it and where it was delivered (a {@link ManifestRecord}). Indexers {@link
 * #record} the versions they build (fenced by an ownership epoch they {@link #claim}ed), the
 * transport marks them {@link #advance accepted} once a first datacenter holds them, the indexer
 * notes the datacenters that hold them ({@link #delivered}), and searchers read it to catch up.
 * Every change goes through one compare-and-set loop; versions only go up.
 *
 * <p>In ZooKeeper: records under {@code <zkRoot>/manifest/v<schema>/<partition>} (protobuf {@code
 * mosaic.partition.v1.ManifestEntry}), epochs under {@code <zkRoot>/manifest-epochs/<partition>}
 * (the epoch is that znode's data version, bumped by every claim).
 *
 * <p>Thread safety: safe for concurrent use, also by several processes. Reads come from a watched
 * local copy and keep working while ZooKeeper is away; writes need ZooKeeper.
 */
public interface PartitionManifest extends Closeable {

  /**
   * A manifest over {@code <zkRoot>/manifest}. Call {@link #start()} before use.
   *
   * @param client a started Curator client; not closed by the manifest
   */
  static PartitionManifest inZooKeeper(CuratorFramework client, String zkRoot) {
    return new ZooKeeperPartitionManifest(client, zkRoot);
  }

  /** A manifest in this JVM's memory, for benchmarks, tools and tests; nothing survives it. */
  static PartitionManifest inMemory() {
    return new InMemoryPartitionManifest();
  }

  /** What {@link #record} did. */
  enum Outcome {
    /** The record is now the partition's latest version. */
    RECORDED,
    /** Nothing written: the manifest already holds that version or a newer one. */
    NOT_NEWER,
    /** Nothing written: another writer claimed the partition after the record's epoch. */
    FENCED
  }

  /**
   * The result of {@link #record}.
   *
   * @param held the partition's latest record after the call, if any
   */
  record Recorded(Outcome outcome, Optional<ManifestRecord> held) {}

  /** Starts watching; waits up to a few seconds for the first full copy. */
  void start() throws Exception;

  /**
   * Takes ownership of a partition (all schema versions): bumps and returns its ownership epoch.
   * From then on {@link #record} refuses records carrying an older epoch, so a writer that lost the
   * partition without noticing cannot record versions.
   *
   * @param owner who claims (kept for diagnosis)
   * @return the new epoch, >= 1
   */
  long claim(int partition, String owner) throws Exception;

  /**
   * {@link #claim}s several partitions at once (in ZooKeeper: one transaction), e.g. all index
   * partitions of a Kafka partition just assigned.
   *
   * @return the new epochs, in the order of {@code partitions}
   */
  default long[] claimAll(int[] partitions, String owner) throws Exception {
    long[] epochs = new long[partitions.length];
    for (int i = 0; i < partitions.length; i++) {
      epochs[i] = claim(partitions[i], owner);
    }
    return epochs;
  }

  /**
   * Records a newly built version, in one compare-and-set: only if it is newer than the held one
   * and, when {@code record.epoch() > 0}, only while that is still the partition's epoch. The
   * datacenters' known versions carry over from the held record.
   */
  Recorded record(ManifestRecord record) throws Exception;

  /**
   * Marks a version accepted by a first datacenter (the transport's sender calls this): sets the
   * held record's acceptance if it holds that version and is not yet accepted; records it as the
   * latest version if the manifest holds only older ones (a sender used without an indexer). Also
   * notes the record's {@link ManifestRecord#delivered() delivered} datacenters, as {@link
   * #delivered} does (their known versions only go up), so that a sender can state both facts in
   * one write. Never fenced: it states a fact about a version some writer recorded.
   *
   * @return true when the manifest changed
   */
  boolean advance(ManifestRecord record) throws Exception;

  /** Notes that these datacenters hold version {@code id} (their known versions only go up). */
  void delivered(PartitionFileId id, Collection<String> datacenters) throws Exception;

  /** The latest known version of one partition. */
  Optional<ManifestRecord> latest(int schemaVersion, int partition);

  /** Every partition's latest known version, all schema versions. */
  Collection<ManifestRecord> all();

  /** Calls {@code listener} (on a manifest thread) after every change. */
  void addListener(Runnable listener);

  /** Stops watching; idempotent. */
  @Override
  void close();
}
