package dev.mosaic.searcher.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.searcher.Generation;
import dev.mosaic.searcher.Generations;
import dev.mosaic.searcher.PartitionStore;
import dev.mosaic.searcher.status.LagGrid;
import dev.mosaic.searcher.status.StatusHistory;
import dev.mosaic.searcher.status.StatusSample;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.Supplier;
import java.util.function.ToDoubleFunction;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.headers.RawHeader;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The operator's pages of a searcher, drawn in the browser from JSON with no external script or
 * style (static files from the class path, {@code status/}):
 *
 * <ul>
 *   <li>{@code GET /status} over {@code GET /status.json}: this node's health, partitions as a grid
 *       coloured by lag (see {@link LagGrid}) with the detail on a click, generations and mapped
 *       bytes;
 *   <li>{@code GET /status/history.json}: the last samples of freshness, lag and query rate and
 *       latency this node keeps ({@link StatusHistory}, one a second for 15 minutes by default), so
 *       the page's charts are full when it opens;
 *   <li>{@code GET /cluster} over {@code GET /cluster.json}: every datacenter and searcher side by
 *       side, one grid per index, which this node assembles by asking each peer's {@code
 *       /partitions} and {@code /health}.
 * </ul>
 *
 * <p>The JSON lists indexes ({@code "indexes": [...]}, today the one {@value #DEFAULT_INDEX}) so
 * that a searcher serving several adds entries rather than changing shapes. Lag is measured against
 * the version manifest when the node reads one, else against the newest version held.
 *
 * <p>Thread safety: safe for concurrent requests; the history samples on its own thread between
 * {@link #start()} and {@link #close()}. NOTE: {@code /cluster.json} makes one HTTP request per
 * peer on every call (each bounded by a two-second timeout).
 */
public final class StatusPages extends AllDirectives implements Closeable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration PEER_TIMEOUT = Duration.ofSeconds(2);
  private static final ContentType.NonBinary JAVASCRIPT =
      ContentTypes.create(MediaTypes.APPLICATION_JAVASCRIPT, HttpCharsets.UTF_8);
  private static final ContentType.NonBinary CSS =
      ContentTypes.create(MediaTypes.TEXT_CSS, HttpCharsets.UTF_8);

  private final Generations generations;
  private final PartitionStore store;
  private final MeterRegistry registry;
  private final String datacenter;
  private final Supplier<String> self;
  private final Supplier<Map<String, List<String>>> peers;
  private final Supplier<Collection<ManifestRecord>> manifest;
  private final HttpClient http;
  private final Map<String, HttpResponse> assets = new LinkedHashMap<>();
  private final StatusHistory history;

  /**
   * @param generations the generations served by this node
   * @param registry the node's meters (query timers are read from it)
   * @param datacenter this node's datacenter, as shown on the cluster page
   * @param self this node's HTTP base address ({@code http://host:port}), asked lazily
   * @param peers other searchers' HTTP base addresses by datacenter, asked on every cluster call;
   *     an entry equal to {@code self} is ignored
   */
  public StatusPages(
      Generations generations,
      MeterRegistry registry,
      String datacenter,
      Supplier<String> self,
      Supplier<Map<String, List<String>>> peers) {
    this(
        generations, registry, datacenter, self, peers, () -> null, StatusHistory.Settings.DEFAULT);
  }

  /**
   * As above, with the version manifest the grids measure lag against and the history kept for the
   * charts.
   *
   * @param manifest every record of the version manifest, asked on every call; null answers when
   *     this searcher reads no manifest (lag is then measured against the newest version held)
   * @param historySettings how often the history is sampled and how many samples it keeps
   */
  public StatusPages(
      Generations generations,
      MeterRegistry registry,
      String datacenter,
      Supplier<String> self,
      Supplier<Map<String, List<String>>> peers,
      Supplier<Collection<ManifestRecord>> manifest,
      StatusHistory.Settings historySettings) {
    this.manifest = Objects.requireNonNull(manifest, "manifest");
    this.history =
        new StatusHistory(historySettings, new NodeSampler(registry, this::selfGrid)::sample);
    this.generations = Objects.requireNonNull(generations, "generations");
    this.store = generations.store();
    this.registry = Objects.requireNonNull(registry, "registry");
    this.datacenter = Objects.requireNonNull(datacenter, "datacenter");
    this.self = Objects.requireNonNull(self, "self");
    this.peers = Objects.requireNonNull(peers, "peers");
    this.http = HttpClient.newBuilder().connectTimeout(PEER_TIMEOUT).build();
    asset("status.html", ContentTypes.TEXT_HTML_UTF8);
    asset("cluster.html", ContentTypes.TEXT_HTML_UTF8);
    asset("status.js", JAVASCRIPT);
    asset("cluster.js", JAVASCRIPT);
    asset("common.js", JAVASCRIPT);
    asset("style.css", CSS);
  }

  /** Starts sampling the history the charts draw. */
  public void start() {
    history.start();
  }

  /** Stops sampling; idempotent. */
  @Override
  public void close() {
    history.close();
  }

  private void asset(String name, ContentType type) {
    try (InputStream in = StatusPages.class.getResourceAsStream("/status/" + name)) {
      if (in == null) {
        throw new IllegalStateException("status page asset missing from the class path: " + name);
      }
      assets.put(name, HttpResponse.create().withEntity(type, in.readAllBytes()));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read status page asset " + name, e);
    }
  }

  /** The routes; they reject every other path, so concatenate them with the API's. */
  public Route route() {
    return get(
        () ->
            concat(
                path("status", () -> complete(assets.get("status.html"))),
                path("cluster", () -> complete(assets.get("cluster.html"))),
                path("status.json", () -> complete(json(statusJson()))),
                path("cluster.json", () -> completeWithFuture(clusterJson().thenApply(this::json))),
                path(
                    PathMatchers.segment("status").slash("history.json"),
                    () -> complete(json(historyJson()))),
                pathPrefix(
                    "status",
                    () ->
                        path(
                            PathMatchers.segment(),
                            name ->
                                assets.containsKey(name) && !name.endsWith(".html")
                                    ? complete(assets.get(name))
                                    : reject()))));
  }

  private HttpResponse json(JsonNode node) {
    try {
      return HttpResponse.create()
          .withEntity(ContentTypes.APPLICATION_JSON, JSON.writeValueAsBytes(node))
          .addHeader(RawHeader.create("Cache-Control", "no-store"));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The name of the one index served today; the JSON lists indexes so that more can follow. */
  static final String DEFAULT_INDEX = "default";

  /** This node's state as the status page shows it. */
  ObjectNode statusJson() {
    ObjectNode n = JSON.createObjectNode();
    n.put("datacenter", datacenter);
    n.put("address", self.get());
    Instant now = Instant.now();
    n.put("now", now.toString());
    ObjectNode mine = selfPartitions(now);
    n.put("schemaVersion", mine.path("schemaVersion").asInt());
    n.put("ready", generations.isReady());
    n.set("generation", mine.path("generation"));
    n.put("generationsOpen", generations.openGenerations());
    n.put("partitionsMapped", generations.mappedPartitions());
    n.put("mappedBytes", generations.mappedBytes());
    n.put("arenas", generations.openArenas());
    n.put("reopens", generations.reopenCount());
    n.put("reopenSeconds", generations.reopenTime().toNanos() / 1e9);
    n.put("storeFiles", store.fileCount());
    double newestAge = Double.NaN;
    for (JsonNode p : mine.path("partitions")) {
      double age = p.path("ageSeconds").asDouble();
      newestAge = Double.isNaN(newestAge) ? age : Math.min(newestAge, age);
    }
    n.set("partitions", mine.path("partitions"));
    if (Double.isNaN(newestAge)) {
      n.putNull("newestFileAgeSeconds");
    } else {
      n.put("newestFileAgeSeconds", newestAge);
    }
    n.set("queries", queries());
    n.put("manifest", manifest.get() != null);
    n.putArray("indexes").add(grid(List.of(selfColumn(mine)), now));
    return n;
  }

  /** This node's partitions as {@code /partitions} answers them. */
  private ObjectNode selfPartitions(Instant now) {
    ObjectNode n = JSON.createObjectNode();
    int sv = servingSchemaVersionOrNewest();
    n.put("schemaVersion", sv);
    SortedMap<Integer, PartitionFileId> inGeneration = new TreeMap<>();
    n.putNull("generation");
    if (generations.isReady()) {
      try (Generation g = generations.acquire()) {
        n.put("generation", g.id());
        n.put("generationCreatedAt", g.createdAt().toString());
        inGeneration = g.files();
      } catch (IllegalStateException e) {
        // closed meanwhile: report the store alone
      }
    }
    ArrayNode arr = n.putArray("partitions");
    for (PartitionStore.PartitionState s : store.partitionStates(sv)) {
      HttpApi.describePartition(arr.addObject(), s, inGeneration, now);
    }
    return n;
  }

  private LagGrid.Column selfColumn(ObjectNode partitions) {
    String health = generations.isReady() ? "UP" : "DOWN";
    return new LagGrid.Column(datacenter, trim(self.get()), true, health, partitions, null);
  }

  private ObjectNode grid(List<LagGrid.Column> columns, Instant now) {
    return LagGrid.build(DEFAULT_INDEX, columns, manifest.get(), now);
  }

  /** This node's own grid (one column), for the history's lag figures. */
  private ObjectNode selfGrid() {
    Instant now = Instant.now();
    ObjectNode mine = selfPartitions(now);
    ObjectNode grid = grid(List.of(selfColumn(mine)), now);
    grid.set("generationCreatedAt", mine.path("generationCreatedAt"));
    return grid;
  }

  /** The history, one list of columns per index: {@code t} (epoch millis) and each figure. */
  ObjectNode historyJson() {
    ObjectNode n = JSON.createObjectNode();
    n.put("intervalSeconds", history.settings().interval().toMillis() / 1000.0);
    n.put("capacity", history.settings().samples());
    n.put("now", System.currentTimeMillis());
    List<StatusSample> samples = history.samples();
    ObjectNode index = n.putArray("indexes").addObject();
    index.put("name", DEFAULT_INDEX);
    ArrayNode t = index.putArray("t");
    samples.forEach(x -> t.add(x.epochMillis()));
    column(index, "newestFileAgeSeconds", samples, StatusSample::newestFileAgeSeconds);
    column(index, "generationAgeSeconds", samples, StatusSample::generationAgeSeconds);
    column(index, "partitionsBehind", samples, x -> x.partitionsBehind());
    column(index, "maxSecondsBehind", samples, StatusSample::maxSecondsBehind);
    column(index, "queriesPerSecond", samples, StatusSample::queriesPerSecond);
    column(index, "notOkPerSecond", samples, StatusSample::notOkPerSecond);
    column(index, "p50Ms", samples, StatusSample::p50Ms);
    column(index, "p99Ms", samples, StatusSample::p99Ms);
    return n;
  }

  private static void column(
      ObjectNode into, String name, List<StatusSample> samples, ToDoubleFunction<StatusSample> f) {
    ArrayNode a = into.putArray(name);
    for (StatusSample s : samples) {
      double v = f.applyAsDouble(s);
      if (Double.isNaN(v) || Double.isInfinite(v)) {
        a.addNull();
      } else {
        a.add(Math.round(v * 1000) / 1000.0);
      }
    }
  }

  /**
   * Every {@code mosaic.searcher.query} timer merged: count, total time and the cumulative
   * histogram buckets.
   */
  private ObjectNode queries() {
    QueryTimers.Totals totals = QueryTimers.read(registry);
    ObjectNode q = JSON.createObjectNode();
    q.put("count", totals.count());
    q.put("notOk", totals.notOk());
    q.put("totalSeconds", totals.totalSeconds());
    ArrayNode b = q.putArray("buckets");
    for (int i = 0; i < totals.upperBoundsSeconds().length; i++) {
      b.addArray().add(totals.upperBoundsSeconds()[i]).add(totals.cumulativeCounts()[i]);
    }
    return q;
  }

  private int servingSchemaVersionOrNewest() {
    if (generations.schemaVersion().isPresent()) {
      return generations.schemaVersion().getAsInt();
    }
    List<Integer> held = store.schemaVersions();
    return held.isEmpty() ? 0 : held.get(held.size() - 1);
  }

  /** Every searcher's {@code /partitions} and {@code /health}, by datacenter, self first. */
  CompletableFuture<JsonNode> clusterJson() {
    String me = trim(self.get());
    Map<String, Set<String>> byDc = new TreeMap<>();
    byDc.computeIfAbsent(datacenter, k -> new LinkedHashSet<>()).add(me);
    peers
        .get()
        .forEach(
            (dc, addresses) -> {
              for (String a : addresses) {
                if (a != null && !a.isBlank() && !trim(a).equals(me)) {
                  byDc.computeIfAbsent(dc, k -> new LinkedHashSet<>()).add(trim(a));
                }
              }
            });
    ObjectNode n = JSON.createObjectNode();
    n.put("self", me);
    n.put("datacenter", datacenter);
    ArrayNode dcs = n.putArray("datacenters");
    List<CompletableFuture<?>> all = new ArrayList<>();
    byDc.forEach(
        (dc, addresses) -> {
          ObjectNode d = dcs.addObject();
          d.put("name", dc);
          ArrayNode searchers = d.putArray("searchers");
          for (String a : addresses) {
            ObjectNode s = searchers.addObject();
            s.put("address", a);
            s.put("self", a.equals(me));
            all.add(
                fetch(a + "/partitions")
                    .handle(
                        (body, e) -> {
                          synchronized (n) {
                            if (e != null) {
                              s.put("error", "cannot read " + a + "/partitions: " + rootCause(e));
                            } else {
                              s.set("partitions", body);
                            }
                          }
                          return null;
                        }));
            all.add(
                fetch(a + "/health")
                    .handle(
                        (body, e) -> {
                          synchronized (n) {
                            if (e != null) {
                              s.put("health", "UNREACHABLE");
                            } else {
                              s.put("health", body.path("status").asText("UNKNOWN"));
                              s.set("checks", body.path("checks"));
                            }
                          }
                          return null;
                        }));
          }
        });
    return CompletableFuture.allOf(all.toArray(CompletableFuture[]::new))
        .thenApply(
            x -> {
              ObjectNode copy;
              synchronized (n) {
                copy = n.deepCopy();
              }
              List<LagGrid.Column> columns = new ArrayList<>();
              for (JsonNode d : copy.path("datacenters")) {
                for (JsonNode s : d.path("searchers")) {
                  columns.add(
                      new LagGrid.Column(
                          d.path("name").asText(),
                          s.path("address").asText(),
                          s.path("self").asBoolean(),
                          s.path("health").asText("UNKNOWN"),
                          s.has("partitions") ? s.get("partitions") : null,
                          s.path("error").asText(null)));
                }
              }
              copy.put("manifest", manifest.get() != null);
              copy.putArray("indexes").add(grid(columns, Instant.now()));
              return copy;
            });
  }

  private CompletableFuture<JsonNode> fetch(String url) {
    HttpRequest req = HttpRequest.newBuilder(URI.create(url)).timeout(PEER_TIMEOUT).GET().build();
    return http.sendAsync(req, BodyHandlers.ofByteArray())
        .thenApply(
            r -> {
              try {
                // /health answers 503 with a body when down: still a readable answer
                if (r.statusCode() != 200 && r.statusCode() != 503) {
                  throw new IllegalStateException("HTTP " + r.statusCode() + " from " + url);
                }
                return JSON.readTree(r.body());
              } catch (IOException e) {
                throw new UncheckedIOException("unreadable answer from " + url, e);
              }
            });
  }

  /** The failure without its future wrappers, e.g. {@code ConnectException: Connection refused}. */
  private static String rootCause(Throwable e) {
    while (e instanceof java.util.concurrent.CompletionException && e.getCause() != null) {
      e = e.getCause();
    }
    String m = e.getMessage();
    if (m == null && e.getCause() != null) {
      m = e.getCause().toString();
    }
    return e.getClass().getSimpleName() + (m == null ? "" : ": " + m);
  }

  private static String trim(String address) {
    String a = address.strip();
    while (a.endsWith("/")) {
      a = a.substring(0, a.length() - 1);
    }
    return a.contains("://") ? a : "http://" + a;
  }
}
