package dev.mosaic.transport;

import dev.mosaic.transport.impl.ZkPartitionManifest;
import java.io.Closeable;
import java.util.Collection;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;

/**
 * The partition manifest in ZooKeeper: the latest version of every partition per schema version,
 * with its size and checksum, under {@code <zkRoot>/manifest/v<schema>/<partition>}. {@link
 * TransportSender} advances it once a first datacenter accepted a version (setting {@code
 * write-manifest}); searchers read it to catch up.
 *
 * <p>Thread safety: safe for concurrent use. Reads come from a watched local copy and keep working
 * while ZooKeeper is away.
 */
public interface PartitionManifest extends Closeable {

  /**
   * A manifest over {@code <zkRoot>/manifest}. Call {@link #start()} before use.
   *
   * @param client a started Curator client; not closed by the manifest
   */
  static PartitionManifest inZooKeeper(CuratorFramework client, String zkRoot) {
    return new ZkPartitionManifest(client, zkRoot);
  }

  /** Starts watching; waits up to a few seconds for the first full copy. */
  void start() throws Exception;

  /**
   * Records {@code record} as the latest version of its partition unless the manifest already holds
   * that version or a newer one (compare-and-set on the znode version; safe against concurrent
   * writers).
   *
   * @return true when the manifest advanced
   * @throws Exception when ZooKeeper cannot be reached within the client's retry policy
   */
  boolean advance(ManifestRecord record) throws Exception;

  /** The latest known version of one partition. */
  Optional<ManifestRecord> latest(int schemaVersion, int partition);

  /** Every partition's latest known version, all schema versions. */
  Collection<ManifestRecord> all();

  /** Calls {@code listener} (on a Curator thread) after every change. */
  void addListener(Runnable listener);

  /** Stops watching; idempotent. */
  @Override
  void close();
}
