package dev.mosaic.it.process;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What a searcher process says over HTTP: the partitions it serves ({@code GET /partitions}),
 * counts ({@code POST /count}), hits ({@code POST /search}), health and metrics. A fresh client per
 * request, so a searcher restarted on the same port is never asked over a connection to its
 * previous life. Thread safe.
 */
final class SearcherView {
  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * How long one request may take: generous, the fault suite runs on loaded build machines and
   * checks answers, not latency.
   */
  private static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(30);

  /** One served partition: the version in the searcher's current generation and its checksum. */
  record Served(int partition, long version, String crc32c) {}

  /**
   * What the searcher serves: schema version and, by partition, the version in its current
   * generation (partitions held but not yet in a generation are left out).
   */
  record Serving(int schemaVersion, long generation, Map<Integer, Served> partitions) {}

  /** A count and the generation (atomic view of every partition) it ran on. */
  record Count(long generation, long total) {}

  /** A search answer: the generation it ran on, the total, and each hit's partition and offer. */
  record Hits(long generation, long total, List<Hit> hits) {}

  /** One hit: the partition it came from and the offer its payload names. */
  record Hit(int partition, PartitionOffers.Offer offer) {}

  /** {@code GET /health}: status code and body. */
  record Health(int status, String body) {}

  private SearcherView() {}

  /** {@code POST /search} with the given query; fails unless the answer is 200. */
  static Hits search(String address, String body) throws IOException, InterruptedException {
    JsonNode n = JSON.readTree(post(address, "/search", body));
    List<Hit> hits = new ArrayList<>();
    for (JsonNode h : n.path("hits")) {
      JsonNode payload = h.path("payload");
      hits.add(
          new Hit(
              h.get("partition").asInt(),
              new PartitionOffers.Offer(
                  payload.path("partner_id").asText(), payload.path("offer_id").asText())));
    }
    return new Hits(n.get("generation").asLong(), n.get("total").asLong(), hits);
  }

  /** {@code GET /health}, whatever its status. */
  static Health health(String address) throws IOException, InterruptedException {
    try (HttpClient http = client()) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(address + "/health"))
                  .timeout(REQUEST_TIMEOUT)
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      return new Health(r.statusCode(), r.body());
    }
  }

  /**
   * The sum of the Prometheus samples of metric {@code name} ({@code GET /metrics}) whose labels
   * satisfy {@code labels} (given the sample's label text, e.g. {@code direction="received",...}).
   */
  static double metric(String address, String name, java.util.function.Predicate<String> labels)
      throws IOException, InterruptedException {
    double sum = 0;
    for (String line : get(address, "/metrics").lines().toList()) {
      if (!line.startsWith(name + "{")) {
        continue;
      }
      int end = line.lastIndexOf('}');
      if (labels.test(line.substring(name.length() + 1, end))) {
        sum += Double.parseDouble(line.substring(end + 1).trim().split(" ")[0]);
      }
    }
    return sum;
  }

  static Serving serving(String address) throws IOException, InterruptedException {
    JsonNode n = JSON.readTree(get(address, "/partitions"));
    Map<Integer, Served> out = new TreeMap<>();
    for (JsonNode p : n.path("partitions")) {
      JsonNode served = p.get("servedVersion");
      if (served == null || served.isNull()) {
        continue;
      }
      // the store's serving file is the generation's file when both name the same version
      String crc = served.asLong() == p.get("version").asLong() ? p.get("crc32c").asText() : null;
      out.put(
          p.get("partition").asInt(), new Served(p.get("partition").asInt(), served.asLong(), crc));
    }
    return new Serving(n.path("schemaVersion").asInt(), n.path("generation").asLong(-1), out);
  }

  /** {@code POST /count} with the given query body: the total; fails unless the answer is 200. */
  static long count(String address, String body) throws IOException, InterruptedException {
    return countOn(address, body).total();
  }

  /** {@code POST /count}: total and generation; fails unless the answer is 200. */
  static Count countOn(String address, String body) throws IOException, InterruptedException {
    JsonNode n = JSON.readTree(post(address, "/count", body));
    return new Count(n.get("generation").asLong(), n.get("total").asLong());
  }

  private static String post(String address, String path, String body)
      throws IOException, InterruptedException {
    try (HttpClient http = client()) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(address + path))
                  .timeout(REQUEST_TIMEOUT)
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IOException(address + path + " answered " + r.statusCode() + ": " + r.body());
      }
      return r.body();
    }
  }

  private static String get(String address, String path) throws IOException, InterruptedException {
    try (HttpClient http = client()) {
      HttpResponse<String> r =
          http.send(
              HttpRequest.newBuilder(URI.create(address + path))
                  .timeout(REQUEST_TIMEOUT)
                  .GET()
                  .build(),
              HttpResponse.BodyHandlers.ofString());
      if (r.statusCode() != 200) {
        throw new IOException(address + path + " answered " + r.statusCode() + ": " + r.body());
      }
      return r.body();
    }
  }

  private static HttpClient client() {
    return HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();
  }
}
