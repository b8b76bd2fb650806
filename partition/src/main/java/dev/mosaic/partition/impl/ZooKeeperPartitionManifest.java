package dev.mosaic.partition.impl;

import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionManifest;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.transaction.CuratorOp;
import org.apache.curator.framework.api.transaction.CuratorTransactionResult;
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
 * {@link CuratorCache}; ownership epochs are the data versions of {@code
 * <root>/manifest-epochs/<partition>}. A fenced write is one ZooKeeper transaction: a version check
 * of the epoch znode plus the conditional write of the record.
 *
 * <p>A write first decides on the record as this manifest last saw it (its own writes and the
 * cache's events, with the znode's data version), so that when nobody else wrote since, it costs
 * one round trip: no read of the record or the epoch before it. When the conditional write fails
 * (another writer, a late cache, a moved epoch) it reads both and decides again; a decision to
 * write nothing is only taken on a fresh read. Nothing deletes record znodes, so a data version
 * names one content.
 *
 * <p>Thread safety: safe for concurrent use, also by several processes.
 */
public final class ZooKeeperPartitionManifest extends CompareAndSetManifest {
  private static final Logger LOG = LoggerFactory.getLogger(ZooKeeperPartitionManifest.class);

  private final CuratorFramework client;
  private final String basePath;
  private final String epochsPath;
  private final CuratorCache cache;
  private final CountDownLatch initialized = new CountDownLatch(1);
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final Map<String, ManifestRecord> byPath = new ConcurrentHashMap<>();

  /** Per record znode, the state this manifest last saw; see {@link Known}. */
  private final Map<String, Known> known = new ConcurrentHashMap<>();

  private final AtomicBoolean started = new AtomicBoolean();

