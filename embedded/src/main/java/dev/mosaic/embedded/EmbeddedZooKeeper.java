package dev.mosaic.embedded;

import java.io.File;
import java.io.IOException;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real, single-node ZooKeeper server running in this JVM (Curator's {@link TestingServer}), for
 * tests and the local cluster.
 *
 * <pre>{@code
 * try (EmbeddedZooKeeper zk = EmbeddedZooKeeper.builder().build().start()) {
 *   CuratorFramework client = CuratorFrameworkFactory.newClient(zk.connectString(), retry);
 * }
 * }</pre>
 *
 * <p>Lifecycle: LATENT → STARTED → CLOSED; {@link #start()} and {@link #close()} move it by CAS, so
 * starting twice or after close fails with a clear message, and closing twice is a no-op. {@link
 * #stop()} and {@link #restart()} simulate an outage of a started server.
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class EmbeddedZooKeeper implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedZooKeeper.class);

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final int requestedPort;
  private final Path dataDir;
  private volatile TestingServer server;

  private EmbeddedZooKeeper(Builder builder) {
    this.requestedPort = builder.port;
    this.dataDir = builder.dataDir;
  }

  /** A builder with defaults: an ephemeral port on 127.0.0.1 and a temporary data directory. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Starts the server and waits until it accepts connections.
   *
   * @return this
   * @throws IllegalStateException if already started or closed
   * @throws IOException if the server cannot start (e.g. the fixed port is taken)
   */
  public EmbeddedZooKeeper start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("EmbeddedZooKeeper cannot start: it is " + state.get());
    }
    File dir = dataDir == null ? null : dataDir.toFile();
    // A caller-given data directory survives close; a temporary one is deleted.
    InstanceSpec spec =
        new InstanceSpec(dir, requestedPort > 0 ? requestedPort : -1, -1, -1, dir == null, -1);
    try {
      server = new TestingServer(spec, true);
    } catch (Exception e) {
      state.set(State.CLOSED);
      throw new IOException("ZooKeeper did not start on port " + spec.getPort(), e);
    }
    LOG.info("ZooKeeper started at {}", server.getConnectString());
    return this;
  }

  /**
   * The connect string, {@code 127.0.0.1:<port>}.
   *
   * @throws IllegalStateException unless started
   */
  public String connectString() {
    return started().getConnectString();
  }

  /** The client port. */
  public int port() {
    return started().getPort();
  }

  /**
   * Stops the server without releasing it (clients see a connection loss), until {@link
   * #restart()}. NOTE: sessions may expire while it is stopped.
   */
  public void stop() throws IOException {
    started().stop();
  }

  /** Restarts a {@link #stop() stopped} server on the same port and data directory. */
  public void restart() throws IOException {
    try {
      started().restart();
    } catch (IOException e) {
      throw e;
    } catch (Exception e) {
      throw new IOException("ZooKeeper did not restart", e);
    }
  }

  /** Stops the server and deletes its temporary data directory; idempotent. */
  @Override
  public void close() throws IOException {
    State previous = state.getAndSet(State.CLOSED);
    if (previous == State.STARTED && server != null) {
      server.close();
      LOG.info("ZooKeeper stopped");
    }
  }

  private TestingServer started() {
    if (state.get() != State.STARTED) {
      throw new IllegalStateException("EmbeddedZooKeeper is " + state.get() + ", not STARTED");
    }
    return server;
  }

  /** Configures an {@link EmbeddedZooKeeper}. Not thread safe. */
  public static final class Builder {
    private int port;
    private Path dataDir;

    private Builder() {}

    /** A fixed client port; 0 (the default) picks a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in [0, 65535], got " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * A data directory kept after close (for restarts of the local cluster); by default a temporary
     * directory deleted on close.
     */
    public Builder dataDir(Path dataDir) {
      this.dataDir = dataDir;
      return this;
    }

    /** A LATENT server; call {@link EmbeddedZooKeeper#start()}. */
    public EmbeddedZooKeeper build() {
      return new EmbeddedZooKeeper(this);
    }
  }
}
