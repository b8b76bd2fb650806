package dev.mosaic.deploy;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small HTTP server that serves one {@link PrometheusMeterRegistry} at {@code GET /metrics} in
 * the Prometheus text format, for roles without an HTTP API of their own (the indexer). Built on
 * the JDK's {@code com.sun.net.httpserver}, one thread.
 *
 * <p>Lifecycle: LATENT → {@link #start()} → STARTED → {@link #close()} → CLOSED, by CAS.
 *
 * <p>Thread safety: safe for concurrent use. NOTE: it has no authentication; bind it to an
 * interface only the monitoring system reaches.
 */
final class MetricsEndpoint implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(MetricsEndpoint.class);
  private static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final String name;
  private final String host;
  private final int port;
  private final PrometheusMeterRegistry registry;
  private HttpServer server;
  private ExecutorService executor;

  /**
   * A LATENT endpoint.
   *
   * @param name the node it serves, for logs and the thread name
   * @param host interface to bind
   * @param port port to bind, 0 for any free one
   */
  public MetricsEndpoint(String name, String host, int port, PrometheusMeterRegistry registry) {
    this.name = Objects.requireNonNull(name, "name");
    this.host = Objects.requireNonNull(host, "host");
    if (port < 0 || port > 65535) {
      throw new IllegalArgumentException("metrics port of " + name + " out of range: " + port);
    }
    this.port = port;
    this.registry = Objects.requireNonNull(registry, "registry");
  }

  /**
   * Binds and serves.
   *
   * @throws IOException when the address cannot be bound (naming it)
   * @throws IllegalStateException unless LATENT
   */
  public MetricsEndpoint start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("metrics endpoint of " + name + " is " + state.get());
    }
    try {
      server = HttpServer.create(new InetSocketAddress(host, port), 16);
    } catch (IOException e) {
      state.set(State.CLOSED);
      throw new IOException(
          "metrics endpoint of " + name + " cannot bind " + host + ":" + port + ": " + e, e);
    }
    executor =
        Executors.newSingleThreadExecutor(
            Thread.ofPlatform().name(name + "-metrics").daemon().factory());
    server.setExecutor(executor);
    server.createContext("/", this::handle);
    server.start();
    LOG.info("{} serves its metrics at {}", name, url());
    return this;
  }

  private void handle(HttpExchange exchange) throws IOException {
    try (exchange) {
      String path = exchange.getRequestURI().getPath();
      if (!path.equals("/metrics")) {
        reply(exchange, 404, "not found: " + path + " (this endpoint serves only /metrics)\n");
      } else if (!exchange.getRequestMethod().equals("GET")
          && !exchange.getRequestMethod().equals("HEAD")) {
        exchange.getResponseHeaders().set("Allow", "GET, HEAD");
        reply(exchange, 405, "use GET /metrics\n");
      } else {
        reply(exchange, 200, registry.scrape());
      }
    } catch (RuntimeException e) {
      LOG.warn("metrics endpoint of {} failed a request", name, e);
    }
  }

  private static void reply(HttpExchange exchange, int status, String body) throws IOException {
    byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
    exchange.getResponseHeaders().set("Content-Type", CONTENT_TYPE);
    boolean head = exchange.getRequestMethod().equals("HEAD");
    exchange.sendResponseHeaders(status, head ? -1 : bytes.length);
    if (!head) {
      try (OutputStream out = exchange.getResponseBody()) {
        out.write(bytes);
      }
    }
  }

  /** The bound port (the chosen one when started on port 0). */
  public int port() {
    if (server == null) {
      throw new IllegalStateException("metrics endpoint of " + name + " is not started");
    }
    return server.getAddress().getPort();
  }

  /** {@code http://host:port/metrics}. */
  public String url() {
    return "http://" + host + ":" + port() + "/metrics";
  }

  /** Stops serving; idempotent. */
  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) != State.STARTED) {
      return;
    }
    server.stop(0);
    executor.shutdownNow();
  }
}
