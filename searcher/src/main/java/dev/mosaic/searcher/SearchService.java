package dev.mosaic.searcher;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.google.protobuf.Descriptors.Descriptor;
import dev.mosaic.format.Aggregation;
import dev.mosaic.format.CompiledQuery;
import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.Explanation;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Hit;
import dev.mosaic.format.Page;
import dev.mosaic.format.Schema;
import dev.mosaic.format.json.CountRequest;
import dev.mosaic.format.json.SearchRequest;
import dev.mosaic.format.query.Query;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Runs JSON searches and counts (the language of {@code searcher/QUERY.md}) on the current
 * generation and renders JSON answers. Each call acquires one generation and releases it before
 * returning, so an answer is consistent with exactly one generation (whose id it carries).
 *
 * <p>Thread safety: safe for concurrent use.
 */
public final class SearchService {
  private static final JsonFactory JSON = new JsonFactory();

  private final Generations generations;
  private final PayloadDecoder payloads;
  private final QueryLimits limits;
  private final MeterRegistry registry;

  /**
   * @param generations where queries run
   * @param payloads how payloads are turned into JSON
   * @param maxLimit the largest {@code limit} accepted
   * @param registry where query latencies are recorded ({@code mosaic.searcher.query})
   */
  public SearchService(
      Generations generations, PayloadDecoder payloads, int maxLimit, MeterRegistry registry) {
    this(
        generations,
        payloads,
        new QueryLimits(
            maxLimit,
            QueryLimits.DEFAULT.maxClauses(),
            QueryLimits.DEFAULT.maxDepth(),
            QueryLimits.DEFAULT.maxInValues(),
            QueryLimits.DEFAULT.timeBudget()),
        registry);
  }

  /**
   * @param generations where queries run
   * @param payloads how payloads are turned into JSON
   * @param limits what one query may ask
   * @param registry where query latencies are recorded ({@code mosaic.searcher.query})
   */
  public SearchService(
      Generations generations,
      PayloadDecoder payloads,
      QueryLimits limits,
      MeterRegistry registry) {
    this.generations = Objects.requireNonNull(generations, "generations");
    this.payloads = Objects.requireNonNull(payloads, "payloads");
    this.limits = Objects.requireNonNull(limits, "limits");
    this.registry = Objects.requireNonNull(registry, "registry");
    // register both endpoints up front so they show in /metrics before the first query
    timer("search", "ok");
    timer("count", "ok");
  }

  /** The largest limit accepted. */
  public int maxLimit() {
    return limits.maxLimit();
  }

  /** The limits every query is held to. */
  public QueryLimits limits() {
    return limits;
  }

  private long deadline(long arrived) {
    long budget = limits.timeBudget().toNanos();
    return arrived + budget < arrived ? Long.MAX_VALUE : arrived + budget;
  }

  private void checkBudget(long deadline, String where) {
    if (System.nanoTime() - deadline > 0) {
      throw new QueryBudgetExceededException(limits.timeBudget().toMillis(), where);
    }
  }

  /**
   * Runs a search given as JSON and returns the JSON answer.
   *
   * @throws BadQueryException for a query that is wrong (400)
   * @throws IllegalStateException when no generation is open (503)
   */
  public byte[] search(byte[] json) {
    return search(json, System.nanoTime());
  }

  /**
   * Runs a search that arrived at {@code arrivedNanos} ({@link System#nanoTime()}): its time budget
   * counts from then, so time spent waiting for a query thread is part of it.
   *
   * @throws BadQueryException for a query that is wrong or over its budget (400)
   * @throws IllegalStateException when no generation is open (503)
   */
  public byte[] search(byte[] json, long arrivedNanos) {
    return timed("search", () -> doSearch(json, arrivedNanos));
  }

  /** Runs a count given as JSON ({@code {"filter": ...}}) and returns the JSON answer. */
  public byte[] count(byte[] json) {
    return count(json, System.nanoTime());
  }

  /** As {@link #count(byte[])}, with the time budget counted from {@code arrivedNanos}. */
  public byte[] count(byte[] json, long arrivedNanos) {
    return timed("count", () -> doCount(json, arrivedNanos));
  }

  private interface Body {
    byte[] run() throws IOException;
  }

  private byte[] timed(String endpoint, Body body) {
    long t0 = System.nanoTime();
    String outcome = "error";
    try {
      byte[] out = body.run();
      outcome = "ok";
      return out;
    } catch (BadQueryException e) {
      outcome = "bad_request";
      throw e;
    } catch (IllegalStateException e) {
      outcome = generations.isReady() ? "error" : "unavailable";
      throw e;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } finally {
      timer(endpoint, outcome).record(System.nanoTime() - t0, TimeUnit.NANOSECONDS);
    }
  }

