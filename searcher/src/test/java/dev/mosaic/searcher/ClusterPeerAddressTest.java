package dev.mosaic.searcher;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.searcher.http.PeerAddress;
import dev.mosaic.transport.SearcherDiscovery;
import dev.mosaic.transport.SearcherEndpoint;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code /cluster.json} fetches only from registry entries whose HTTP address is {@code
 * http://<their registered transport host>:<port>}: a poisoned entry pointing elsewhere (another
 * host, a path, user info, another scheme) is never contacted, while a genuine peer is.
 */
class ClusterPeerAddressTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @TempDir Path root;
  @TempDir Path peerRoot;

  private static SearcherEndpoint entry(String node, String transportHost, String http) {
    return new SearcherEndpoint(node, "dc-x", transportHost, 9000, http);
  }

  @Test
  void onlyBareHttpAddressesOnTheRegisteredHostAreAccepted() {
    assertThat(PeerAddress.of(entry("a", "10.0.0.5", "http://10.0.0.5:8080")))
        .hasValue("http://10.0.0.5:8080");
    assertThat(PeerAddress.of(entry("a", "10.0.0.5", "http://10.0.0.5:8080/"))).isPresent();
    assertThat(PeerAddress.of(entry("a", "10.0.0.5", "http://169.254.169.254:80"))).isEmpty();
    assertThat(PeerAddress.of(entry("a", "10.0.0.5", "http://10.0.0.5:8080/admin"))).isEmpty();
    assertThat(PeerAddress.of(entry("a", "10.0.0.5", "http://x@10.0.0.5:8080"))).isEmpty();
    assertThat(PeerAddress.of(entry("a", "10.0.0.5", "http://10.0.0.5:8080?a=b"))).isEmpty();
    assertThat(PeerAddress.of(entry("a", "10.0.0.5", "https://10.0.0.5:8080"))).isEmpty();
    assertThat(PeerAddress.of(entry("a", "10.0.0.5", "file:///etc/passwd"))).isEmpty();
    assertThat(PeerAddress.of(entry("a", "10.0.0.5", "http://10.0.0.5"))).isEmpty();
    assertThat(PeerAddress.of(entry("a", "10.0.0.5", ""))).isEmpty();
  }

  @Test
  void aPoisonedRegistryEntryIsNeverFetchedAndAGenuinePeerIs() throws Exception {
    ConcurrentLinkedQueue<String> decoyHits = new ConcurrentLinkedQueue<>();
    HttpServer decoy = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
    decoy.createContext(
        "/",
        x -> {
          decoyHits.add(x.getRequestURI().toString());
          x.sendResponseHeaders(200, -1);
          x.close();
        });
    decoy.start();
    List<CarOffer> cars = CarOfferGenerator.builder().seed(5).build().next(20);
    try (SearcherNode peer =
        SearcherNode.builder(peerRoot).port(0).scanInterval(Duration.ZERO).build()) {
      peer.start();
      SearcherHttpTest.publish(peer.store(), 0, 1, cars);
      peer.generations().reopen().join();
      String decoyAt = "127.0.0.1:" + decoy.getAddress().getPort();
      List<SearcherEndpoint> entries = new ArrayList<>();
      entries.add(entry("genuine", "127.0.0.1", "http://127.0.0.1:" + peer.port()));
      entries.add(entry("other-host", "10.9.9.9", "http://" + decoyAt));
      entries.add(entry("with-path", "127.0.0.1", "http://" + decoyAt + "/latest/meta-data"));
      entries.add(entry("user-info", "127.0.0.1", "http://u:p@" + decoyAt));
      try (SearcherNode node =
          SearcherNode.builder(root)
              .port(0)
              .scanInterval(Duration.ZERO)
              .datacenter("dc-a")
              .peerDiscovery(new FixedDiscovery(Map.of("dc-x", entries)))
              .build()) {
        node.start();
        HttpResponse<String> r =
            HTTP.send(
                HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + node.port() + "/cluster.json"))
                    .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode json = new ObjectMapper().readTree(r.body());
        List<String> addresses = new ArrayList<>();
        json.path("datacenters")
            .forEach(
                d -> d.path("searchers").forEach(s -> addresses.add(s.path("address").asText())));
        assertThat(addresses).contains("http://127.0.0.1:" + peer.port());
        assertThat(addresses).noneMatch(a -> a.contains(decoyAt));
        assertThat(decoyHits).isEmpty();
      }
    } finally {
      decoy.stop(0);
    }
  }

  /** A registry view with fixed entries. */
  private record FixedDiscovery(Map<String, List<SearcherEndpoint>> byDc)
      implements SearcherDiscovery {
    @Override
    public void start() {}

    @Override
    public void addListener(Runnable listener) {}

    @Override
    public void close() {}
  }
}
