package dev.mosaic.searcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.searcher.http.HttpApi;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import org.apache.pekko.actor.ActorSystem;
import org.apache.pekko.http.javadsl.Http;
import org.apache.pekko.http.javadsl.ServerBinding;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The query pool and the request body cap over real HTTP: the API bound on an actor system the node
 * does not own (Pekko's own 8 MiB default cap), with a query pool of one thread and a queue of one
 * the test can fill; and a node owning its system receiving a 40 MB body.
 */
class QueryPoolAndBodyCapTest {
  private static final HttpClient HTTP =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private static final Duration BUDGET = Duration.ofSeconds(1);

  @TempDir static Path root;
  @TempDir static Path ownRoot;
  static SearcherNode node;
  static SearcherNode owning;
  static ActorSystem system;
  static ThreadPoolExecutor pool;
  static ServerBinding binding;

  @BeforeAll
  static void start() throws Exception {
    List<CarOffer> cars = CarOfferGenerator.builder().seed(3).build().next(100);
    node =
        SearcherNode.builder(root)
            .port(-1)
            .scanInterval(Duration.ZERO)
            .queryTimeBudget(BUDGET)
            .build();
    node.start();
    SearcherHttpTest.publish(node.store(), 0, 1, cars);
    node.generations().reopen().join();
    pool = new ThreadPoolExecutor(1, 1, 0, TimeUnit.MILLISECONDS, new ArrayBlockingQueue<>(1));
    system = ActorSystem.create("query-pool-test");
    HttpApi api =
        new HttpApi(
            node.searchService(),
            node.generations(),
            node.meterRegistry(),
            List::of,
            pool,
            pool,
            0,
            null,
            1L << 20);
    binding =
        Http.get(system)
            .newServerAt("127.0.0.1", 0)
            .bind(api.route())
            .toCompletableFuture()
            .get(30, TimeUnit.SECONDS);
    owning = SearcherNode.builder(ownRoot).port(0).scanInterval(Duration.ZERO).build();
    owning.start();
    SearcherHttpTest.publish(owning.store(), 0, 1, cars);
    owning.generations().reopen().join();
  }

  @AfterAll
  static void stop() throws Exception {
    if (binding != null) {
      binding.unbind().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
    if (system != null) {
      system.terminate();
    }
    if (pool != null) {
      pool.shutdownNow();
    }
    for (SearcherNode n : new SearcherNode[] {node, owning}) {
      if (n != null) {
        n.close();
      }
    }
  }

  private static CompletableFuture<HttpResponse<String>> post(int port, String body) {
    return HTTP.sendAsync(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/search"))
            .header("Content-Type", "application/json")
            .POST(HttpRequest.BodyPublishers.ofString(body))
            .build(),
        HttpResponse.BodyHandlers.ofString());
  }

  private static int port() {
    return binding.localAddress().getPort();
  }

  /** Occupies the only query thread until the returned latch is counted down. */
  private static CountDownLatch occupyTheQueryThread() throws InterruptedException {
    CountDownLatch release = new CountDownLatch(1);
    CountDownLatch running = new CountDownLatch(1);
    pool.execute(
        () -> {
          running.countDown();
          try {
            release.await();
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          }
        });
    assertThat(running.await(10, TimeUnit.SECONDS)).isTrue();
    return release;
  }

  private static void awaitQueued(int n) {
    await("a query reached the queue")
        .atMost(Duration.ofSeconds(10))
        .pollInterval(Duration.ofMillis(5))
        .until(() -> pool.getQueue().size() >= n);
  }

  @Test
  void aFullQueryQueueAnswers503WithRetryAfter() throws Exception {
    CountDownLatch release = occupyTheQueryThread();
    try {
      CompletableFuture<HttpResponse<String>> queued = post(port(), "{\"limit\": 1}");
      awaitQueued(1);
      HttpResponse<String> r = post(port(), "{\"limit\": 1}").get(10, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(503);
      assertThat(r.headers().firstValue("Retry-After")).hasValue("1");
      assertThat(r.body()).contains("query queue is full");
      release.countDown();
      assertThat(queued.get(10, TimeUnit.SECONDS).statusCode()).isIn(200, 400);
    } finally {
      release.countDown();
    }
  }

  @Test
  void timeWaitingForAQueryThreadCountsAgainstTheBudget() throws Exception {
    CountDownLatch release = occupyTheQueryThread();
    CompletableFuture<HttpResponse<String>> waiting;
    try {
      waiting = post(port(), "{\"limit\": 1}");
      awaitQueued(1);
      long until = System.nanoTime() + BUDGET.toNanos() + TimeUnit.MILLISECONDS.toNanos(50);
      await("the queued query outlived its budget while it waits")
          .atMost(BUDGET.plusSeconds(10))
          .pollInterval(Duration.ofMillis(10))
          .until(() -> System.nanoTime() >= until);
    } finally {
      release.countDown();
    }
    HttpResponse<String> r = waiting.get(10, TimeUnit.SECONDS);
    assertThat(r.statusCode()).isEqualTo(400);
    assertThat(r.body()).contains("over its time budget of 1000 ms waiting for a query thread");
    // a query that does not wait answers normally
    assertThat(post(port(), "{\"limit\": 1}").get(10, TimeUnit.SECONDS).statusCode())
        .isEqualTo(200);
  }

  @Test
  void theBodyCapAppliesOnAnActorSystemTheNodeDoesNotOwnAndTheAnswerAlwaysArrives()
      throws Exception {
    // 2 MiB: under Pekko's default 8 MiB, over the node's configured 1 MiB. Repeated: the answer
    // must arrive every time, not lose a race with the connection's close
    String big =
        "{\"limit\": 1, \"filter\": {\"all\": {}}, \"pad\": \"" + "x".repeat(2 << 20) + "\"}";
    for (int i = 0; i < 20; i++) {
      HttpResponse<String> r = post(port(), big).get(30, TimeUnit.SECONDS);
      assertThat(r.statusCode()).isEqualTo(413);
      assertThat(r.body())
          .contains("over the maximum of " + (1 << 20) + " bytes (maxRequestBytes)");
    }
    // the connection stays usable: a normal query right after
    assertThat(post(port(), "{\"limit\": 1}").get(10, TimeUnit.SECONDS).statusCode())
        .isEqualTo(200);
  }

  @Test
  void aFortyMegabyteBodyGetsA413NotAClosedConnection() throws Exception {
    byte[] head =
        ("POST /search HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                + "Content-Length: "
                + (40L << 20)
                + "\r\n\r\n")
            .getBytes(StandardCharsets.US_ASCII);
    try (Socket s = new Socket("127.0.0.1", owning.port())) {
      s.setSoTimeout(30_000);
      OutputStream out = s.getOutputStream();
      out.write(head);
      CompletableFuture<Void> sending =
          CompletableFuture.runAsync(
              () -> {
                byte[] chunk = new byte[64 << 10];
                try {
                  for (long sent = 0; sent < (40L << 20); sent += chunk.length) {
                    out.write(chunk);
                  }
                  out.flush();
                } catch (java.io.IOException e) {
                  // the server may stop reading once it has answered
                }
              });
      InputStream in = s.getInputStream();
      byte[] status = in.readNBytes(12);
      assertThat(new String(status, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 413");
      sending.cancel(true);
    }
  }
}