  /** The query timers by endpoint and outcome, so a query does not look its timer up. */
  private final java.util.concurrent.ConcurrentHashMap<String, Timer> timers =
      new java.util.concurrent.ConcurrentHashMap<>();

  private Timer timer(String endpoint, String outcome) {
    return timers.computeIfAbsent(endpoint + '/' + outcome, k -> newTimer(endpoint, outcome));
  }

  private Timer newTimer(String endpoint, String outcome) {
    return Timer.builder("mosaic.searcher.query")
        .description("Query latency, by endpoint and outcome")
        .tags("endpoint", endpoint, "outcome", outcome)
        .publishPercentileHistogram()
        .register(registry);
  }

  private byte[] doCount(byte[] json, long arrived) throws IOException {
    long t0 = System.nanoTime();
    long deadline = deadline(arrived);
    checkBudget(deadline, "waiting for a query thread");
    try (Generation g = generations.acquire()) {
      CompositeDatabase db = g.database();
      CountRequest c = JsonQuery.parseCount(json, db.schema(), limits);
      // compiled once, for the count or the aggregation
      CompiledQuery request =
          checked(() -> db.compile(Query.where(c.condition()), c.facets(), c.stats()));
      Aggregation aggregation = null;
      long total;
      if (c.facets().isEmpty() && c.stats().isEmpty()) {
        total = checked(() -> db.count(request));
      } else {
        aggregation = checked(() -> checkFacetSizes(db.aggregate(request)));
        total = aggregation.count();
      }
      checkBudget(deadline, "counting");
      ByteArrayOutputStream out = new ByteArrayOutputStream(128);
      try (JsonGenerator gen = JSON.createGenerator(out, JsonEncoding.UTF8)) {
        gen.writeStartObject();
        gen.writeNumberField("generation", g.id());
        gen.writeNumberField("total", total);
        writeAggregation(gen, aggregation);
        gen.writeNumberField("tookMs", (System.nanoTime() - t0) / 1e6);
        gen.writeEndObject();
      }
      return out.toByteArray();
    }
  }

  /**
   * Runs a call into the format, turning what it refuses ({@link IllegalArgumentException}: the
   * parser checks everything it knows, whatever the format still refuses is the query's fault) into
   * a {@link BadQueryException}.
   */
  private static <T> T checked(java.util.function.Supplier<T> call) {
    try {
      return call.get();
    } catch (BadQueryException e) {
      throw e;
    } catch (IllegalArgumentException e) {
      throw new BadQueryException(e.getMessage(), e);
    }
  }

  /** Refuses an {@code all} facet that returned more values than {@code maxFacetValues}. */
  private Aggregation checkFacetSizes(Aggregation a) {
    for (int i = 0; i < a.facets().size(); i++) {
      int values = a.facets().get(i).entries().size();
      if (values > limits.maxFacetValues()) {
        throw new BadQueryException(
            "facets["
                + i
                + "]: field '"
                + a.facets().get(i).field()
                + "' has "
                + values
                + " values among the matches, over the maximum of "
                + limits.maxFacetValues()
                + " (maxFacetValues); ask for \"top\" instead of \"all\"");
      }
    }
    return a;
  }

  private static void writeAggregation(JsonGenerator gen, Aggregation a) throws IOException {
    if (a == null) {
      return;
    }
    if (!a.facets().isEmpty()) {
      gen.writeArrayFieldStart("facets");
      for (Aggregation.FacetCounts f : a.facets()) {
        gen.writeStartObject();
        gen.writeStringField("field", f.field());
        gen.writeArrayFieldStart("counts");
        for (Aggregation.Entry e : f.entries()) {
          gen.writeStartObject();
          gen.writeFieldName("value");
          writeValue(gen, e.value());
          gen.writeNumberField("count", e.count());
          gen.writeEndObject();
        }
        gen.writeEndArray();
        gen.writeEndObject();
      }
      gen.writeEndArray();
    }
    if (!a.stats().isEmpty()) {
      gen.writeArrayFieldStart("stats");
      for (Aggregation.FieldStats s : a.stats()) {
        gen.writeStartObject();
        gen.writeStringField("field", s.field());
        gen.writeNumberField("count", s.count());
        gen.writeFieldName("min");
        writeValue(gen, s.min());
        gen.writeFieldName("max");
        writeValue(gen, s.max());
        if (!s.buckets().isEmpty()) {
          gen.writeArrayFieldStart("buckets");
          for (long b : s.buckets()) {
            gen.writeNumber(b);
          }
          gen.writeEndArray();
        }
        gen.writeEndObject();
      }
      gen.writeEndArray();
    }
  }

