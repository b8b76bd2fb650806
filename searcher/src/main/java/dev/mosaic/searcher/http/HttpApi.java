package dev.mosaic.searcher.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.partition.RejectedFileException;
import dev.mosaic.searcher.BadQueryException;
import dev.mosaic.searcher.Generation;
import dev.mosaic.searcher.Generations;
import dev.mosaic.searcher.HealthContributor;
import dev.mosaic.searcher.PartitionStore;
import dev.mosaic.searcher.SearchService;
import dev.mosaic.searcher.StoredFile;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.pekko.http.javadsl.model.ContentType;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpCharsets;
import org.apache.pekko.http.javadsl.model.HttpHeader;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.MediaTypes;
import org.apache.pekko.http.javadsl.model.RequestEntity;
import org.apache.pekko.http.javadsl.model.StatusCode;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.model.headers.RetryAfter;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.ExceptionHandler;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.RejectionHandler;
import org.apache.pekko.http.javadsl.server.Route;
import org.apache.pekko.http.javadsl.unmarshalling.Unmarshaller;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The searcher's HTTP routes: {@code POST /search}, {@code POST /count}, {@code GET /health},
 * {@code GET /metrics}, {@code GET /partitions}, {@code POST /partitions/{p}/pin?version=v}, {@code
 * POST /partitions/{p}/unpin}, {@code POST /schema?version=s} (serve another schema version) and,
 * when enabled, {@code PUT /partitions/{p}/versions/{v}} (publish a file through the same path as
 * the transport). Bad input answers 400 with {@code {"error": ...}} naming the problem; no
 * generation yet answers 503. The state-changing routes (pin, unpin, schema, upload) need the
 * operator token ({@code Authorization: Bearer ...}): 401 without it, 403 with a wrong one, 403
 * when the node has none configured; queries, health, metrics and GET status stay open.
 *
 * <p>Thread safety: the route is immutable; queries run on the given executor, never on Pekko's
 * dispatcher.
 */