  /** A manifest under {@code <zkRoot>/manifest}; the caller owns (starts, closes) the client. */
  public ZooKeeperPartitionManifest(CuratorFramework client, String zkRoot) {
    this.client = Objects.requireNonNull(client, "client");
    this.basePath = ZKPaths.makePath(zkRoot, "manifest");
    this.epochsPath = ZKPaths.makePath(zkRoot, "manifest-epochs");
    this.cache = CuratorCache.build(client, basePath);
    cache
        .listenable()
        .addListener(
            CuratorCacheListener.builder()
                .forCreatesAndChanges((oldData, data) -> put(data))
                .forDeletes(
                    old -> {
                      known.remove(old.getPath());
                      changed(byPath.remove(old.getPath()) != null);
                    })
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

  private String epochPath(int partition) {
    return ZKPaths.makePath(epochsPath, Integer.toString(partition));
  }

  private void put(ChildData d) {
    if (d.getData() == null || d.getData().length == 0) {
      return; // a schema-version parent
    }
    try {
      ManifestRecord r = ManifestCodec.decode(d.getData(), d.getPath());
      if (d.getStat() != null) {
        seen(d.getPath(), new Known(r, d.getStat().getVersion()));
      }
      byPath.merge(d.getPath(), r, ZooKeeperPartitionManifest::newer);
      changed(true);
    } catch (IllegalArgumentException e) {
      LOG.warn("ignoring unreadable manifest entry: {}", e.getMessage());
    }
  }

  /** The later of two states of one znode (a cache event may arrive after our own write). */
  private static ManifestRecord newer(ManifestRecord a, ManifestRecord b) {
    if (a.id().version() != b.id().version()) {
      return a.id().version() > b.id().version() ? a : b;
    }
    return b;
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
  public long claim(int partition, String owner) throws Exception {
    String path = epochPath(partition);
    byte[] data = owner.getBytes(StandardCharsets.UTF_8);
    while (true) {
      try {
        Stat stat = client.setData().forPath(path, data);
        return stat.getVersion();
      } catch (KeeperException.NoNodeException e) {
        try {
          client.create().creatingParentsIfNeeded().forPath(path, data);
        } catch (KeeperException.NodeExistsException raced) {
          // claimed concurrently: bump again
        }
      }
    }
  }

  @Override
  public long[] claimAll(int[] partitions, String owner) throws Exception {
    if (partitions.length == 0) {
      return new long[0];
    }
    byte[] data = owner.getBytes(StandardCharsets.UTF_8);
    if (client.checkExists().forPath(epochsPath) == null) {
      try {
        client.create().creatingParentsIfNeeded().forPath(epochsPath, new byte[0]);
      } catch (KeeperException.NodeExistsException raced) {
        // created concurrently
      }
    }
    Set<String> existing = new HashSet<>(client.getChildren().forPath(epochsPath));
    List<CuratorOp> creates = new ArrayList<>();
    for (int p : partitions) {
      if (!existing.contains(Integer.toString(p))) {
        creates.add(client.transactionOp().create().forPath(epochPath(p), data));
      }
    }
    if (!creates.isEmpty()) {
      try {
        client.transaction().forOperations(creates);
      } catch (KeeperException.NodeExistsException raced) {
        long[] epochs = new long[partitions.length];
        for (int i = 0; i < partitions.length; i++) {
          epochs[i] = claim(partitions[i], owner);
        }
        return epochs;
      }
    }
    List<CuratorOp> bumps = new ArrayList<>(partitions.length);
    for (int p : partitions) {
      bumps.add(client.transactionOp().setData().forPath(epochPath(p), data));
    }
    List<CuratorTransactionResult> results = client.transaction().forOperations(bumps);
    long[] epochs = new long[partitions.length];
    for (int i = 0; i < partitions.length; i++) {
      epochs[i] = results.get(i).getResultStat().getVersion();
    }
    return epochs;
  }

  /** The partition's current epoch (0 when never claimed). */
  private long epoch(int partition) throws Exception {
    Stat stat = client.checkExists().forPath(epochPath(partition));
    return stat == null ? 0 : stat.getVersion();
  }

  @Override
  Update update(
      int schemaVersion, int partition, long fenceEpoch, UnaryOperator<ManifestRecord> change)
      throws Exception {
    String path = path(schemaVersion, partition);
    // first decide on the state this manifest last saw (its own writes and the cache's events),
    // without a read: when that state is current, the write is one round trip
    Known state = known.get(path);
    boolean confirmed = false;
    while (true) {
      if (state == null) {
        state = read(path);
        confirmed = true;
      }
      ManifestRecord held = state.record();
      ManifestRecord next = change.apply(held);
      if (next == null) {
        if (!confirmed) {
          // the seen state may be behind: decide "nothing to write" only on a fresh read
          state = null;
          continue;
        }
        if (fenceEpoch > 0 && epoch(partition) != fenceEpoch) {
          return new Update(held, false, true);
        }
        return new Update(held, false, false);
      }
      byte[] data = ManifestCodec.encode(next);
      List<CuratorOp> ops = new ArrayList<>(2);
      if (fenceEpoch > 0) {
        // the fence rides in the transaction: no read of the epoch before the write
        ops.add(
            client
                .transactionOp()
                .check()
                .withVersion((int) fenceEpoch)
                .forPath(epochPath(partition)));
      }
      if (held == null) {
        ensureParent(path);
        ops.add(client.transactionOp().create().forPath(path, data));
      } else {
        ops.add(
            client.transactionOp().setData().withVersion(state.zkVersion()).forPath(path, data));
      }
      List<CuratorTransactionResult> results;
      try {
        results = client.transaction().forOperations(ops);
      } catch (KeeperException.BadVersionException
          | KeeperException.NodeExistsException
          | KeeperException.NoNodeException raced) {
        // another writer (or a claim) got in between, or the seen state was behind: read again;
        // a moved epoch fails the check whatever the record holds
        state = read(path);
        confirmed = true;
        if (fenceEpoch > 0 && epoch(partition) != fenceEpoch) {
          return new Update(state.record(), false, true);
        }
        continue;
      }
      Stat written = results.get(results.size() - 1).getResultStat();
      // a created znode's data version is 0
      seen(path, new Known(next, written == null ? 0 : written.getVersion()));
      byPath.merge(path, next, ZooKeeperPartitionManifest::newer);
      changed(true);
      return new Update(next, true, false);
    }
  }

  /** A fresh read of a record and its znode's data version (a null record when there is none). */
  private Known read(String path) throws Exception {
    Stat stat = new Stat();
    try {
      ManifestRecord held =
          ManifestCodec.decode(client.getData().storingStatIn(stat).forPath(path), path);
      byPath.merge(path, held, ZooKeeperPartitionManifest::newer);
      Known k = new Known(held, stat.getVersion());
      known.put(path, k); // a fresh read replaces what was seen
      return k;
    } catch (KeeperException.NoNodeException e) {
      known.remove(path);
      return Known.NONE;
    }
  }

  /**
   * Notes a state of a record's znode seen other than by a fresh read (own writes, cache events,
   * which can arrive late): it only moves what was seen forward.
   */
  private void seen(String path, Known k) {
    known.merge(path, k, (a, b) -> b.zkVersion() > a.zkVersion() ? b : a);
  }

  /**
   * A record as last seen with its znode's data version, the version a conditional write names.
   * NOTE: only a hint: a write based on it fails when the znode moved on, and is then retried on a
   * fresh read.
   */
  private record Known(ManifestRecord record, int zkVersion) {
    static final Known NONE = new Known(null, -1);
  }

  private void ensureParent(String path) throws Exception {
    String parent = ZKPaths.getPathAndNode(path).getPath();
    if (client.checkExists().forPath(parent) == null) {
      try {
        client.create().creatingParentsIfNeeded().forPath(parent, new byte[0]);
      } catch (KeeperException.NodeExistsException raced) {
        // created concurrently
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
