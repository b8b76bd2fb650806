package dev.mosaic.bench.load;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The load tool's HTTP client against a real HTTP server: answers of either framing are read,
 * connections are kept and reused, a request waits for a free connection, and a failed connection
 * fails only its own request.
 */
class KeepAliveClientTest {
  private HttpServer server;

  @AfterEach
  void stop() {
    if (server != null) {
      server.stop(0);
    }
  }

  private InetSocketAddress start(com.sun.net.httpserver.HttpHandler handler) throws IOException {
    server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    server.setExecutor(Executors.newFixedThreadPool(4));
    server.createContext("/", handler);
    server.start();
    return server.getAddress();
  }

  /** Answers 200 with a sized body. */
  private static void answer(com.sun.net.httpserver.HttpExchange ex, String body)
      throws IOException {
    byte[] out = body.getBytes(StandardCharsets.UTF_8);
    ex.sendResponseHeaders(200, out.length);
    ex.getResponseBody().write(out);
    ex.close();
  }

  private static byte[] request(String path, String body) {
    return KeepAliveClient.post("127.0.0.1", path, body.getBytes(StandardCharsets.UTF_8));
  }

  @Test
  void echoesManyRequestsOverAFewKeptConnections() throws Exception {
    List<Integer> ports = java.util.Collections.synchronizedList(new ArrayList<>());
    InetSocketAddress address =
        start(
            ex -> {
              ports.add(ex.getRemoteAddress().getPort());
              byte[] in = ex.getRequestBody().readAllBytes();
              byte[] out = ("{\"echo\":" + new String(in, StandardCharsets.UTF_8) + "}").getBytes();
              ex.getResponseHeaders().add("Content-Type", "application/json");
              ex.sendResponseHeaders(
                  ex.getRequestURI().getPath().equals("/missing") ? 404 : 200, 0);
              ex.getResponseBody().write(out); // length 0 above: a chunked answer
              ex.close();
            });
    try (KeepAliveClient client = new KeepAliveClient(address, 2, Duration.ofSeconds(5))) {
      List<CompletableFuture<KeepAliveClient.Response>> answers = new ArrayList<>();
      for (int i = 0; i < 50; i++) {
        answers.add(client.send(request(i == 7 ? "/missing" : "/search", "[" + i + "]")));
      }
      for (int i = 0; i < 50; i++) {
        KeepAliveClient.Response r = answers.get(i).get(10, TimeUnit.SECONDS);
        assertThat(r.status()).isEqualTo(i == 7 ? 404 : 200);
        assertThat(new String(r.body(), StandardCharsets.UTF_8))
            .isEqualTo("{\"echo\":[" + i + "]}");
      }
    }
    assertThat(ports).hasSize(50);
    assertThat(new java.util.HashSet<>(ports)).hasSizeLessThanOrEqualTo(2);
  }

  @Test
  void drainFailsQueuedRequestsAndWaitsForTheOneBeingAnswered() throws Exception {
    CountDownLatch arrived = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    InetSocketAddress address =
        start(
            ex -> {
              ex.getRequestBody().readAllBytes();
              arrived.countDown();
              try {
                release.await(10, TimeUnit.SECONDS);
              } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
              }
              answer(ex, "{}");
            });
    try (KeepAliveClient client = new KeepAliveClient(address, 1, Duration.ofSeconds(5))) {
      CompletableFuture<KeepAliveClient.Response> first = client.send(request("/a", "{}"));
      assertThat(arrived.await(10, TimeUnit.SECONDS)).isTrue();
      CompletableFuture<KeepAliveClient.Response> queued = client.send(request("/b", "{}"));
      CompletableFuture<Integer> drained = new CompletableFuture<>();
      Thread.ofVirtual()
          .start(
              () -> {
                try {
                  drained.complete(client.drain(Duration.ofSeconds(10)));
                } catch (InterruptedException e) {
                  drained.completeExceptionally(e);
                }
              });
      assertThatThrownBy(() -> queued.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasMessageContaining("still queued");
      assertThat(drained).isNotDone(); // the first is still being answered
      release.countDown();
      assertThat(drained.get(10, TimeUnit.SECONDS)).isEqualTo(1);
      assertThat(first).isCompleted();
      assertThat(first.get().status()).isEqualTo(200);
    }
  }

  @Test
  void aConnectionClosedMidAnswerFailsThatRequestOnlyAndTheNextOneReconnects() throws Exception {
    AtomicInteger n = new AtomicInteger();
    InetSocketAddress address =
        start(
            ex -> {
              ex.getRequestBody().readAllBytes();
              if (n.getAndIncrement() == 0) {
                ex.sendResponseHeaders(200, 100); // announces 100 bytes, sends 3, closes
                ex.getResponseBody().write("{\"a".getBytes());
                ex.getResponseBody().flush();
                ex.close();
                return;
              }
              answer(ex, "{\"ok\":1}");
            });
    try (KeepAliveClient client = new KeepAliveClient(address, 1, Duration.ofSeconds(5))) {
      CompletableFuture<KeepAliveClient.Response> broken = client.send(request("/a", "{}"));
      assertThatThrownBy(() -> broken.get(10, TimeUnit.SECONDS))
          .isInstanceOf(ExecutionException.class)
          .hasCauseInstanceOf(IOException.class);
      KeepAliveClient.Response next = client.send(request("/a", "{}")).get(10, TimeUnit.SECONDS);
      assertThat(new String(next.body(), StandardCharsets.UTF_8)).isEqualTo("{\"ok\":1}");
    }
  }

  @Test
  void readsChunkedAndSizedAnswersAndRefusesAnUnframedOne() throws Exception {
    String chunked =
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\n{\"a\r\n4;x=1\r\n\":1}\r\n0\r\n\r\n";
    KeepAliveClient.Response r =
        KeepAliveClient.readResponse(new ByteArrayInputStream(chunked.getBytes()));
    assertThat(r.status()).isEqualTo(200);
    assertThat(new String(r.body())).isEqualTo("{\"a\":1}");
    String sized = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 2\r\n\r\n{}";
    assertThat(KeepAliveClient.readResponse(new ByteArrayInputStream(sized.getBytes())).status())
        .isEqualTo(503);
    String unframed = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello";
    assertThatThrownBy(
            () -> KeepAliveClient.readResponse(new ByteArrayInputStream(unframed.getBytes())))
        .isInstanceOf(IOException.class)
        .hasMessageContaining("neither Content-Length nor chunked");
  }
}