public final class HttpApi extends AllDirectives {
  private static final Logger LOG = LoggerFactory.getLogger(HttpApi.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final ContentType.NonBinary PROMETHEUS =
      ContentTypes.create(MediaTypes.TEXT_PLAIN, HttpCharsets.UTF_8);

  private final SearchService search;
  private final Generations generations;
  private final PartitionStore store;
  private final PrometheusMeterRegistry metrics;
  private final Supplier<List<HealthContributor>> health;
  private final Executor executor;
  private final Executor adminExecutor;
  private final long maxUploadBytes;
  private final byte[] adminToken;
  private final long maxRequestBytes;
  private volatile ServedBody lastServed;

  /** Default cap on a query's body: 16 MiB. */
  public static final long DEFAULT_MAX_REQUEST_BYTES = 16L << 20;

  /** Largest over-cap body read (and discarded) before answering 413, so the answer arrives. */
  static final long MAX_DISCARDED_BYTES = 64L << 20;

  /** Seconds a client is told to wait ({@code Retry-After}) when the query queue is full. */
  static final int RETRY_AFTER_SECONDS = 1;

  /**
   * @param search runs searches and counts
   * @param generations the generations served
   * @param metrics the registry scraped by {@code /metrics}
   * @param health the contributors asked by {@code /health}
   * @param executor where queries run
   * @param adminExecutor where pins, unpins and uploads run (they fsync and wait for reopens)
   * @param maxUploadBytes the largest file accepted by the upload route, or 0 to disable the route
   */
  public HttpApi(
      SearchService search,
      Generations generations,
      PrometheusMeterRegistry metrics,
      Supplier<List<HealthContributor>> health,
      Executor executor,
      Executor adminExecutor,
      long maxUploadBytes) {
    this(search, generations, metrics, health, executor, adminExecutor, maxUploadBytes, null);
  }

  /**
   * As above, with the operator credential guarding the state-changing routes (pin, unpin, schema,
   * upload): {@code Authorization: Bearer <adminToken>}, compared in constant time; missing answers
   * 401, wrong 403. A null token disables those routes (403).
   */
  public HttpApi(
      SearchService search,
      Generations generations,
      PrometheusMeterRegistry metrics,
      Supplier<List<HealthContributor>> health,
      Executor executor,
      Executor adminExecutor,
      long maxUploadBytes,
      String adminToken) {
    this(
        search,
        generations,
        metrics,
        health,
        executor,
        adminExecutor,
        maxUploadBytes,
        adminToken,
        DEFAULT_MAX_REQUEST_BYTES);
  }

  /**
   * As above, with the cap on a query's body: a larger {@code /search} or {@code /count} body
   * answers 413, whatever the actor system's own {@code max-content-length}. A full query queue
   * ({@code executor} refusing the task) answers 503 with {@code Retry-After}.
   */
  public HttpApi(
      SearchService search,
      Generations generations,
      PrometheusMeterRegistry metrics,
      Supplier<List<HealthContributor>> health,
      Executor executor,
      Executor adminExecutor,
      long maxUploadBytes,
      String adminToken,
      long maxRequestBytes) {
    if (maxRequestBytes < 1) {
      throw new IllegalArgumentException("maxRequestBytes must be >= 1, got " + maxRequestBytes);
    }
    this.maxRequestBytes = maxRequestBytes;
    this.adminToken =
        adminToken == null ? null : adminToken.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    this.search = search;
    this.generations = generations;
    this.store = generations.store();
    this.metrics = metrics;
    this.health = health;
    this.executor = executor;
    this.adminExecutor = adminExecutor;
    this.maxUploadBytes = maxUploadBytes;
  }

  /** The route tree. */
  public Route route() {
    Route routes =
        concat(
            path("search", () -> post(() -> query(search::search))),
            path("count", () -> post(() -> query(search::count))),
            path("health", () -> get(() -> complete(healthResponse()))),
            path(
                "metrics",
                () ->
                    get(
                        () ->
                            complete(
                                HttpResponse.create().withEntity(PROMETHEUS, metrics.scrape())))),
            path(
                "schema",
                () ->
                    post(
                        () ->
                            parameterOptional(
                                "version", v -> admin(() -> switchSchema(v.orElse(null)))))),
            pathPrefix(
                "partitions",
                () ->
                    concat(
                        pathEnd(() -> get(() -> async(this::partitions))),
                        path(
                            "served",
                            () ->
                                get(
                                    () ->
                                        optionalHeaderValueByName(
                                            "If-None-Match",
                                            tag -> complete(servedResponse(tag.orElse(null)))))),
                        path(
                            PathMatchers.segment().slash("pin"),
                            p ->
                                post(
                                    () ->
                                        parameterOptional(
                                            "version", v -> admin(() -> pin(p, v.orElse(null)))))),
                        path(
                            PathMatchers.segment().slash("unpin"),
                            p -> post(() -> admin(() -> unpin(p)))),
                        path(
                            PathMatchers.segment().slash("versions").slash(PathMatchers.segment()),
                            (p, v) -> put(() -> operator(() -> upload(p, v)))))));
    return handleExceptions(
        exceptionHandler(),
        () -> handleRejections(RejectionHandler.defaultHandler(), () -> routes));
  }

  private ExceptionHandler exceptionHandler() {
    return ExceptionHandler.newBuilder()
        .match(
            BadQueryException.class, e -> complete(error(StatusCodes.BAD_REQUEST, e.getMessage())))
        .match(
            Throwable.class,
            e -> {
              LOG.error("unexpected failure answering a request", e);
              return complete(error(StatusCodes.INTERNAL_SERVER_ERROR, "internal error: " + e));
            })
        .build();
  }

  private interface Handler {
    HttpResponse handle() throws Exception;
  }

  /** A query endpoint: JSON body and arrival time in, JSON answer out. */
  private interface QueryEndpoint {
    byte[] answer(byte[] body, long arrivedNanos);
  }

  /**
   * Reads a query's body under the request cap (413 above it, whoever owns the actor system) and
   * runs it on the query pool, its time budget counted from now.
   */
  private Route query(QueryEndpoint endpoint) {
    return extractRequestEntity(
        entity -> {
          OptionalLong length = entity.getContentLengthOption();
          if (length.isPresent() && length.getAsLong() > maxRequestBytes) {
            return tooLarge(entity, length.getAsLong());
          }
          return withSizeLimit(
              maxRequestBytes,
              () ->
                  entity(
                      Unmarshaller.entityToByteArray(),
                      body -> {
                        long arrived = System.nanoTime();
                        return async(() -> json(StatusCodes.OK, endpoint.answer(body, arrived)));
                      }));
        });
  }

  /**
   * Answers 413 to a body announced over the cap. The body is read and discarded first (up to
   * {@link #MAX_DISCARDED_BYTES}): closing a connection with unread bytes makes TCP reset it, and a
   * client still sending then loses the answer (it saw the connection close without a response).
   */
  private Route tooLarge(RequestEntity entity, long length) {
    HttpResponse answer =
        error(
            StatusCodes.PAYLOAD_TOO_LARGE,
            "request body of "
                + length
                + " bytes is over the maximum of "
                + maxRequestBytes
                + " bytes (maxRequestBytes)");
    if (length > MAX_DISCARDED_BYTES) {
      return complete(answer);
    }
    return extractMaterializer(
        mat ->
            completeWithFuture(
                entity
                    .withoutSizeLimit()
                    .discardBytes(mat)
                    .completionStage()
                    .handle((done, e) -> answer)));
  }

  /** Runs the handler on the executor, turning known failures into precise answers. */
  private Route async(Handler handler) {
    return async(handler, executor);
  }

  private Route admin(Handler handler) {
    return operator(() -> async(handler, adminExecutor));
  }

  /** Lets the inner route run only for a caller presenting the operator token. */
  private Route operator(Supplier<Route> inner) {
    return optionalHeaderValueByName(
        "Authorization",
        header -> {
          if (adminToken == null) {
            return complete(
                error(
                    StatusCodes.FORBIDDEN,
                    "admin endpoints are disabled: no operator token is configured on this"
                        + " searcher (SearcherNode.Builder.adminToken)"));
          }
          String prefix = "Bearer ";
          if (header.isEmpty()
              || !header.get().regionMatches(true, 0, prefix, 0, prefix.length())) {
            return complete(
                error(
                        StatusCodes.UNAUTHORIZED,
                        "admin endpoint: send the operator token as 'Authorization: Bearer"
                            + " <token>'")
                    .addHeader(
                        org.apache.pekko.http.javadsl.model.HttpHeader.parse(
                            "WWW-Authenticate", "Bearer realm=\"mosaic-searcher\"")));
          }
          byte[] given =
              header
                  .get()
                  .substring(prefix.length())
                  .trim()
                  .getBytes(java.nio.charset.StandardCharsets.UTF_8);
          if (!java.security.MessageDigest.isEqual(given, adminToken)) {
            LOG.warn("refused an admin request with a wrong operator token");
            return complete(error(StatusCodes.FORBIDDEN, "admin endpoint: wrong operator token"));
          }
          return inner.get();
        });
  }

  private Route async(Handler handler, Executor on) {
    CompletionStage<HttpResponse> f;
    try {
      f =
          CompletableFuture.supplyAsync(
              () -> {
                try {
                  return handler.handle();
                } catch (BadQueryException | RejectedFileException e) {
                  return error(StatusCodes.BAD_REQUEST, e.getMessage());
                } catch (IllegalStateException e) {
                  if (!generations.isReady()) {
                    return error(StatusCodes.SERVICE_UNAVAILABLE, e.getMessage());
                  }
                  LOG.error("query failed", e);
                  return error(
                      StatusCodes.INTERNAL_SERVER_ERROR, "internal error: " + e.getMessage());
                } catch (Exception e) {
                  LOG.error("request failed", e);
                  return error(StatusCodes.INTERNAL_SERVER_ERROR, "internal error: " + e);
                }
              },
              on);
    } catch (RejectedExecutionException e) {
      return complete(
          error(
                  StatusCodes.SERVICE_UNAVAILABLE,
                  "too many queries waiting: the query queue is full; retry after "
                      + RETRY_AFTER_SECONDS
                      + " s")
              .addHeader(RetryAfter.create((long) RETRY_AFTER_SECONDS)));
    }
    return completeWithFuture(f);
  }

  private static HttpResponse json(StatusCode status, byte[] body) {
    return HttpResponse.create().withStatus(status).withEntity(ContentTypes.APPLICATION_JSON, body);
  }

  private static HttpResponse json(StatusCode status, Object node) {
    try {
      return json(status, JSON.writeValueAsBytes(node));
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
  }

  static HttpResponse error(StatusCode status, String message) {
    ObjectNode n = JSON.createObjectNode();
    n.put("error", message == null ? status.reason() : message);
    return json(status, n);
  }

  private HttpResponse healthResponse() {
    ObjectNode n = JSON.createObjectNode();
    ArrayNode checks = n.putArray("checks");
    boolean up = generations.isReady();
    ObjectNode gen = checks.addObject();
    gen.put("name", "generation");
    gen.put("up", up);
    if (up) {
      try (Generation g = generations.acquire()) {
        gen.put("detail", "generation " + g.id() + " serves " + g.partitionCount() + " partitions");
        n.put("generation", g.id());
      } catch (IllegalStateException e) {
        up = false;
        gen.put("up", false);
        gen.put("detail", e.getMessage());
      }
    } else {
      gen.put("detail", "no generation open yet");
    }
    for (HealthContributor c : health.get()) {
      ObjectNode check = checks.addObject();
      check.put("name", c.name());
      try {
        HealthContributor.Health h = c.check();
        check.put("up", h.up());
        check.put("detail", h.detail());
        up &= h.up();
      } catch (RuntimeException e) {
        LOG.warn("health contributor {} failed", c.name(), e);
        check.put("up", false);
        check.put("detail", "check failed: " + e);
        up = false;
      }
    }
    n.put("status", up ? "UP" : "DOWN");
    // keep "status" first for people reading it
    ObjectNode ordered = JSON.createObjectNode();
    ordered.put("status", up ? "UP" : "DOWN");
    ordered.setAll(n);
    return json(up ? StatusCodes.OK : StatusCodes.SERVICE_UNAVAILABLE, ordered);
  }

  private int servedSchemaVersion() {
    return generations
        .schemaVersion()
        .orElseThrow(() -> new IllegalStateException("no generation is open yet"));
  }

  /**
   * {@code GET /partitions/served}: the current generation's id and the version it serves of each
   * partition, {@code {"generation": g, "served": {"<partition>": version, ...}}} (generation null
   * and served empty before the first generation). A cheap poll for watchers of a rollout, which
   * {@code /partitions} (a full description of every held partition) is not: the answer carries the
   * generation as its entity tag ({@code ETag: "g<id>"}), and a request whose {@code If-None-Match}
   * names the current generation is answered 304 Not Modified without a body.
   */
  private HttpResponse servedResponse(String ifNoneMatch) {
    if (!generations.isReady()) {
      return json(StatusCodes.OK, NOTHING_SERVED);
    }
    ServedBody body;
    try (Generation g = generations.acquire()) {
      String tag = "\"g" + g.id() + "\"";
      if (tag.equals(ifNoneMatch)) {
        return HttpResponse.create()
            .withStatus(StatusCodes.NOT_MODIFIED)
            .addHeader(HttpHeader.parse("ETag", tag));
      }
      body = lastServed;
      if (body == null || body.generation() != g.id()) {
        body = new ServedBody(g.id(), tag, servedJson(g));
        lastServed = body;
      }
    } catch (IllegalStateException e) {
      return json(StatusCodes.OK, NOTHING_SERVED); // closed meanwhile: nothing served
    }
    return json(StatusCodes.OK, body.json()).addHeader(HttpHeader.parse("ETag", body.tag()));
  }

  /** {@code /partitions/served} of a generation, written once: pollers ask for it many times. */
  private record ServedBody(long generation, String tag, byte[] json) {}

  private static final byte[] NOTHING_SERVED =
      "{\"generation\":null,\"served\":{}}".getBytes(StandardCharsets.US_ASCII);

  private static byte[] servedJson(Generation g) {
    // streamed (numbers and numeric field names written straight as bytes): pollers ask for it
    // after every reopen, which can be several times a second
    ByteArrayOutputStream out = new ByteArrayOutputStream(32 + 16 * g.partitionCount());
    try (JsonGenerator json = JSON.getFactory().createGenerator(out)) {
      json.writeStartObject();
      json.writeNumberField("generation", g.id());
      json.writeObjectFieldStart("served");
      for (int i = 0; i < g.partitionCount(); i++) {
        json.writeFieldId(g.partitionAt(i));
        json.writeNumber(g.fileAt(i).version());
      }
      json.writeEndObject();
      json.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException("writing to memory failed", e);
    }
    return out.toByteArray();
  }

  private HttpResponse partitions() {
    int sv = servingSchemaVersionOrNewest();
    ObjectNode n = JSON.createObjectNode();
    n.put("schemaVersion", sv);
    SortedMap<Integer, PartitionFileId> inGeneration = new TreeMap<>();
    if (generations.isReady()) {
      try (Generation g = generations.acquire()) {
        n.put("generation", g.id());
        inGeneration = g.files();
      } catch (IllegalStateException e) {
        // closed meanwhile: report the store alone
      }
    }
    ArrayNode arr = n.putArray("partitions");
    Instant now = Instant.now();
    for (PartitionStore.PartitionState s : store.partitionStates(sv)) {
      describePartition(arr.addObject(), s, inGeneration, now);
    }
    return json(StatusCodes.OK, n);
  }

  /**
   * Writes one partition as {@code /partitions} and the status page report it: versions held and
   * served, age, size, checksum, pin. Returns the serving file's age in seconds.
   */
  static double describePartition(
      ObjectNode p,
      PartitionStore.PartitionState s,
      Map<Integer, PartitionFileId> inGeneration,
      Instant now) {
    StoredFile f = s.serving();
    p.put("partition", s.partition());
    p.put("version", f.id().version());
    PartitionFileId served = inGeneration.get(s.partition());
    if (served != null) {
      p.put("servedVersion", served.version());
    } else {
      p.putNull("servedVersion");
    }
    double age = Duration.between(f.publishedAt(), now).toMillis() / 1000.0;
    p.put("ageSeconds", age);
    p.put("publishedAt", f.publishedAt().toString());
    p.put("sizeBytes", f.sizeInBytes());
    p.put("crc32c", f.crc32cHex());
    p.put("pinned", s.pinned());
    ArrayNode versions = p.putArray("versions");
    s.versions().forEach(versions::add);
    return age;
  }

  private int servingSchemaVersionOrNewest() {
    if (generations.schemaVersion().isPresent()) {
      return generations.schemaVersion().getAsInt();
    }
    List<Integer> held = store.schemaVersions();
    return held.isEmpty() ? 0 : held.get(held.size() - 1);
  }

  private static int partitionId(String p) {
    try {
      int v = Integer.parseInt(p);
      if (v < 0) {
        throw new NumberFormatException();
      }
      return v;
    } catch (NumberFormatException e) {
      throw new BadQueryException("partition: expected a non-negative integer but got '" + p + "'");
    }
  }

  private static long version(String v, String what) {
    if (v == null) {
      throw new BadQueryException(what + ": missing; give it as ?version=<n>");
    }
    try {
      long n = Long.parseLong(v);
      if (n < 0) {
        throw new NumberFormatException();
      }
      return n;
    } catch (NumberFormatException e) {
      throw new BadQueryException(what + ": expected a non-negative integer but got '" + v + "'");
    }
  }

  private HttpResponse pin(String p, String v) throws Exception {
    int partition = partitionId(p);
    long version = version(v, "version");
    int sv = servedSchemaVersion();
    try {
      store.pin(sv, partition, version);
    } catch (IllegalArgumentException e) {
      throw new BadQueryException(e.getMessage(), e);
    }
    generations.reopen().get(30, TimeUnit.SECONDS);
    return partitionState(sv, partition);
  }

  private HttpResponse switchSchema(String v) throws Exception {
    int sv = (int) Math.min(Integer.MAX_VALUE, version(v, "version"));
    long id;
    try {
      id = generations.switchSchemaVersion(sv).get(60, TimeUnit.SECONDS);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IllegalArgumentException iae) {
        throw new BadQueryException(iae.getMessage(), iae);
      }
      throw e;
    }
    ObjectNode n = JSON.createObjectNode();
    n.put("schemaVersion", sv);
    n.put("generation", id);
    return json(StatusCodes.OK, n);
  }

  private HttpResponse unpin(String p) throws Exception {
    int partition = partitionId(p);
    int sv = servedSchemaVersion();
    boolean was = store.unpin(sv, partition);
    generations.reopen().get(30, TimeUnit.SECONDS);
    HttpResponse r = partitionState(sv, partition);
    return was ? r : error(StatusCodes.BAD_REQUEST, "partition " + partition + " is not pinned");
  }

  private HttpResponse partitionState(int sv, int partition) {
    for (PartitionStore.PartitionState s : store.partitionStates(sv)) {
      if (s.partition() == partition) {
        ObjectNode n = JSON.createObjectNode();
        n.put("partition", partition);
        n.put("version", s.serving().id().version());
        n.put("pinned", s.pinned());
        ArrayNode versions = n.putArray("versions");
        s.versions().forEach(versions::add);
        try (Generation g = generations.acquire()) {
          n.put("generation", g.id());
        }
        return json(StatusCodes.OK, n);
      }
    }
    throw new BadQueryException("partition " + partition + " is not held");
  }

  private Route upload(String p, String v) {
    if (maxUploadBytes <= 0) {
      return complete(
          error(StatusCodes.FORBIDDEN, "publishing files over HTTP is disabled on this searcher"));
    }
    return withSizeLimit(
        maxUploadBytes,
        () ->
            parameterOptional(
                "schemaVersion",
                s ->
                    entity(
                        Unmarshaller.entityToByteArray(),
                        bytes ->
                            admin(
                                () -> {
                                  int partition = partitionId(p);
                                  long version = version(v, "version");
                                  int sv =
                                      s.isPresent()
                                          ? (int) version(s.get(), "schemaVersion")
                                          : servingSchemaVersionOrNewest();
                                  PartitionFileId id = new PartitionFileId(sv, partition, version);
                                  try (ReceivingStore.StagedFile staged =
                                      store.stage(id, bytes.length)) {
                                    Files.write(staged.path(), bytes);
                                    staged.publish();
                                  }
                                  ObjectNode n = JSON.createObjectNode();
                                  n.put("published", id.toString());
                                  n.put("sizeBytes", bytes.length);
                                  return json(StatusCodes.OK, n);
                                }))));
  }
}
