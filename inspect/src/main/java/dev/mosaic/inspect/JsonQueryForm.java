package dev.mosaic.inspect;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mosaic.format.Field;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import java.io.IOException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * The small JSON query form of the inspect tool:
 *
 * <pre>{@code
 * {"where": {"and": [{"eq": {"mark": "bmw"}}, {"gte": {"price": 1000}}]},
 *  "orderBy": [{"field": "price", "desc": true}], "skip": 0, "limit": 10}
 * }</pre>
 *
 * Conditions: {@code all}, {@code eq}, {@code in} (array), {@code gt}, {@code gte}, {@code lt},
 * {@code lte}, {@code and}, {@code or} (arrays), {@code not}. Values follow the field's type:
 * numbers, booleans, strings, timestamps as ISO-8601 strings or epoch milliseconds, bytes as
 * base64.
 *
 * <p>Thread safety: stateless.
 */
public final class JsonQueryForm {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private JsonQueryForm() {}

  /**
   * Parses a query against a schema.
   *
   * @throws IllegalArgumentException naming what is wrong (malformed JSON, unknown operator or
   *     field, value of the wrong type)
   */
  public static Query parse(String json, Schema schema) {
    JsonNode root;
    try {
      root = MAPPER.readTree(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("query is not valid JSON: " + e.getMessage(), e);
    }
    if (root == null || !root.isObject()) {
      throw new IllegalArgumentException("query must be a JSON object");
    }
    Query q =
        Query.where(root.has("where") ? condition(root.get("where"), schema) : Condition.all());
    if (root.has("orderBy")) {
      List<Order> orders = new ArrayList<>();
      for (JsonNode o : root.get("orderBy")) {
        String field = text(o.get("field"), "orderBy.field");
        orders.add(o.path("desc").asBoolean(false) ? Order.desc(field) : Order.asc(field));
      }
      q = q.orderBy(orders.toArray(new Order[0]));
    }
    if (root.has("skip")) {
      q = q.skip(root.get("skip").asInt());
    }
    q = q.limit(root.path("limit").asInt(10));
    return q;
  }

  private static String text(JsonNode node, String what) {
    if (node == null || !node.isTextual()) {
      throw new IllegalArgumentException(what + " must be a string");
    }
    return node.asText();
  }

  static Condition condition(JsonNode node, Schema schema) {
    if (node.isTextual() && node.asText().equals("all")) {
      return Condition.all();
    }
    if (!node.isObject() || node.size() != 1) {
      throw new IllegalArgumentException("a condition is an object with one operator, got " + node);
    }
    Map.Entry<String, JsonNode> op = node.properties().iterator().next();
    JsonNode arg = op.getValue();
    return switch (op.getKey()) {
      case "all" -> Condition.all();
      case "and" -> Condition.and(children(arg, schema, "and"));
      case "or" -> Condition.or(children(arg, schema, "or"));
      case "not" -> Condition.not(condition(arg, schema));
      case "eq", "gt", "gte", "lt", "lte", "in" -> {
        if (!arg.isObject() || arg.size() != 1) {
          throw new IllegalArgumentException(op.getKey() + " takes {\"field\": value}");
        }
        Map.Entry<String, JsonNode> fv = arg.properties().iterator().next();
        Field field = schema.field(fv.getKey());
        yield switch (op.getKey()) {
          case "eq" -> Condition.eq(field.name(), value(field, fv.getValue()));
          case "gt" -> Condition.gt(field.name(), value(field, fv.getValue()));
          case "gte" -> Condition.gte(field.name(), value(field, fv.getValue()));
          case "lt" -> Condition.lt(field.name(), value(field, fv.getValue()));
          case "lte" -> Condition.lte(field.name(), value(field, fv.getValue()));
          default -> {
            if (!fv.getValue().isArray()) {
              throw new IllegalArgumentException("in." + field.name() + " must be an array");
            }
            List<Object> values = new ArrayList<>();
            for (JsonNode v : fv.getValue()) {
              values.add(value(field, v));
            }
            yield Condition.in(field.name(), values);
          }
        };
      }
      default -> throw new IllegalArgumentException("unknown operator '" + op.getKey() + "'");
    };
  }

  private static List<Condition> children(JsonNode arg, Schema schema, String op) {
    if (!arg.isArray()) {
      throw new IllegalArgumentException(op + " takes an array of conditions");
    }
    List<Condition> result = new ArrayList<>();
    for (Iterator<JsonNode> it = arg.elements(); it.hasNext(); ) {
      result.add(condition(it.next(), schema));
    }
    return result;
  }

  static Object value(Field field, JsonNode v) {
    String name = field.name();
    return switch (field.type()) {
      case INT -> {
        if (!v.canConvertToInt()) {
          throw new IllegalArgumentException("'" + name + "' takes an int, got " + v);
        }
        yield v.asInt();
      }
      case LONG -> {
        if (!v.canConvertToLong()) {
          throw new IllegalArgumentException("'" + name + "' takes a long, got " + v);
        }
        yield v.asLong();
      }
      case DOUBLE -> {
        if (!v.isNumber()) {
          throw new IllegalArgumentException("'" + name + "' takes a number, got " + v);
        }
        yield v.asDouble();
      }
      case BOOLEAN -> {
        if (!v.isBoolean()) {
          throw new IllegalArgumentException("'" + name + "' takes a boolean, got " + v);
        }
        yield v.asBoolean();
      }
      case STRING -> {
        if (!v.isTextual()) {
          throw new IllegalArgumentException("'" + name + "' takes a string, got " + v);
        }
        yield v.asText();
      }
      case TIMESTAMP ->
          v.isNumber() ? Instant.ofEpochMilli(v.asLong()) : Instant.parse(text(v, name));
      case BYTES -> Base64.getDecoder().decode(text(v, name));
    };
  }
}
