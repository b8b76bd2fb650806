package dev.mosaic.format.json;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Stats;
import java.time.Instant;
import java.util.Base64;
import java.util.List;

/**
 * Encodes requests and conditions in the canonical form of the JSON query language: every key
 * explicit, sort keys and facets and stats as objects, ranges as {@code gt}/{@code gte}/{@code
 * lt}/{@code lte} or {@code between} with explicit inclusivity.
 *
 * <p>Thread safety: stateless.
 */
final class QueryEncoder {
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private QueryEncoder() {}

  static byte[] bytes(JsonNode node) {
    try {
      return QueryDecoder.MAPPER.writeValueAsBytes(node);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot happen: writing a tree to memory", e);
    }
  }

  static ObjectNode search(SearchRequest s) {
    ObjectNode o = NODES.objectNode();
    o.set("filter", condition(s.query().condition()));
    ArrayNode orders = o.putArray("orderBy");
    for (Order order : s.query().orders()) {
      orders
          .addObject()
          .put("field", order.field())
          .put("order", order.descending() ? "desc" : "asc");
    }
    o.put("skip", s.query().skip());
    o.put("limit", s.query().limit());
    ArrayNode fields = o.putArray("fields");
    s.fields().forEach(fields::add);
    o.put("payload", s.payload());
    aggregations(o, s.facets(), s.stats());
    o.put("explain", s.explain());
    return o;
  }

  static ObjectNode count(CountRequest c) {
    ObjectNode o = NODES.objectNode();
    o.set("filter", condition(c.condition()));
    aggregations(o, c.facets(), c.stats());
    return o;
  }

  private static void aggregations(ObjectNode o, List<Facet> facets, List<Stats> stats) {
    ArrayNode fs = o.putArray("facets");
    for (Facet f : facets) {
      ObjectNode e = fs.addObject().put("field", f.field());
      switch (f.kind()) {
        case TOP -> e.put("top", f.top());
        case ALL -> e.put("all", true);
        case VALUES -> values(e.putArray("values"), f.values());
      }
    }
    ArrayNode ss = o.putArray("stats");
    for (Stats s : stats) {
      values(ss.addObject().put("field", s.field()).putArray("bounds"), s.bounds());
    }
  }

  static JsonNode condition(Condition c) {
    ObjectNode o = NODES.objectNode();
    switch (c) {
      case Condition.All a -> o.putObject("all");
      case Condition.Eq eq -> o.putObject("eq").set(eq.field(), value(eq.value()));
      case Condition.In in -> values(o.putObject("in").putArray(in.field()), in.values());
      case Condition.Range r -> range(o, r);
      case Condition.And and -> conditions(o.putArray("and"), and.conditions());
      case Condition.Or or -> conditions(o.putArray("or"), or.conditions());
      case Condition.Not not -> o.set("not", condition(not.condition()));
    }
    return o;
  }

  private static void range(ObjectNode o, Condition.Range r) {
    if (r.from() != null && r.to() != null) {
      o.putObject("between")
          .putObject(r.field())
          .<ObjectNode>set("from", value(r.from()))
          .put("fromInclusive", r.fromInclusive())
          .<ObjectNode>set("to", value(r.to()))
          .put("toInclusive", r.toInclusive());
    } else if (r.from() != null) {
      o.putObject(r.fromInclusive() ? "gte" : "gt").set(r.field(), value(r.from()));
    } else {
      o.putObject(r.toInclusive() ? "lte" : "lt").set(r.field(), value(r.to()));
    }
  }

  private static void conditions(ArrayNode a, List<Condition> conditions) {
    conditions.forEach(c -> a.add(condition(c)));
  }

  private static void values(ArrayNode a, List<Object> values) {
    values.forEach(v -> a.add(value(v)));
  }

  /**
   * A Java value of a field type as JSON: numbers, booleans and strings as such, non-finite doubles
   * as the strings {@code "NaN"}, {@code "Infinity"}, {@code "-Infinity"}, instants as ISO-8601,
   * bytes as base64.
   */
  static JsonNode value(Object v) {
    return switch (v) {
      case Integer i -> NODES.numberNode(i);
      case Long l -> NODES.numberNode(l);
      case Double d when d.isNaN() || d.isInfinite() -> NODES.textNode(d.toString());
      case Double d -> NODES.numberNode(d);
      case Float f -> value((double) f);
      case Boolean b -> NODES.booleanNode(b);
      case String s -> NODES.textNode(s);
      case Instant t -> NODES.textNode(t.toString());
      case byte[] b -> NODES.textNode(Base64.getEncoder().encodeToString(b));
      default ->
          throw new IllegalArgumentException(
              "cannot encode a value of " + v.getClass().getName() + " in a query");
    };
  }
}