  private static void writeExplanation(JsonGenerator gen, Explanation e) throws IOException {
    gen.writeStartObject();
    gen.writeStringField("step", e.step());
    gen.writeNumberField("matches", e.matches());
    gen.writeNumberField("micros", e.nanos() / 1e3);
    if (!e.children().isEmpty()) {
      gen.writeArrayFieldStart("children");
      for (Explanation c : e.children()) {
        writeExplanation(gen, c);
      }
      gen.writeEndArray();
    }
    gen.writeEndObject();
  }

  private byte[] doSearch(byte[] json, long arrived) throws IOException {
    long t0 = System.nanoTime();
    long deadline = deadline(arrived);
    checkBudget(deadline, "waiting for a query thread");
    try (Generation g = generations.acquire()) {
      CompositeDatabase db = g.database();
      Schema schema = db.schema();
      SearchRequest s = JsonQuery.parseSearch(json, schema, limits);
      // compiled once for the page and the trace; one evaluation of the filter per partition gives
      // the total, the facets and stats, and the page
      CompiledQuery request = checked(() -> db.compile(s.query(), s.facets(), s.stats()));
      Page page = checked(() -> db.page(request));
      checkFacetSizes(page.aggregation());
      Aggregation aggregation = page.aggregation();
      checkBudget(deadline, "counting the matches");
      Optional<Descriptor> type = payloads.descriptor(schema.payloadType());
      FieldType[] types =
          s.fields().stream().map(f -> schema.field(f).type()).toArray(FieldType[]::new);
      ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
      try (JsonGenerator gen = JSON.createGenerator(out, JsonEncoding.UTF8)) {
        gen.writeStartObject();
        gen.writeNumberField("generation", g.id());
        gen.writeNumberField("total", page.total());
        gen.writeArrayFieldStart("hits");
        for (Hit hit : page.hits()) {
          checkBudget(deadline, "producing hits");
          writeHit(gen, g, hit.document(), hit.database(), s.fields(), types, s.payload(), type);
        }
        gen.writeEndArray();
        writeAggregation(gen, aggregation);
        if (s.explain()) {
          Explanation trace = checked(() -> db.explain(request));
          checkBudget(deadline, "explaining");
          gen.writeFieldName("explain");
          writeExplanation(gen, trace);
        }
        gen.writeNumberField("tookMs", (System.nanoTime() - t0) / 1e6);
        gen.writeEndObject();
      }
      return out.toByteArray();
    }
  }

  private void writeHit(
      JsonGenerator gen,
      Generation g,
      int doc,
      Database part,
      List<String> fields,
      FieldType[] types,
      boolean withPayload,
      Optional<Descriptor> type)
      throws IOException {
    gen.writeStartObject();
    gen.writeNumberField("partition", g.partitionOf(part));
    gen.writeNumberField("document", doc);
    gen.writeObjectFieldStart("values");
    for (int i = 0; i < types.length; i++) {
      gen.writeFieldName(fields.get(i));
      writeValue(gen, part.sortableValue(doc, fields.get(i)));
    }
    gen.writeEndObject();
    if (withPayload) {
      MemorySegment payload = part.payload(doc);
      Optional<String> decoded = type.flatMap(t -> payloads.toJson(t, payload));
      if (decoded.isPresent()) {
        gen.writeFieldName("payload");
        gen.writeRawValue(decoded.get());
      } else if (payload.byteSize() > 0) {
        gen.writeStringField(
            "payloadBase64",
            Base64.getEncoder().encodeToString(payload.toArray(ValueLayout.JAVA_BYTE)));
      }
    }
    gen.writeEndObject();
  }

  private static void writeValue(JsonGenerator gen, Object v) throws IOException {
    switch (v) {
      case Integer i -> gen.writeNumber(i);
      case Long l -> gen.writeNumber(l);
      case Double d -> {
        if (d.isNaN() || d.isInfinite()) {
          gen.writeString(d.toString());
        } else {
          gen.writeNumber(d);
        }
      }
      case Boolean b -> gen.writeBoolean(b);
      case String s -> gen.writeString(s);
      case Instant t -> gen.writeString(t.toString());
      case byte[] b -> gen.writeString(Base64.getEncoder().encodeToString(b));
      case null -> gen.writeNull();
      default -> gen.writeString(String.valueOf(v));
    }
  }
}
