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
import java.util.IdentityHashMap;
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
import java.util.regex.Pattern;
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
 * style (static files from the class path, {@code status/}), for every index the searcher serves:
 *
 * <ul>
 *   <li>{@code GET /status} over {@code GET /status.json}: this node's health, then per index
 *       (chosen with a selector) its partitions as a grid coloured by lag (see {@link LagGrid})
 *       with the detail on a click, its generation, mapped bytes and query figures;
 *   <li>{@code GET /status/history.json}: per index, the last samples of freshness, lag and query
 *       rate and latency this node keeps ({@link StatusHistory}, one every 5 seconds for 15 minutes
 *       by default), so the page's charts are full when it opens;
 *   <li>{@code GET /cluster} over {@code GET /cluster.json}: every datacenter and searcher side by
 *       side, one grid per index, which this node assembles by asking each peer's {@code /health},
 *       {@code /indexes} and {@code /indexes/<name>/partitions}.
 * </ul>
 *
 * <p>Each partition appears once in the JSON: as a cell of its index's grid (which carries what
 * {@code /partitions} says of it). Lag is measured against the index's version manifest when the
 * node reads one, else against the newest version held.
 *
 * <p>Thread safety: safe for concurrent requests; each index's history samples on its own thread
 * between {@link #start()} and {@link #close()}. NOTE: {@code /cluster.json} makes a few HTTP
 * requests per peer on every call (each bounded by a two-second timeout).
 */
public final class StatusPages extends AllDirectives implements Closeable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration PEER_TIMEOUT = Duration.ofSeconds(2);
  private static final Pattern INDEX_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,63}");
  private static final ContentType.NonBinary JAVASCRIPT =
      ContentTypes.create(MediaTypes.APPLICATION_JAVASCRIPT, HttpCharsets.UTF_8);
  private static final ContentType.NonBinary CSS =
      ContentTypes.create(MediaTypes.TEXT_CSS, HttpCharsets.UTF_8);

  /**
   * One index as the pages show it.
   *
   * @param name its name
   * @param generations its generations (and through them its store)
   * @param manifest every record of its version manifest, asked on every call; null answers when
   *     this searcher reads no manifest for it (lag is then measured against the newest version
   *     held)
   */
  public record Index(
      String name, Generations generations, Supplier<Collection<ManifestRecord>> manifest) {
    /** Checks the fields. */
    public Index {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(generations, "generations");
      Objects.requireNonNull(manifest, "manifest");
    }
  }

  /** An index with the history sampled for its charts. */
  private record Page(Index index, StatusHistory history) {}

  private final Map<String, Page> pages = new LinkedHashMap<>();
  private final MeterRegistry registry;
  private final String datacenter;
  private final Supplier<String> self;
  private final Supplier<Map<String, List<String>>> peers;
  private final HttpClient http;
  private final Map<String, HttpResponse> assets = new LinkedHashMap<>();
  private final StatusHistory.Settings historySettings;

  /**
   * @param indexes the indexes served, the first one first; at least one, names distinct
   * @param registry the node's meters (each index's query timers, tagged {@code index=<name>}, are
   *     read from it)
   * @param datacenter this node's datacenter, as shown on the cluster page
   * @param self this node's HTTP base address ({@code http://host:port}), asked lazily
   * @param peers other searchers' HTTP base addresses by datacenter, asked on every cluster call;
   *     an entry equal to {@code self} is ignored
   * @param historySettings how often each index's history is sampled and how many samples it keeps
   */
  public StatusPages(
      List<Index> indexes,
      MeterRegistry registry,
      String datacenter,
      Supplier<String> self,
      Supplier<Map<String, List<String>>> peers,
      StatusHistory.Settings historySettings) {
    if (indexes.isEmpty()) {
      throw new IllegalArgumentException("the status pages need at least one index");
    }
    this.registry = Objects.requireNonNull(registry, "registry");
    this.historySettings = Objects.requireNonNull(historySettings, "historySettings");
    for (Index index : indexes) {
      if (pages.containsKey(index.name())) {
        throw new IllegalArgumentException("index " + index.name() + " is listed twice");
      }
      StatusHistory history =
          new StatusHistory(
              historySettings,
              new NodeSampler(registry, index.name(), () -> selfGrid(index))::sample);
      pages.put(index.name(), new Page(index, history));
    }
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

  /** Starts sampling the histories the charts draw. */
  public void start() {
    pages.values().forEach(p -> p.history().start());
  }

  /** Stops sampling; idempotent. */
  @Override
  public void close() {
    pages.values().forEach(p -> p.history().close());
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

  /**
   * This node's state as the status page shows it: per index its grid (one column, this node's;
   * every partition once, as a cell) with this node's figures for it under {@code node}.
   */
  ObjectNode statusJson() {
    ObjectNode n = JSON.createObjectNode();
    n.put("datacenter", datacenter);
    n.put("address", self.get());
    Instant now = Instant.now();
    n.put("now", now.toString());
    boolean ready = true;
    ArrayNode indexes = n.putArray("indexes");
    for (Page page : pages.values()) {
      Index index = page.index();
      ready &= index.generations().isReady();
      ObjectNode mine = selfPartitions(index, now);
      ObjectNode grid = grid(index, List.of(selfColumn(index, mine)), now);
      grid.set("node", nodeFigures(index, mine));
      indexes.add(grid);
    }
    n.put("ready", ready);
    return n;
  }

  /** What this node holds and maps of one index, and its query figures. */
  private ObjectNode nodeFigures(Index index, ObjectNode mine) {
    Generations generations = index.generations();
    PartitionStore store = generations.store();
    ObjectNode f = JSON.createObjectNode();
    f.put("ready", generations.isReady());
    f.put("schemaVersion", mine.path("schemaVersion").asInt());
    f.set("generation", mine.path("generation"));
    f.put("generationsOpen", generations.openGenerations());
    f.put("partitionsHeld", mine.path("partitions").size());
    f.put("partitionsMapped", generations.mappedPartitions());
    f.put("mappedBytes", generations.mappedBytes());
    f.put("arenas", generations.openArenas());
    f.put("reopens", generations.reopenCount());
    f.put("reopenSeconds", generations.reopenTime().toNanos() / 1e9);
    f.put("storeFiles", store.fileCount());
    double newestAge = Double.NaN;
    for (JsonNode p : mine.path("partitions")) {
      double age = p.path("ageSeconds").asDouble();
      newestAge = Double.isNaN(newestAge) ? age : Math.min(newestAge, age);
    }
    if (Double.isNaN(newestAge)) {
      f.putNull("newestFileAgeSeconds");
    } else {
      f.put("newestFileAgeSeconds", newestAge);
    }
    f.set("queries", queries(index.name()));
    f.put("manifest", index.manifest().get() != null);
    return f;
  }

  /** This node's partitions of one index as {@code /indexes/<name>/partitions} answers them. */
  private static ObjectNode selfPartitions(Index index, Instant now) {
    Generations generations = index.generations();
    PartitionStore store = generations.store();
    ObjectNode n = JSON.createObjectNode();
    int sv = servingSchemaVersionOrNewest(generations);
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

  private LagGrid.Column selfColumn(Index index, ObjectNode partitions) {
    String health = index.generations().isReady() ? "UP" : "DOWN";
    return new LagGrid.Column(datacenter, trim(self.get()), true, health, partitions, null);
  }

  private static ObjectNode grid(Index index, List<LagGrid.Column> columns, Instant now) {
    return LagGrid.build(index.name(), columns, index.manifest().get(), now);
  }

  /** This node's own grid of one index (one column), for the history's lag figures. */
  private ObjectNode selfGrid(Index index) {
    Instant now = Instant.now();
    ObjectNode mine = selfPartitions(index, now);
    ObjectNode grid = grid(index, List.of(selfColumn(index, mine)), now);
    grid.set("generationCreatedAt", mine.path("generationCreatedAt"));
    return grid;
  }

  /** The histories, one list of columns per index: {@code t} (epoch millis) and each figure. */
  ObjectNode historyJson() {
    ObjectNode n = JSON.createObjectNode();
    n.put("intervalSeconds", historySettings.interval().toMillis() / 1000.0);
    n.put("capacity", historySettings.samples());
    n.put("now", System.currentTimeMillis());
    ArrayNode indexes = n.putArray("indexes");
    for (Page page : pages.values()) {
      List<StatusSample> samples = page.history().samples();
      ObjectNode index = indexes.addObject();
      index.put("name", page.index().name());
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
    }
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
   * One index's {@code mosaic.searcher.query} timers merged: count, total time and the cumulative
   * histogram buckets.
   */
  private ObjectNode queries(String index) {
    QueryTimers.Totals totals = QueryTimers.read(registry, index);
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

  private static int servingSchemaVersionOrNewest(Generations generations) {
    if (generations.schemaVersion().isPresent()) {
      return generations.schemaVersion().getAsInt();
    }
    List<Integer> held = generations.store().schemaVersions();
    return held.isEmpty() ? 0 : held.get(held.size() - 1);
  }

  /** What one searcher answered: its indexes' partitions by name, or why they are unknown. */
  private static final class Answers {
    final Map<String, JsonNode> partitions = new LinkedHashMap<>();
    final Map<String, String> errors = new LinkedHashMap<>();
    List<String> indexes;
    String indexesError;
  }

  /**
   * Every searcher's {@code /health} and, per index it lists in {@code /indexes}, its {@code
   * /indexes/<name>/partitions}, by datacenter, self first; then one grid per index (this node's
   * indexes first, then any other a peer serves), with the searchers that serve it (and those whose
   * list of indexes could not be read, shown unreachable).
   */
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
    Map<ObjectNode, Answers> answers = new IdentityHashMap<>();
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
            Answers got = new Answers();
            answers.put(s, got);
            all.add(partitionsOf(a, got, n));
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
        .thenApply(x -> withGrids(n, answers));
  }

  /** Reads a searcher's {@code /indexes}, then each listed index's partitions, into {@code got}. */
  private CompletableFuture<Void> partitionsOf(String address, Answers got, Object lock) {
    return fetch(address + "/indexes")
        .handle(
            (body, e) -> {
              List<String> names = new ArrayList<>();
              synchronized (lock) {
                if (e != null) {
                  got.indexesError = "cannot read " + address + "/indexes: " + rootCause(e);
                } else {
                  // a name goes into a URL path: take only plain names
                  body.path("indexes")
                      .forEach(
                          i -> {
                            if (INDEX_NAME.matcher(i.asText()).matches()) {
                              names.add(i.asText());
                            }
                          });
                  got.indexes = names;
                }
              }
              return names;
            })
        .thenCompose(
            names ->
                CompletableFuture.allOf(
                    names.stream()
                        .map(
                            name -> {
                              String url = address + "/indexes/" + name + "/partitions";
                              return fetch(url)
                                  .handle(
                                      (body, e) -> {
                                        synchronized (lock) {
                                          if (e != null) {
                                            got.errors.put(
                                                name, "cannot read " + url + ": " + rootCause(e));
                                          } else {
                                            got.partitions.put(name, body);
                                          }
                                        }
                                        return null;
                                      });
                            })
                        .toArray(CompletableFuture[]::new)));
  }

  /** The answers as one grid per index, the searchers listing what they serve. */
  private ObjectNode withGrids(ObjectNode n, Map<ObjectNode, Answers> answers) {
    synchronized (n) {
      Set<String> names = new LinkedHashSet<>(pages.keySet());
      answers.values().stream()
          .filter(a -> a.indexes != null)
          .forEach(a -> names.addAll(a.indexes));
      boolean anyManifest = false;
      ArrayNode grids = JSON.createArrayNode();
      Instant now = Instant.now();
      for (String name : names) {
        List<LagGrid.Column> columns = new ArrayList<>();
        for (JsonNode d : n.path("datacenters")) {
          for (JsonNode s : d.path("searchers")) {
            Answers a = answers.get((ObjectNode) s);
            if (a.indexes != null && !a.indexes.contains(name)) {
              continue; // it does not serve this index
            }
            String error = a.indexes == null ? a.indexesError : a.errors.get(name);
            columns.add(
                new LagGrid.Column(
                    d.path("name").asText(),
                    s.path("address").asText(),
                    s.path("self").asBoolean(),
                    s.path("health").asText("UNKNOWN"),
                    a.partitions.get(name),
                    error));
          }
        }
        Page page = pages.get(name);
        Collection<ManifestRecord> manifest = page == null ? null : page.index().manifest().get();
        anyManifest |= manifest != null;
        grids.add(LagGrid.build(name, columns, manifest, now));
      }
      for (JsonNode d : n.path("datacenters")) {
        for (JsonNode s : d.path("searchers")) {
          Answers a = answers.get((ObjectNode) s);
          ObjectNode o = (ObjectNode) s;
          if (a.indexes != null) {
            ArrayNode served = o.putArray("indexes");
            a.indexes.forEach(served::add);
          } else {
            o.put("error", a.indexesError);
          }
        }
      }
      ObjectNode copy = n.deepCopy();
      copy.put("manifest", anyManifest);
      copy.set("indexes", grids);
      return copy;
    }
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
