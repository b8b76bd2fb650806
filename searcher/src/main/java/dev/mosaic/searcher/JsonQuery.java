package dev.mosaic.searcher;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import dev.mosaic.format.Field;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.io.IOException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Parses the JSON query language of {@code searcher/QUERY.md} against a schema into a {@link
 * Query}, checking everything up front: every problem becomes a {@link BadQueryException} whose
 * message names the JSON path and what was wrong.
 *
 * <p>Thread safety: stateless apart from the shared, thread-safe {@link ObjectMapper}.
 */
public final class JsonQuery {
  /** Limit used when a search does not give one. */
  public static final int DEFAULT_LIMIT = 10;

  private static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final Set<String> SEARCH_KEYS =
      Set.of(
          "filter", "orderBy", "skip", "limit", "fields", "payload", "facets", "stats", "explain");
  private static final Set<String> COUNT_KEYS = Set.of("filter", "facets", "stats");

  /** Largest {@code top} of a facet. */
  public static final int MAX_FACET_TOP = 1000;

  private JsonQuery() {}

  /**
   * A parsed search.
   *
   * @param query condition, order, skip and limit
   * @param fields the sortable fields whose values each hit carries
   * @param payload whether hits carry their payload
   * @param facets facet counts to compute over the matches
   * @param stats field statistics to compute over the matches
   * @param explain whether to add the query's per-step trace ({@code Searchable.explain})
   */
  public record Search(
      Query query,
      List<String> fields,
      boolean payload,
      List<Facet> facets,
      List<Stats> stats,
      boolean explain) {}

  /**
   * A parsed count.
   *
   * @param condition the filter
   * @param facets facet counts to compute over the matches
   * @param stats field statistics to compute over the matches
   */
  public record Count(Condition condition, List<Facet> facets, List<Stats> stats) {}

  /** Parses the JSON text of a search with the default limits but the given largest limit. */
  public static Search parseSearch(byte[] json, Schema schema, int maxLimit) {
    QueryLimits d = QueryLimits.DEFAULT;
    return parseSearch(
        json,
        schema,
        new QueryLimits(maxLimit, d.maxClauses(), d.maxDepth(), d.maxInValues(), d.timeBudget()));
  }

  /** Parses the JSON text of a search, refusing one over any of {@code limits}. */
  public static Search parseSearch(byte[] json, Schema schema, QueryLimits limits) {
    JsonNode root = readObject(json);
    limits.checkFilter(root.get("filter"));
    return parseSearch(root, schema, limits);
  }

  /** Parses the JSON text of a count, refusing one over any of {@code limits}. */
  public static Count parseCount(byte[] json, Schema schema, QueryLimits limits) {
    JsonNode root = readObject(json);
    limits.checkFilter(root.get("filter"));
    return parseCount(root, schema, limits);
  }

  private static Search parseSearch(JsonNode root, Schema schema, QueryLimits limits) {
    checkKeys(root, SEARCH_KEYS, "");
    Condition condition =
        root.has("filter") ? condition(root.get("filter"), schema, "filter") : Condition.all();
    List<Order> orders = orders(root.get("orderBy"), schema, limits);
    int skip = nonNegativeInt(root.get("skip"), "skip", 0, Integer.MAX_VALUE);
    int limit =
        nonNegativeInt(root.get("limit"), "limit", DEFAULT_LIMIT, limits.maxLimit(), "maxLimit");
    limits.checkWindow(skip, limit);
    List<String> fields = fields(root.get("fields"), schema, limits);
    boolean payload = bool(root.get("payload"), "payload", true);
    boolean explain = bool(root.get("explain"), "explain", false);
    return new Search(
        new Query(condition, orders, skip, limit),
        fields,
        payload,
        facets(root.get("facets"), schema, limits),
        stats(root.get("stats"), schema, limits),
        explain);
  }

  /**
   * Parses the JSON text of a count (an object with optional {@code filter}, facets and stats) with
   * the default limits.
   */
  public static Count parseCount(byte[] json, Schema schema) {
    return parseCount(json, schema, QueryLimits.DEFAULT);
  }

  private static Count parseCount(JsonNode root, Schema schema, QueryLimits limits) {
    checkKeys(root, COUNT_KEYS, "");
    Condition c =
        root.has("filter") ? condition(root.get("filter"), schema, "filter") : Condition.all();
    return new Count(
        c, facets(root.get("facets"), schema, limits), stats(root.get("stats"), schema, limits));
  }

