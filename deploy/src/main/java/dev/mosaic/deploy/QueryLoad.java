package dev.mosaic.deploy;

import java.io.Closeable;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Queries searchers over HTTP, as a client would, and counts the answers: one thread per searcher
 * cycling through {@link #QUERIES}, pausing between queries. An answer is ok when it is HTTP 200;
 * anything else (another status, a connection error, a timeout) is a failure and is logged.
 *
 * <p>Thread safety: the counters are safe from any thread.
 */
public final class QueryLoad implements Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(QueryLoad.class);

  /** A query: the endpoint path and its JSON body. */
  public record Sample(String path, String body) {}

  /** The queries cycled through, valid for the cars schema. */
  public static final List<Sample> QUERIES =
      List.of(
          new Sample(
              "/search",
              "{\"filter\": {\"eq\": {\"mark\": \"toyota\"}}, \"orderBy\": [\"price\"],"
                  + " \"limit\": 5, \"payload\": false}"),
          new Sample(
              "/count",
              "{\"filter\": {\"and\": [{\"eq\": {\"region\": \"moskva\"}},"
                  + " {\"gte\": {\"year\": 2015}}]}}"),
          new Sample(
              "/search",
              "{\"filter\": {\"and\": [{\"in\": {\"mark\": [\"bmw\", \"audi\", \"mercedes-benz\"]}},"
                  + " {\"between\": {\"price\": [1000000, 4000000]}}]},"
                  + " \"orderBy\": [\"-published\"], \"limit\": 10, \"fields\": [\"price\","
                  + " \"year\"], \"payload\": false}"),
          new Sample(
              "/search",
              "{\"filter\": {\"eq\": {\"options\": \"leather\"}}, \"orderBy\": [\"-year\","
                  + " \"price\"], \"limit\": 3}"),
          new Sample("/count", "{}"));

  private final List<Sample> queries;
  private final HttpClient client =
      HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicLong ok = new AtomicLong();
  private final AtomicLong failed = new AtomicLong();
  private volatile boolean running = true;

  /**
   * Starts querying each of these base addresses ({@code http://host:port}).
   *
   * @param pause between two queries of one thread
   */
  public QueryLoad(List<String> addresses, Duration pause) {
    this(addresses, QUERIES, pause);
  }

  /**
   * Starts querying each of these base addresses with these queries in turn.
   *
   * @param pause between two queries of one thread
   */
  public QueryLoad(List<String> addresses, List<Sample> queries, Duration pause) {
    this.queries = List.copyOf(queries);
    for (String address : addresses) {
      Thread t =
          Thread.ofPlatform()
              .name("query-load-" + address)
              .daemon()
              .start(() -> loop(address, pause));
      threads.add(t);
    }
  }

  private void loop(String address, Duration pause) {
    int i = 0;
    while (running) {
      Sample q = queries.get(i++ % queries.size());
      try {
        HttpResponse<String> r =
            client.send(
                HttpRequest.newBuilder(URI.create(address + q.path()))
                    .timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(q.body()))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          ok.incrementAndGet();
        } else {
          failed.incrementAndGet();
          LOG.warn("{}{} answered {}: {}", address, q.path(), r.statusCode(), r.body());
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (Exception e) {
        if (!running) {
          return;
        }
        failed.incrementAndGet();
        LOG.warn("{}{} failed: {}", address, q.path(), e.toString());
      }
      if (!pause.isZero()) {
        LockSupport.parkNanos(pause.toNanos()); // query pacing, not synchronization
      }
    }
  }

  /** Answers with HTTP 200 so far. */
  public long ok() {
    return ok.get();
  }

  /** Failed queries so far. */
  public long failed() {
    return failed.get();
  }

  /** Stops the threads and waits for them (each finishes its query in flight). */
  @Override
  public void close() {
    running = false;
    for (Thread t : threads) {
      try {
        t.join(15_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      }
    }
    client.close();
  }
}
