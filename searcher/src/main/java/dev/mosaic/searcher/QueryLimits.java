package dev.mosaic.searcher;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * Bounds on what one query may ask of a searcher, so that a single caller cannot take it down:
 * result size ({@code limit}), number of condition clauses, nesting depth of {@code and}/{@code
 * or}/{@code not}, values in one {@code in} list, and wall time per query.
 *
 * <p>Structural limits are checked on the JSON before the query is built; the time budget is
 * checked between documents while hits are produced and after the count and aggregation, so a query
 * over budget is cancelled there and answered 400 with a message naming the budget. NOTE: a count
 * or aggregation over one partition is not interrupted midway; its cost is bounded by the
 * structural limits.
 *
 * <p>Thread safety: immutable.
 *
 * @param maxLimit largest {@code limit} of a search
 * @param maxClauses largest number of condition objects in a filter (every {@code eq}, {@code and},
 *     {@code not}... counts one)
 * @param maxDepth deepest nesting of condition objects (a flat {@code eq} is depth 1)
 * @param maxInValues most values in one {@code in} list
 * @param timeBudget wall time a query may take before it is cancelled
 */
public record QueryLimits(
    int maxLimit, int maxClauses, int maxDepth, int maxInValues, Duration timeBudget) {
  /** Defaults: limit 1000, 256 clauses, depth 16, 1024 {@code in} values, 10 s. */
  public static final QueryLimits DEFAULT =
      new QueryLimits(1000, 256, 16, 1024, Duration.ofSeconds(10));

  /** Checks every bound is positive. */
  public QueryLimits {
    positive(maxLimit, "maxLimit");
    positive(maxClauses, "maxClauses");
    positive(maxDepth, "maxDepth");
    positive(maxInValues, "maxInValues");
    Objects.requireNonNull(timeBudget, "timeBudget");
    if (timeBudget.isNegative() || timeBudget.isZero()) {
      throw new IllegalArgumentException("timeBudget must be positive, got " + timeBudget);
    }
  }

  private static void positive(int v, String name) {
    if (v < 1) {
      throw new IllegalArgumentException(name + " must be >= 1, got " + v);
    }
  }

  /**
   * Checks a filter's JSON against the structural limits before it is parsed.
   *
   * @throws BadQueryException naming the limit and where it was exceeded
   */
  void checkFilter(JsonNode filter) {
    if (filter == null) {
      return;
    }
    int[] clauses = new int[1];
    walk(filter, "filter", 1, clauses);
  }

  private void walk(JsonNode n, String path, int depth, int[] clauses) {
    if (n == null || !n.isObject() || n.size() != 1) {
      return; // the parser names the problem precisely
    }
    if (depth > maxDepth) {
      throw new BadQueryException(
          path + ": conditions nest deeper than the maximum depth of " + maxDepth);
    }
    if (++clauses[0] > maxClauses) {
      throw new BadQueryException(
          path + ": the filter has more than the maximum of " + maxClauses + " clauses");
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
          if (f.getValue().isArray() && f.getValue().size() > maxInValues) {
            throw new BadQueryException(
                here
                    + "."
                    + f.getKey()
                    + ": "
                    + f.getValue().size()
                    + " values is over the maximum of "
                    + maxInValues
                    + " in one in list");
          }
        }
      }
      default -> {}
    }
  }
}
