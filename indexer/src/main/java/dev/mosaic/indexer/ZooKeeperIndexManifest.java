package dev.mosaic.indexer;

import dev.mosaic.partition.PartitionFileId;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Objects;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * An {@link IndexManifest} in ZooKeeper: one znode per partition and schema version, {@code
 * <basePath>/v<schema>/<partition>}, holding the version, fingerprint, document count and creation
 * time (28 bytes, big-endian). Recording is a compare-and-set on the znode's data version.
 *
 * <p>Thread safety: safe for concurrent use from any number of threads and processes. NOTE: the
 * caller owns the Curator client (starts and closes it).
 */
public final class ZooKeeperIndexManifest implements IndexManifest {
  /** The default base path. */
  public static final String DEFAULT_BASE_PATH = "/mosaic/index-manifest";

  private static final int SIZE = 28;
  private final CuratorFramework client;
  private final String basePath;

  /** A manifest under {@link #DEFAULT_BASE_PATH}. */
  public ZooKeeperIndexManifest(CuratorFramework client) {
    this(client, DEFAULT_BASE_PATH);
  }

  /** A manifest under a base path (e.g. one per environment). */
  public ZooKeeperIndexManifest(CuratorFramework client, String basePath) {
    this.client = Objects.requireNonNull(client, "client");
    this.basePath = Objects.requireNonNull(basePath, "basePath");
  }

  @Override
  public Optional<Entry> latest(int schemaVersion, int partition) throws IOException {
    String path = path(schemaVersion, partition);
    try {
      byte[] data = client.getData().forPath(path);
      return Optional.of(decode(schemaVersion, partition, data, path));
    } catch (KeeperException.NoNodeException e) {
      return Optional.empty();
    } catch (Exception e) {
      throw new IOException("could not read manifest entry " + path, e);
    }
  }

  @Override
  public boolean record(Entry entry) throws IOException {
    PartitionFileId id = entry.id();
    String path = path(id.schemaVersion(), id.partition());
    byte[] data = encode(entry);
    try {
      while (true) {
        Stat stat = new Stat();
        byte[] current;
        try {
          current = client.getData().storingStatIn(stat).forPath(path);
        } catch (KeeperException.NoNodeException e) {
          try {
            client.create().creatingParentsIfNeeded().forPath(path, data);
            return true;
          } catch (KeeperException.NodeExistsException raced) {
            continue;
          }
        }
        Entry existing = decode(id.schemaVersion(), id.partition(), current, path);
        if (existing.id().version() >= id.version()) {
          return false;
        }
        try {
          client.setData().withVersion(stat.getVersion()).forPath(path, data);
          return true;
        } catch (KeeperException.BadVersionException raced) {
          // another writer got in between: re-read and compare again
        }
      }
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("could not record manifest entry " + path, e);
    }
  }

  private String path(int schemaVersion, int partition) {
    return basePath + "/v" + schemaVersion + "/" + partition;
  }

  private static byte[] encode(Entry e) {
    return ByteBuffer.allocate(SIZE)
        .putLong(e.id().version())
        .putLong(e.fingerprint())
        .putInt(e.documents())
        .putLong(e.createdAtMillis())
        .array();
  }

  private static Entry decode(int schemaVersion, int partition, byte[] data, String path)
      throws IOException {
    if (data == null || data.length != SIZE) {
      throw new IOException(
          "manifest entry "
              + path
              + " has "
              + (data == null ? "no data" : data.length + " bytes")
              + ", expected "
              + SIZE);
    }
    ByteBuffer b = ByteBuffer.wrap(data);
    long version = b.getLong();
    long fingerprint = b.getLong();
    int documents = b.getInt();
    long created = b.getLong();
    return new Entry(
        new PartitionFileId(schemaVersion, partition, version), fingerprint, documents, created);
  }

  @Override
  public String toString() {
    return "ZooKeeperIndexManifest{" + basePath + "}";
  }
}
