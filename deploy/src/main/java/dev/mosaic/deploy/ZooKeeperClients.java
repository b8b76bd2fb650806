package dev.mosaic.deploy;

import dev.mosaic.transport.ZooKeeperSecurity;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * Curator clients as every role of the launcher makes them: the configured session and connection
 * timeouts, exponential backoff between retries (250 ms up to 5 s), and the ZooKeeper digest
 * credential of {@code mosaic.transport.zookeeper} so the znodes they create are writable only by
 * the pipeline's own nodes, over TLS when {@code mosaic.zookeeper.tls.enabled}.
 *
 * <p>Thread safety: stateless.
 */
final class ZooKeeperClients {
  private ZooKeeperClients() {}

  /**
   * A started client, connected within the connection timeout.
   *
   * @throws IOException when ZooKeeper at {@code connect} cannot be reached in time
   */
  static CuratorFramework started(String connect, MosaicConfig config) throws IOException {
    CuratorFramework client =
        ZooKeeperSecurity.fromConfig(config.config())
            .applyTo(
                CuratorFrameworkFactory.builder()
                    .connectString(connect)
                    .sessionTimeoutMs((int) config.zkSessionTimeout.toMillis())
                    .connectionTimeoutMs((int) config.zkConnectionTimeout.toMillis())
                    .zkClientConfig(config.zkTls.clientConfig())
                    .retryPolicy(new ExponentialBackoffRetry(250, 20, 5000)))
            .build();
    client.start();
    try {
      long wait = Math.max(config.zkConnectionTimeout.toMillis(), 5000) * 3;
      if (!client.blockUntilConnected((int) wait, TimeUnit.MILLISECONDS)) {
        client.close();
        throw new IOException("ZooKeeper at " + connect + " not reachable within " + wait + " ms");
      }
    } catch (InterruptedException e) {
      client.close();
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while connecting to ZooKeeper at " + connect, e);
    }
    return client;
  }
}