  private static List<Facet> facets(JsonNode n, Schema schema, QueryLimits limits) {
    List<Facet> out = new ArrayList<>();
    if (n == null || n.isNull()) {
      return out;
    }
    if (!n.isArray()) {
      throw new BadQueryException(
          "facets: expected an array of facet requests but got " + describe(n));
    }
    QueryLimits.checkCount("facets", n.size(), limits.maxFacets(), "maxFacets");
    for (int i = 0; i < n.size(); i++) {
      String path = "facets[" + i + "]";
      JsonNode e = n.get(i);
      if (e.isTextual()) {
        out.add(
            Facet.top(
                facetField(schema, e.textValue(), path).name(),
                Math.min(10, limits.maxFacetValues())));
        continue;
      }
      if (!e.isObject()) {
        throw new BadQueryException(
            path
                + ": expected a field name or {\"field\": ..., \"top\"|\"all\"|\"values\": ...} but got "
                + describe(e));
      }
      checkKeys(e, Set.of("field", "top", "all", "values"), path);
      JsonNode f = e.get("field");
      if (f == null || !f.isTextual()) {
        throw new BadQueryException(path + ".field: expected a field name but got " + describe(f));
      }
      Field field = facetField(schema, f.textValue(), path + ".field");
      int kinds = (e.has("top") ? 1 : 0) + (e.has("all") ? 1 : 0) + (e.has("values") ? 1 : 0);
      if (kinds > 1) {
        throw new BadQueryException(
            path + ": give one of \"top\", \"all\" or \"values\", not several");
      }
      if (e.has("values")) {
        JsonNode v = e.get("values");
        if (!v.isArray()) {
          throw new BadQueryException(
              path + ".values: expected an array of values but got " + describe(v));
        }
        QueryLimits.checkCount(
            path + ".values", v.size(), limits.maxFacetValues(), "maxFacetValues");
        List<Object> values = new ArrayList<>();
        for (int j = 0; j < v.size(); j++) {
          values.add(value(field, v.get(j), path + ".values[" + j + "]"));
        }
        out.add(Facet.values(field.name(), values));
      } else if (e.has("all")) {
        if (!e.get("all").isBoolean() || !e.get("all").booleanValue()) {
          throw new BadQueryException(
              path + ".all: expected true but got " + describe(e.get("all")));
        }
        out.add(Facet.all(field.name()));
      } else {
        int top =
            nonNegativeInt(
                e.get("top"),
                path + ".top",
                Math.min(10, limits.maxFacetValues()),
                Math.min(MAX_FACET_TOP, limits.maxFacetValues()),
                "maxFacetValues");
        out.add(Facet.top(field.name(), top));
      }
    }
    return out;
  }

  private static Field facetField(Schema schema, String name, String path) {
    Field f = knownField(schema, name, path);
    if (!f.role().isFilterable()) {
      throw new BadQueryException(
          path + ": cannot facet on field '" + name + "': it is " + f.role() + ", not filterable");
    }
    return f;
  }

  private static List<Stats> stats(JsonNode n, Schema schema, QueryLimits limits) {
    List<Stats> out = new ArrayList<>();
    if (n == null || n.isNull()) {
      return out;
    }
    if (!n.isArray()) {
      throw new BadQueryException(
          "stats: expected an array of stats requests but got " + describe(n));
    }
    QueryLimits.checkCount("stats", n.size(), limits.maxStats(), "maxStats");
    for (int i = 0; i < n.size(); i++) {
      String path = "stats[" + i + "]";
      JsonNode e = n.get(i);
      String name;
      JsonNode bounds = null;
      if (e.isTextual()) {
        name = e.textValue();
      } else if (e.isObject()) {
        checkKeys(e, Set.of("field", "bounds"), path);
        JsonNode f = e.get("field");
        if (f == null || !f.isTextual()) {
          throw new BadQueryException(
              path + ".field: expected a field name but got " + describe(f));
        }
        name = f.textValue();
        bounds = e.get("bounds");
      } else {
        throw new BadQueryException(
            path
                + ": expected a field name or {\"field\": ..., \"bounds\": [...]} but got "
                + describe(e));
      }
      Field f = knownField(schema, name, path);
      if (!f.role().isSortable()) {
        throw new BadQueryException(
            path
                + ": no statistics on field '"
                + name
                + "': it is "
                + f.role()
                + ", not sortable; sortable fields are "
                + sortable(schema));
      }
      List<Object> values = new ArrayList<>();
      if (bounds != null && !bounds.isNull()) {
        if (!bounds.isArray()) {
          throw new BadQueryException(
              path + ".bounds: expected an array of values but got " + describe(bounds));
        }
        QueryLimits.checkCount(
            path + ".bounds", bounds.size(), limits.maxFacetValues(), "maxFacetValues");
        for (int j = 0; j < bounds.size(); j++) {
          values.add(value(f, bounds.get(j), path + ".bounds[" + j + "]"));
        }
      }
      out.add(new Stats(f.name(), values));
    }
    return out;
  }

