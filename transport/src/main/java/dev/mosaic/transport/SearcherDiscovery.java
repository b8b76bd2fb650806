package dev.mosaic.transport;

import dev.mosaic.transport.impl.ZkSearcherDiscovery;
import java.io.Closeable;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;

/**
 * A live, watched view of the searchers registered in ZooKeeper, grouped by datacenter. When
 * ZooKeeper is unreachable the view keeps the last known searchers, so deliveries to them go on.
 *
 * <p>Thread safety: safe for concurrent use; every read returns an immutable snapshot.
 */
public interface SearcherDiscovery extends Closeable {

  /**
   * Watches {@code <zkRoot>/searchers}. Call {@link #start()} before use.
   *
   * @param client a started Curator client; not closed by this view
   */
  static SearcherDiscovery watching(CuratorFramework client, String zkRoot) {
    return new ZkSearcherDiscovery(client, zkRoot);
  }

  /** Starts watching; waits up to a few seconds for the first full view. */
  void start() throws Exception;

  /** Live searchers per datacenter (datacenters without searchers are absent). */
  Map<String, List<SearcherEndpoint>> byDc();

  /** Live searchers of one datacenter, possibly empty. */
  default List<SearcherEndpoint> inDc(String dc) {
    return byDc().getOrDefault(dc, List.of());
  }

  /** Calls {@code listener} (on a Curator thread) after every change of the view. */
  void addListener(Runnable listener);

  /** Stops watching; idempotent. */
  @Override
  void close();
}
