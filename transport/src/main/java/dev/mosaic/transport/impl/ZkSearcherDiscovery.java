package dev.mosaic.transport.impl;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.transport.SearcherDiscovery;
import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.wire.SearcherRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.utils.ZKPaths;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link SearcherDiscovery} over a {@link CuratorCache} of {@code <root>/searchers/<dc>/<node>}
 * ephemeral znodes holding {@link SearcherRecord}s. The cache keeps its content while the
 * connection is lost, so the last known searchers stay usable. Thread safety: safe for concurrent
 * use; reads return immutable snapshots.
 */
public final class ZkSearcherDiscovery implements SearcherDiscovery {
  private static final Logger LOG = LoggerFactory.getLogger(ZkSearcherDiscovery.class);

  private final String basePath;
  private final CuratorCache cache;
  private final CountDownLatch initialized = new CountDownLatch(1);
  private final List<Runnable> listeners = new CopyOnWriteArrayList<>();
  private final AtomicBoolean started = new AtomicBoolean();
  private volatile Map<String, List<SearcherEndpoint>> view = Map.of();

  public ZkSearcherDiscovery(CuratorFramework client, String zkRoot) {
    this.basePath = searchersPath(zkRoot);
    this.cache = CuratorCache.build(client, basePath);
    cache
        .listenable()
        .addListener(
            CuratorCacheListener.builder()
                .forAll((type, oldData, data) -> refresh())
                .forInitialized(
                    () -> {
                      refresh();
                      initialized.countDown();
                    })
                .build());
  }

  /** {@code <zkRoot>/searchers}. */
  public static String searchersPath(String zkRoot) {
    return ZKPaths.makePath(zkRoot, "searchers");
  }

  @Override
  public void start() throws InterruptedException {
    if (!started.compareAndSet(false, true)) {
      throw new IllegalStateException("discovery of " + basePath + " already started");
    }
    cache.start();
    if (!initialized.await(5, TimeUnit.SECONDS)) {
      LOG.warn("no full view of {} after 5 s (ZooKeeper unreachable?); going on", basePath);
    }
  }

  private void refresh() {
    Map<String, List<SearcherEndpoint>> next = new TreeMap<>();
    cache.stream()
        .forEach(
            (ChildData d) -> {
              String rel = d.getPath().substring(Math.min(d.getPath().length(), basePath.length()));
              // "/<dc>/<node>": exactly two levels below the base.
              if (rel.chars().filter(c -> c == '/').count() != 2 || d.getData() == null) {
                return;
              }
              try {
                SearcherRecord r = SearcherRecord.parseFrom(d.getData());
                next.computeIfAbsent(r.getDc(), k -> new ArrayList<>())
                    .add(
                        new SearcherEndpoint(
                            r.getNodeId(),
                            r.getDc(),
                            r.getTransportHost(),
                            r.getTransportPort(),
                            r.getHttpAddress()));
              } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
                LOG.warn(
                    "ignoring unreadable searcher registration {}: {}", d.getPath(), e.toString());
              }
            });
    next.replaceAll((dc, list) -> List.copyOf(list));
    view = Map.copyOf(next);
    for (Runnable l : listeners) {
      try {
        l.run();
      } catch (RuntimeException e) {
        LOG.warn("discovery listener failed", e);
      }
    }
  }

  @Override
  public Map<String, List<SearcherEndpoint>> byDc() {
    return view;
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