  /** Parses one condition (the value of {@code filter}). */
  public static Condition parseCondition(JsonNode node, Schema schema) {
    return condition(node, schema, "filter");
  }

  private static JsonNode readObject(byte[] json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new BadQueryException("malformed JSON: " + e.getOriginalMessage() + locate(e), e);
    } catch (IOException e) {
      throw new BadQueryException("malformed JSON: " + e.getMessage(), e);
    }
    if (root == null || root.isMissingNode()) {
      throw new BadQueryException("malformed JSON: the body is empty; expected a JSON object");
    }
    if (!root.isObject()) {
      throw new BadQueryException("expected a JSON object but got " + describe(root));
    }
    return root;
  }

  private static String locate(JsonProcessingException e) {
    var loc = e.getLocation();
    return loc == null ? "" : " (line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ")";
  }

  private static void checkKeys(JsonNode node, Set<String> allowed, String path) {
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String n = names.next();
      if (!allowed.contains(n)) {
        throw new BadQueryException(
            (path.isEmpty() ? "" : path + ": ")
                + "unknown key '"
                + n
                + "'; allowed keys are "
                + new java.util.TreeSet<>(allowed));
      }
    }
  }

  private static int nonNegativeInt(JsonNode n, String path, int dflt, int max) {
    return nonNegativeInt(n, path, dflt, max, null);
  }

  private static int nonNegativeInt(JsonNode n, String path, int dflt, int max, String limit) {
    if (n == null || n.isNull()) {
      return dflt;
    }
    if (!n.isIntegralNumber() || !n.canConvertToInt()) {
      throw new BadQueryException(
          path + ": expected a non-negative integer but got " + describe(n));
    }
    int v = n.intValue();
    if (v < 0) {
      throw new BadQueryException(path + ": must be >= 0, got " + v);
    }
    if (v > max) {
      throw new BadQueryException(
          path
              + ": "
              + v
              + " is over the maximum of "
              + max
              + (limit == null ? "" : " (" + limit + ")"));
    }
    return v;
  }

  private static List<Order> orders(JsonNode n, Schema schema, QueryLimits limits) {
    List<Order> out = new ArrayList<>();
    if (n == null || n.isNull()) {
      return out;
    }
    if (n.isTextual() || n.isObject()) {
      out.add(order(n, schema, "orderBy"));
      return out;
    }
    if (!n.isArray()) {
      throw new BadQueryException("orderBy: expected an array of sort keys but got " + describe(n));
    }
    QueryLimits.checkCount("orderBy", n.size(), limits.maxOrderBy(), "maxOrderBy");
    for (int i = 0; i < n.size(); i++) {
      out.add(order(n.get(i), schema, "orderBy[" + i + "]"));
    }
    return out;
  }

  private static Order order(JsonNode n, Schema schema, String path) {
    String field;
    boolean desc;
    if (n.isTextual()) {
      String s = n.textValue();
      desc = s.startsWith("-");
      field = desc || s.startsWith("+") ? s.substring(1) : s;
    } else if (n.isObject()) {
      checkKeys(n, Set.of("field", "order"), path);
      JsonNode f = n.get("field");
      if (f == null || !f.isTextual()) {
        throw new BadQueryException(path + ".field: expected a field name but got " + describe(f));
      }
      field = f.textValue();
      JsonNode o = n.get("order");
      if (o == null) {
        desc = false;
      } else if (o.isTextual() && o.textValue().equalsIgnoreCase("asc")) {
        desc = false;
      } else if (o.isTextual() && o.textValue().equalsIgnoreCase("desc")) {
        desc = true;
      } else {
        throw new BadQueryException(
            path + ".order: expected \"asc\" or \"desc\" but got " + describe(o));
      }
    } else {
      throw new BadQueryException(
          path
              + ": expected a field name (\"price\", \"-price\") or {\"field\":..., \"order\":...} but got "
              + describe(n));
    }
    Field f = knownField(schema, field, path);
    if (!f.role().isSortable()) {
      throw new BadQueryException(
          path
              + ": cannot sort on field '"
              + field
              + "': it is "
              + f.role()
              + ", not sortable; sortable fields are "
              + sortable(schema));
    }
    return new Order(field, desc);
  }

  private static List<String> fields(JsonNode n, Schema schema, QueryLimits limits) {
    if (n == null || n.isNull()) {
      return sortable(schema);
    }
    if (!n.isArray()) {
      throw new BadQueryException(
          "fields: expected an array of field names but got " + describe(n));
    }
    QueryLimits.checkCount("fields", n.size(), limits.maxFields(), "maxFields");
    Set<String> out = new LinkedHashSet<>();
    for (int i = 0; i < n.size(); i++) {
      JsonNode e = n.get(i);
      String path = "fields[" + i + "]";
      if (!e.isTextual()) {
        throw new BadQueryException(path + ": expected a field name but got " + describe(e));
      }
      Field f = knownField(schema, e.textValue(), path);
      if (!f.role().isSortable()) {
        throw new BadQueryException(
            path
                + ": field '"
                + f.name()
                + "' is "
                + f.role()
                + " and has no stored value to return; returnable fields are "
                + sortable(schema));
      }
      out.add(f.name());
    }
    return List.copyOf(out);
  }

  private static List<String> sortable(Schema schema) {
    return schema.fields().stream().filter(f -> f.role().isSortable()).map(Field::name).toList();
  }

  private static Field knownField(Schema schema, String name, String path) {
    if (!schema.hasField(name)) {
      throw new BadQueryException(
          path
              + ": unknown field '"
              + name
              + "'; the schema has "
              + schema.fields().stream().map(Field::name).toList());
    }
    return schema.field(name);
  }

  private static Condition condition(JsonNode n, Schema schema, String path) {
    if (n == null || !n.isObject()) {
      throw new BadQueryException(
          path
              + ": expected a condition object such as {\"eq\": {\"field\": value}} but got "
              + describe(n));
    }
    if (n.size() != 1) {
      throw new BadQueryException(
          path
              + ": a condition object has exactly one operator key (eq, in, gt, gte, lt, lte, between, and, or, not, all), got "
              + n.size());
    }
    Map.Entry<String, JsonNode> e = n.properties().iterator().next();
    String op = e.getKey();
    JsonNode arg = e.getValue();
    String here = path + "." + op;
    return switch (op) {
      case "and", "or" -> {
        if (!arg.isArray()) {
          throw new BadQueryException(
              here + ": expected an array of conditions but got " + describe(arg));
        }
        List<Condition> parts = new ArrayList<>();
        for (int i = 0; i < arg.size(); i++) {
          parts.add(condition(arg.get(i), schema, here + "[" + i + "]"));
        }
        yield op.equals("and") ? Condition.and(parts) : Condition.or(parts);
      }
      case "not" -> Condition.not(condition(arg, schema, here));
      case "all" -> {
        if (!(arg.isObject() && arg.isEmpty()) && !arg.isBoolean()) {
          throw new BadQueryException(here + ": expected {} but got " + describe(arg));
        }
        yield Condition.all();
      }
      case "eq", "in", "gt", "gte", "lt", "lte", "between" -> fieldCondition(op, arg, schema, here);
      default ->
          throw new BadQueryException(
              path
                  + ": unknown operator '"
                  + op
                  + "'; known operators are eq, in, gt, gte, lt, lte, between, and, or, not, all");
    };
  }

  private static Condition fieldCondition(String op, JsonNode arg, Schema schema, String path) {
    if (!arg.isObject() || arg.size() != 1) {
      throw new BadQueryException(
          path
              + ": expected an object with exactly one field, such as {\"price\": ...}, but got "
              + describe(arg));
    }
    Map.Entry<String, JsonNode> e = arg.properties().iterator().next();
    String name = e.getKey();
    String here = path + "." + name;
    Field f = knownField(schema, name, here);
    if (!f.role().isFilterable()) {
      throw new BadQueryException(
          here + ": cannot filter on field '" + name + "': it is " + f.role() + ", not filterable");
    }
    JsonNode v = e.getValue();
    return switch (op) {
      case "eq" -> Condition.eq(name, value(f, v, here));
      case "gt" -> Condition.gt(name, value(f, v, here));
      case "gte" -> Condition.gte(name, value(f, v, here));
      case "lt" -> Condition.lt(name, value(f, v, here));
      case "lte" -> Condition.lte(name, value(f, v, here));
      case "in" -> {
        if (!v.isArray()) {
          throw new BadQueryException(
              here + ": expected an array of values but got " + describe(v));
        }
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < v.size(); i++) {
          values.add(value(f, v.get(i), here + "[" + i + "]"));
        }
        yield Condition.in(name, values);
      }
      case "between" -> between(f, v, here);
      default -> throw new AssertionError(op);
    };
  }

  private static Condition between(Field f, JsonNode v, String path) {
    if (v.isArray()) {
      if (v.size() != 2) {
        throw new BadQueryException(path + ": expected [from, to] but got an array of " + v.size());
      }
      return Condition.between(
          f.name(), value(f, v.get(0), path + "[0]"), true, value(f, v.get(1), path + "[1]"), true);
    }
    if (v.isObject()) {
      checkKeys(v, Set.of("from", "to", "fromInclusive", "toInclusive"), path);
      if (!v.has("from") || !v.has("to")) {
        throw new BadQueryException(path + ": between needs both \"from\" and \"to\"");
      }
      return Condition.between(
          f.name(),
          value(f, v.get("from"), path + ".from"),
          bool(v.get("fromInclusive"), path + ".fromInclusive", true),
          value(f, v.get("to"), path + ".to"),
          bool(v.get("toInclusive"), path + ".toInclusive", true));
    }
    throw new BadQueryException(
        path + ": expected [from, to] or {\"from\":..., \"to\":...} but got " + describe(v));
  }

  private static boolean bool(JsonNode n, String path, boolean dflt) {
    if (n == null) {
      return dflt;
    }
    if (!n.isBoolean()) {
      throw new BadQueryException(path + ": expected true or false but got " + describe(n));
    }
    return n.booleanValue();
  }

  /** Converts a JSON value to the Java value of a field's type. */
  static Object value(Field f, JsonNode n, String path) {
    FieldType t = f.type();
    String expected =
        switch (t) {
          case INT -> "a 32-bit integer";
          case LONG -> "a 64-bit integer";
          case DOUBLE -> "a number";
          case BOOLEAN -> "true or false";
          case STRING -> "a string";
          case TIMESTAMP -> "epoch milliseconds or an ISO-8601 instant string";
          case BYTES -> "a base64 string";
        };
    switch (t) {
      case INT -> {
        if (n.isIntegralNumber() && n.canConvertToInt()) {
          return n.intValue();
        }
      }
      case LONG -> {
        if (n.isIntegralNumber() && n.canConvertToLong()) {
          return n.longValue();
        }
      }
      case DOUBLE -> {
        if (n.isNumber()) {
          return n.doubleValue();
        }
      }
      case BOOLEAN -> {
        if (n.isBoolean()) {
          return n.booleanValue();
        }
      }
      case STRING -> {
        if (n.isTextual()) {
          return n.textValue();
        }
      }
      case TIMESTAMP -> {
        if (n.isIntegralNumber() && n.canConvertToLong()) {
          return n.longValue();
        }
        if (n.isTextual()) {
          try {
            return Instant.parse(n.textValue());
          } catch (DateTimeParseException e) {
            throw new BadQueryException(
                path
                    + ": field '"
                    + f.name()
                    + "' is TIMESTAMP; cannot parse \""
                    + n.textValue()
                    + "\" as an ISO-8601 instant (e.g. 2024-05-01T12:00:00Z)");
          }
        }
      }
      case BYTES -> {
        if (n.isTextual()) {
          try {
            return Base64.getDecoder().decode(n.textValue());
          } catch (IllegalArgumentException e) {
            throw new BadQueryException(
                path
                    + ": field '"
                    + f.name()
                    + "' is BYTES; the value is not valid base64: "
                    + e.getMessage());
          }
        }
      }
    }
    throw new BadQueryException(
        path
            + ": field '"
            + f.name()
            + "' is "
            + t
            + " and needs "
            + expected
            + ", got "
            + describe(n));
  }

  static String describe(JsonNode n) {
    if (n == null || n.isMissingNode()) {
      return "nothing";
    }
    JsonNodeType type = n.getNodeType();
    String text = n.toString();
    if (text.length() > 60) {
      text = text.substring(0, 57) + "...";
    }
    return switch (type) {
      case NUMBER -> (n.isIntegralNumber() ? "the integer " : "the number ") + text;
      case STRING -> "the string " + text;
      case BOOLEAN -> "the boolean " + text;
      case NULL -> "null";
      case ARRAY -> "an array " + text;
      case OBJECT -> "an object " + text;
      default -> text;
    };
  }
}
