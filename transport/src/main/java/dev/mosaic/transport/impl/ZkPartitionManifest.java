package dev.mosaic.transport.impl;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.transport.ManifestRecord;
import dev.mosaic.transport.PartitionManifest;
import dev.mosaic.transport.wire.ManifestEntry;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link PartitionManifest} as znodes {@code <root>/manifest/v<schema>/<partition>}, read through a
 * {@link CuratorCache}. Thread safety: safe for concurrent use.
 */
public final class ZkPartitionManifest implements PartitionManifest {
  private static final Logger LOG = LoggerFactory.getLogger(ZkPartitionManifest.class);

  private final CuratorFramework client;
  private final String basePath;
  private final CuratorCache cache;
  private final CountDownLatch initialized = new CountDownLatch(1);
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final Map<String, ManifestRecord> byPath = new ConcurrentHashMap<>();
  private final AtomicBoolean started = new AtomicBoolean();

  public ZkPartitionManifest(CuratorFramework client, String zkRoot) {
    this.client = client;
    this.basePath = ZKPaths.makePath(zkRoot, "manifest");
    this.cache = CuratorCache.build(client, basePath);
    cache
        .listenable()
        .addListener(
            CuratorCacheListener.builder()
                .forCreatesAndChanges((oldData, data) -> put(data))
                .forDeletes(old -> changed(byPath.remove(old.getPath()) != null))
                .forInitialized(
                    () -> {
                      initialized.countDown();
                      changed(true);
                    })
                .build());
  }

  private String path(int schemaVersion, int partition) {
    return ZKPaths.makePath(basePath, "v" + schemaVersion, Integer.toString(partition));
  }

  private void put(ChildData d) {
    if (d.getData() == null || d.getData().length == 0) {
      return; // a schema-version parent
    }
    try {
      byPath.put(d.getPath(), fromWire(ManifestEntry.parseFrom(d.getData())));
      changed(true);
    } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
      LOG.warn("ignoring unreadable manifest entry {}: {}", d.getPath(), e.toString());
    }
  }

  private void changed(boolean really) {
    if (!really || initialized.getCount() > 0) {
      return;
    }
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        LOG.warn("manifest listener failed", e);
      }
    }
  }

  static ManifestRecord fromWire(ManifestEntry e) {
    return new ManifestRecord(
        new PartitionFileId(e.getSchemaVersion(), e.getPartition(), e.getVersion()),
        e.getSize(),
        e.getCrc32C(),
        e.getAcceptedAtMillis(),
        e.getAcceptedBy());
  }

  static ManifestEntry toWire(ManifestRecord r) {
    return ManifestEntry.newBuilder()
        .setSchemaVersion(r.id().schemaVersion())
        .setPartition(r.id().partition())
        .setVersion(r.id().version())
        .setSize(r.size())
        .setCrc32C(r.crc32c())
        .setAcceptedAtMillis(r.acceptedAtMillis())
        .setAcceptedBy(r.acceptedBy())
        .build();
  }

  @Override
  public void start() throws InterruptedException {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("manifest " + basePath + " already started");
    }
    cache.start();
    if (!initialized.await(5, TimeUnit.SECONDS)) {
      LOG.warn("no full copy of {} after 5 s (ZooKeeper unreachable?); going on", basePath);
    }
  }

  @Override
  public boolean advance(ManifestRecord record) throws Exception {
    String path = path(record.id().schemaVersion(), record.id().partition());
    byte[] data = toWire(record).toByteArray();
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
      ManifestEntry held = ManifestEntry.parseFrom(current);
      if (held.getVersion() >= record.id().version()) {
        return false;
      }
      try {
        client.setData().withVersion(stat.getVersion()).forPath(path, data);
        return true;
      } catch (KeeperException.BadVersionException raced) {
        // another writer advanced it meanwhile: compare again
      }
    }
  }

  @Override
  public Optional<ManifestRecord> latest(int schemaVersion, int partition) {
    return Optional.ofNullable(byPath.get(path(schemaVersion, partition)));
  }

  @Override
  public Collection<ManifestRecord> all() {
    return List.copyOf(byPath.values());
  }

  @Override
  public void addListener(Runnable listener) {
    listeners.add(listener);
  }

  @Override
  public void close() {
    cache.close();
  }
}
