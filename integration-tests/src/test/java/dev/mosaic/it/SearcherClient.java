package dev.mosaic.it;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * A searcher's HTTP API as a client sees it: a fresh connection per request, so that a searcher
 * restarted on the same port is never asked over a connection to its previous life. Thread safe.
 */
final class SearcherClient {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** An answer: status code and parsed JSON body (null when not JSON). */
  record Answer(int status, JsonNode body, String raw) {}

  private SearcherClient() {}

  static Answer post(String address, String path, String body)
      throws IOException, InterruptedException {
    HttpResponse<String> r;
    try (HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build()) {
      r =
          http.send(
              HttpRequest.newBuilder(URI.create(address + path))
                  .timeout(Duration.ofSeconds(10))
                  .header("Content-Type", "application/json")
                  .POST(HttpRequest.BodyPublishers.ofString(body))
                  .build(),
              HttpResponse.BodyHandlers.ofString());
    }
    return new Answer(r.statusCode(), parse(r.body()), r.body());
  }

  /** {@code POST /count} of everything: the total, or -1 unless the answer is 200. */
  static long countAll(String address) {
    try {
      Answer a = post(address, "/count", "{}");
      return a.status() == 200 ? a.body().get("total").asLong() : -1;
    } catch (IOException e) {
      return -1;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return -1;
    }
  }

  private static JsonNode parse(String s) {
    try {
      return JSON.readTree(s);
    } catch (IOException e) {
      return null;
    }
  }
}
