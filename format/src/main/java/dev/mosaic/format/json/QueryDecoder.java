package dev.mosaic.format.json;

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
import java.util.TreeSet;

/**
 * Decodes the JSON query language against one schema and one set of limits.
 *
 * <p>Thread safety: immutable; one instance may decode concurrently.
 */
final class QueryDecoder {
  static final ObjectMapper MAPPER =
      new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final Set<String> SEARCH_KEYS =
      Set.of(
          "filter", "orderBy", "skip", "limit", "fields", "payload", "facets", "stats", "explain");
  private static final Set<String> COUNT_KEYS = Set.of("filter", "facets", "stats");
  private static final String OPERATORS = "eq, in, gt, gte, lt, lte, between, and, or, not, all";

  private final Schema schema;
  private final RequestLimits limits;

  QueryDecoder(Schema schema, RequestLimits limits) {
    this.schema = schema;
    this.limits = limits;
  }

  static JsonNode readObject(byte[] json) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (JsonProcessingException e) {
      throw new InvalidQueryException(
          "", "malformed JSON: " + e.getOriginalMessage() + locate(e), e);
    } catch (IOException e) {
      throw new InvalidQueryException("", "malformed JSON: " + e.getMessage(), e);
    }
    if (root == null || root.isMissingNode()) {
      throw new InvalidQueryException(
          "", "malformed JSON: the body is empty; expected a JSON object");
    }
    if (!root.isObject()) {
      throw new InvalidQueryException("", "expected a JSON object but got " + describe(root));
    }
    return root;
  }

  private static String locate(JsonProcessingException e) {
    var loc = e.getLocation();
    return loc == null ? "" : " (line " + loc.getLineNr() + ", column " + loc.getColumnNr() + ")";
  }

  SearchRequest search(JsonNode root) {
    checkStructure(root.get("filter"), "filter");
    checkKeys(root, SEARCH_KEYS, "");
    Condition condition =
        root.has("filter") ? condition(root.get("filter"), "filter") : Condition.all();
    List<Order> orders = orders(root.get("orderBy"));
    int skip = nonNegativeInt(root.get("skip"), "skip", 0, Integer.MAX_VALUE, null);
    int limit =
        nonNegativeInt(
            root.get("limit"),
            "limit",
            Math.min(QueryCodec.DEFAULT_LIMIT, limits.maxLimit()),
            limits.maxLimit(),
            "maxLimit");
    if (limits.maxResultWindow() != Integer.MAX_VALUE
        && (long) skip + limit > limits.maxResultWindow()) {
      throw new InvalidQueryException(
          "skip",
          "skip + limit = "
              + ((long) skip + limit)
              + " is over the maximum result window of "
              + limits.maxResultWindow()
              + " (maxResultWindow); narrow the filter instead of paging this deep");
    }
    List<String> fields = fields(root.get("fields"));
    boolean payload = bool(root.get("payload"), "payload", true);
    boolean explain = bool(root.get("explain"), "explain", false);
    return new SearchRequest(
        new Query(condition, orders, skip, limit),
        fields,
        payload,
        facets(root.get("facets")),
        stats(root.get("stats")),
        explain);
  }

  CountRequest count(JsonNode root) {
    checkStructure(root.get("filter"), "filter");
    checkKeys(root, COUNT_KEYS, "");
    Condition c = root.has("filter") ? condition(root.get("filter"), "filter") : Condition.all();
    return new CountRequest(c, facets(root.get("facets")), stats(root.get("stats")));
  }

  /**
   * Checks a filter's JSON against the structural limits (clauses, depth, {@code in} values) before
   * it is decoded, so an oversized filter costs no decoding.
   */
  void checkStructure(JsonNode filter, String path) {
    if (filter != null) {
      walk(filter, path, 1, new int[1]);
    }
  }

  private void walk(JsonNode n, String path, int depth, int[] clauses) {
    if (n == null || !n.isObject() || n.size() != 1) {
      return; // decoding names the problem precisely
    }
    if (depth > limits.maxDepth()) {
      throw new InvalidQueryException(
          path,
          "conditions nest deeper than the maximum depth of " + limits.maxDepth() + " (maxDepth)");
    }
    if (++clauses[0] > limits.maxClauses()) {
      throw new InvalidQueryException(
          path,
          "the filter has more than the maximum of "
              + limits.maxClauses()
              + " clauses (maxClauses)");
    }
    Map.Entry<String, JsonNode> e = n.properties().iterator().next();
    String op = e.getKey();
    JsonNode arg = e.getValue();
    String here = path + "." + op;
    switch (op) {
      case "and", "or" -> {
        if (arg.isArray()) {
          for (int i = 0; i < arg.size(); i++) {
            walk(arg.get(i), here + "[" + i + "]", depth + 1, clauses);
          }
        }
      }
      case "not" -> walk(arg, here, depth + 1, clauses);
      case "in" -> {
        if (arg.isObject() && arg.size() == 1) {
          Map.Entry<String, JsonNode> f = arg.properties().iterator().next();
          if (f.getValue().isArray() && f.getValue().size() > limits.maxInValues()) {
            throw new InvalidQueryException(
                here + "." + f.getKey(),
                f.getValue().size()
                    + " values is over the maximum of "
                    + limits.maxInValues()
                    + " in one in list (maxInValues)");
          }
        }
      }
      default -> {}
    }
  }

  private static void checkCount(String path, int size, int max, String name) {
    if (size > max) {
      throw new InvalidQueryException(
          path, size + " entries is over the maximum of " + max + " (" + name + ")");
    }
  }

  private List<Facet> facets(JsonNode n) {
    List<Facet> out = new ArrayList<>();
    if (n == null || n.isNull()) {
      return out;
    }
    if (!n.isArray()) {
      throw new InvalidQueryException(
          "facets", "expected an array of facet requests but got " + describe(n));
    }
    checkCount("facets", n.size(), limits.maxFacets(), "maxFacets");
    int defaultTop = Math.min(10, limits.maxFacetValues());
    for (int i = 0; i < n.size(); i++) {
      String path = "facets[" + i + "]";
      JsonNode e = n.get(i);
      if (e.isTextual()) {
        out.add(Facet.top(facetField(e.textValue(), path).name(), defaultTop));
        continue;
      }
      if (!e.isObject()) {
        throw new InvalidQueryException(
            path,
            "expected a field name or {\"field\": ..., \"top\"|\"all\"|\"values\": ...} but got "
                + describe(e));
      }
      checkKeys(e, Set.of("field", "top", "all", "values"), path);
      Field field = facetField(fieldName(e.get("field"), path + ".field"), path + ".field");
      int kinds = (e.has("top") ? 1 : 0) + (e.has("all") ? 1 : 0) + (e.has("values") ? 1 : 0);
      if (kinds > 1) {
        throw new InvalidQueryException(
            path, "give one of \"top\", \"all\" or \"values\", not several");
      }
      if (e.has("values")) {
        out.add(
            Facet.values(
                field.name(), values(field, e.get("values"), path + ".values", "maxFacetValues")));
      } else if (e.has("all")) {
        if (!e.get("all").isBoolean() || !e.get("all").booleanValue()) {
          throw new InvalidQueryException(
              path + ".all", "expected true but got " + describe(e.get("all")));
        }
        out.add(Facet.all(field.name()));
      } else {
        int top =
            nonNegativeInt(
                e.get("top"),
                path + ".top",
                defaultTop,
                Math.min(QueryCodec.MAX_FACET_TOP, limits.maxFacetValues()),
                "maxFacetValues");
        out.add(Facet.top(field.name(), top));
      }
    }
    return out;
  }

  /** The values of an array bounded by {@code maxFacetValues}, converted to the field's type. */
  private List<Object> values(Field field, JsonNode v, String path, String limitName) {
    if (!v.isArray()) {
      throw new InvalidQueryException(path, "expected an array of values but got " + describe(v));
    }
    checkCount(path, v.size(), limits.maxFacetValues(), limitName);
    List<Object> values = new ArrayList<>();
    for (int j = 0; j < v.size(); j++) {
      values.add(value(field, v.get(j), path + "[" + j + "]"));
    }
    return values;
  }

  private Field facetField(String name, String path) {
    Field f = knownField(name, path);
    if (!f.role().isFilterable()) {
      throw new InvalidQueryException(
          path, "cannot facet on field '" + name + "': it is " + f.role() + ", not filterable");
    }
    return f;
  }

  private static String fieldName(JsonNode f, String path) {
    if (f == null || !f.isTextual()) {
      throw new InvalidQueryException(path, "expected a field name but got " + describe(f));
    }
    return f.textValue();
  }

  private List<Stats> stats(JsonNode n) {
    List<Stats> out = new ArrayList<>();
    if (n == null || n.isNull()) {
      return out;
    }
    if (!n.isArray()) {
      throw new InvalidQueryException(
          "stats", "expected an array of stats requests but got " + describe(n));
    }
    checkCount("stats", n.size(), limits.maxStats(), "maxStats");
    for (int i = 0; i < n.size(); i++) {
      String path = "stats[" + i + "]";
      JsonNode e = n.get(i);
      String name;
      JsonNode bounds = null;
      if (e.isTextual()) {
        name = e.textValue();
      } else if (e.isObject()) {
        checkKeys(e, Set.of("field", "bounds"), path);
        name = fieldName(e.get("field"), path + ".field");
        bounds = e.get("bounds");
      } else {
        throw new InvalidQueryException(
            path,
            "expected a field name or {\"field\": ..., \"bounds\": [...]} but got " + describe(e));
      }
      Field f = knownField(name, path);
      if (!f.role().isSortable()) {
        throw new InvalidQueryException(
            path,
            "no statistics on field '"
                + name
                + "': it is "
                + f.role()
                + ", not sortable; sortable fields are "
                + sortable());
      }
      List<Object> values =
          bounds == null || bounds.isNull()
              ? List.of()
              : values(f, bounds, path + ".bounds", "maxFacetValues");
      out.add(new Stats(f.name(), values));
    }
    return out;
  }

  private static void checkKeys(JsonNode node, Set<String> allowed, String path) {
    Iterator<String> names = node.fieldNames();
    while (names.hasNext()) {
      String n = names.next();
      if (!allowed.contains(n)) {
        throw new InvalidQueryException(
            path, "unknown key '" + n + "'; allowed keys are " + new TreeSet<>(allowed));
      }
    }
  }

  private static int nonNegativeInt(JsonNode n, String path, int dflt, int max, String limit) {
    if (n == null || n.isNull()) {
      return dflt;
    }
    if (!n.isIntegralNumber() || !n.canConvertToInt()) {
      throw new InvalidQueryException(
          path, "expected a non-negative integer but got " + describe(n));
    }
    int v = n.intValue();
    if (v < 0) {
      throw new InvalidQueryException(path, "must be >= 0, got " + v);
    }
    if (v > max) {
      throw new InvalidQueryException(
          path, v + " is over the maximum of " + max + (limit == null ? "" : " (" + limit + ")"));
    }
    return v;
  }

  private List<Order> orders(JsonNode n) {
    List<Order> out = new ArrayList<>();
    if (n == null || n.isNull()) {
      return out;
    }
    if (n.isTextual() || n.isObject()) {
      out.add(order(n, "orderBy"));
      return out;
    }
    if (!n.isArray()) {
      throw new InvalidQueryException(
          "orderBy", "expected an array of sort keys but got " + describe(n));
    }
    checkCount("orderBy", n.size(), limits.maxOrderBy(), "maxOrderBy");
    for (int i = 0; i < n.size(); i++) {
      out.add(order(n.get(i), "orderBy[" + i + "]"));
    }
    return out;
  }

  private Order order(JsonNode n, String path) {
    String field;
    boolean desc;
    if (n.isTextual()) {
      String s = n.textValue();
      desc = s.startsWith("-");
      field = desc || s.startsWith("+") ? s.substring(1) : s;
    } else if (n.isObject()) {
      checkKeys(n, Set.of("field", "order"), path);
      field = fieldName(n.get("field"), path + ".field");
      JsonNode o = n.get("order");
      if (o == null) {
        desc = false;
      } else if (o.isTextual() && o.textValue().equalsIgnoreCase("asc")) {
        desc = false;
      } else if (o.isTextual() && o.textValue().equalsIgnoreCase("desc")) {
        desc = true;
      } else {
        throw new InvalidQueryException(
            path + ".order", "expected \"asc\" or \"desc\" but got " + describe(o));
      }
    } else {
      throw new InvalidQueryException(
          path,
          "expected a field name (\"price\", \"-price\") or {\"field\":..., \"order\":...} but got "
              + describe(n));
    }
    Field f = knownField(field, path);
    if (!f.role().isSortable()) {
      throw new InvalidQueryException(
          path,
          "cannot sort on field '"
              + field
              + "': it is "
              + f.role()
              + ", not sortable; sortable fields are "
              + sortable());
    }
    return new Order(field, desc);
  }

  private List<String> fields(JsonNode n) {
    if (n == null || n.isNull()) {
      return sortable();
    }
    if (!n.isArray()) {
      throw new InvalidQueryException(
          "fields", "expected an array of field names but got " + describe(n));
    }
    checkCount("fields", n.size(), limits.maxFields(), "maxFields");
    Set<String> out = new LinkedHashSet<>();
    for (int i = 0; i < n.size(); i++) {
      JsonNode e = n.get(i);
      String path = "fields[" + i + "]";
      if (!e.isTextual()) {
        throw new InvalidQueryException(path, "expected a field name but got " + describe(e));
      }
      Field f = knownField(e.textValue(), path);
      if (!f.role().isSortable()) {
        throw new InvalidQueryException(
            path,
            "field '"
                + f.name()
                + "' is "
                + f.role()
                + " and has no stored value to return; returnable fields are "
                + sortable());
      }
      out.add(f.name());
    }
    return List.copyOf(out);
  }

  private List<String> sortable() {
    return schema.fields().stream().filter(f -> f.role().isSortable()).map(Field::name).toList();
  }

  private Field knownField(String name, String path) {
    if (!schema.hasField(name)) {
      throw new InvalidQueryException(
          path,
          "unknown field '"
              + name
              + "'; the schema has "
              + schema.fields().stream().map(Field::name).toList());
    }
    return schema.field(name);
  }

  Condition condition(JsonNode n, String path) {
    if (n == null || !n.isObject()) {
      throw new InvalidQueryException(
          path,
          "expected a condition object such as {\"eq\": {\"field\": value}} but got "
              + describe(n));
    }
    if (n.size() != 1) {
      throw new InvalidQueryException(
          path,
          "a condition object has exactly one operator key (" + OPERATORS + "), got " + n.size());
    }
    Map.Entry<String, JsonNode> e = n.properties().iterator().next();
    String op = e.getKey();
    JsonNode arg = e.getValue();
    String here = path + "." + op;
    return switch (op) {
      case "and", "or" -> {
        if (!arg.isArray()) {
          throw new InvalidQueryException(
              here, "expected an array of conditions but got " + describe(arg));
        }
        List<Condition> parts = new ArrayList<>();
        for (int i = 0; i < arg.size(); i++) {
          parts.add(condition(arg.get(i), here + "[" + i + "]"));
        }
        yield op.equals("and") ? Condition.and(parts) : Condition.or(parts);
      }
      case "not" -> Condition.not(condition(arg, here));
      case "all" -> {
        if (!(arg.isObject() && arg.isEmpty()) && !arg.isBoolean()) {
          throw new InvalidQueryException(here, "expected {} but got " + describe(arg));
        }
        yield Condition.all();
      }
      case "eq", "in", "gt", "gte", "lt", "lte", "between" -> fieldCondition(op, arg, here);
      default ->
          throw new InvalidQueryException(
              path, "unknown operator '" + op + "'; known operators are " + OPERATORS);
    };
  }

  private Condition fieldCondition(String op, JsonNode arg, String path) {
    if (!arg.isObject() || arg.size() != 1) {
      throw new InvalidQueryException(
          path,
          "expected an object with exactly one field, such as {\"price\": ...}, but got "
              + describe(arg));
    }
    Map.Entry<String, JsonNode> e = arg.properties().iterator().next();
    String name = e.getKey();
    String here = path + "." + name;
    Field f = knownField(name, here);
    if (!f.role().isFilterable()) {
      throw new InvalidQueryException(
          here, "cannot filter on field '" + name + "': it is " + f.role() + ", not filterable");
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
          throw new InvalidQueryException(
              here, "expected an array of values but got " + describe(v));
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
        throw new InvalidQueryException(
            path, "expected [from, to] but got an array of " + v.size());
      }
      return Condition.between(
          f.name(), value(f, v.get(0), path + "[0]"), true, value(f, v.get(1), path + "[1]"), true);
    }
    if (v.isObject()) {
      checkKeys(v, Set.of("from", "to", "fromInclusive", "toInclusive"), path);
      if (!v.has("from") || !v.has("to")) {
        throw new InvalidQueryException(path, "between needs both \"from\" and \"to\"");
      }
      return Condition.between(
          f.name(),
          value(f, v.get("from"), path + ".from"),
          bool(v.get("fromInclusive"), path + ".fromInclusive", true),
          value(f, v.get("to"), path + ".to"),
          bool(v.get("toInclusive"), path + ".toInclusive", true));
    }
    throw new InvalidQueryException(
        path, "expected [from, to] or {\"from\":..., \"to\":...} but got " + describe(v));
  }

  private static boolean bool(JsonNode n, String path, boolean dflt) {
    if (n == null) {
      return dflt;
    }
    if (!n.isBoolean()) {
      throw new InvalidQueryException(path, "expected true or false but got " + describe(n));
    }
    return n.booleanValue();
  }

  /** Converts a JSON value to the Java value of a field's type. */
  static Object value(Field f, JsonNode n, String path) {
    FieldType t = f.type();
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
        if (n.isTextual()) {
          switch (n.textValue()) {
            case "NaN" -> {
              return Double.NaN;
            }
            case "Infinity" -> {
              return Double.POSITIVE_INFINITY;
            }
            case "-Infinity" -> {
              return Double.NEGATIVE_INFINITY;
            }
            default -> {}
          }
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
            throw new InvalidQueryException(
                path,
                "field '"
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
            throw new InvalidQueryException(
                path,
                "field '"
                    + f.name()
                    + "' is BYTES; the value is not valid base64: "
                    + e.getMessage());
          }
        }
      }
    }
    throw new InvalidQueryException(
        path,
        "field '" + f.name() + "' is " + t + " and needs " + expected(t) + ", got " + describe(n));
  }

  private static String expected(FieldType t) {
    return switch (t) {
      case INT -> "a 32-bit integer";
      case LONG -> "a 64-bit integer";
      case DOUBLE -> "a number (or \"NaN\", \"Infinity\", \"-Infinity\")";
      case BOOLEAN -> "true or false";
      case STRING -> "a string";
      case TIMESTAMP -> "epoch milliseconds or an ISO-8601 instant string";
      case BYTES -> "a base64 string";
    };
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
