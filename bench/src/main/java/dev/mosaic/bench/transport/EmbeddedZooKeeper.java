package dev.mosaic.bench.transport;

import java.io.Closeable;
import java.io.File;
import java.io.IOException;
import java.net.InetSocketAddress;
import org.apache.zookeeper.server.ServerCnxnFactory;
import org.apache.zookeeper.server.ZooKeeperServer;

/** A real standalone ZooKeeper server in this JVM, on a free loopback port. */
final class EmbeddedZooKeeper implements Closeable {
  private final ServerCnxnFactory factory;
  private final ZooKeeperServer server;

  EmbeddedZooKeeper(File dataDir) throws IOException, InterruptedException {
    server = new ZooKeeperServer(dataDir, dataDir, 2000);
    factory = ServerCnxnFactory.createFactory(new InetSocketAddress("127.0.0.1", 0), 200);
    factory.startup(server);
  }

  String connectString() {
    return "127.0.0.1:" + factory.getLocalPort();
  }

  @Override
  public void close() {
    factory.shutdown();
    server.shutdown();
  }
}
