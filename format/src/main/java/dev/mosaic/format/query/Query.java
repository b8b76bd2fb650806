package dev.mosaic.format.query;

import java.util.List;
import java.util.Objects;

/**
 * A query: a condition, sort keys, skip and limit. Immutable; the {@code with}-style methods return
 * new queries.
 *
 * <pre>{@code
 * Query q = Query.where(and(eq("region", "msk"), between("price", 100_000L, true, 500_000L, true)))
 *     .orderBy(Order.desc("published"), Order.asc("price"))
 *     .skip(20)
 *     .limit(10);
 * }</pre>
 */
public record Query(Condition condition, List<Order> orders, int skip, int limit) {
  /** Limit meaning "no limit". */
  public static final int UNLIMITED = Integer.MAX_VALUE;

  public Query {
    Objects.requireNonNull(condition, "condition");
    orders = List.copyOf(orders);
    if (skip < 0) {
      throw new IllegalArgumentException("skip must be >= 0, got " + skip);
    }
    if (limit < 0) {
      throw new IllegalArgumentException("limit must be >= 0, got " + limit);
    }
  }

  /** Every document, in document order, unlimited. */
  public static Query all() {
    return new Query(Condition.all(), List.of(), 0, UNLIMITED);
  }

  /** Documents matching {@code condition}, in document order, unlimited. */
  public static Query where(Condition condition) {
    return new Query(condition, List.of(), 0, UNLIMITED);
  }

  /** This query ordered by the given keys (replacing earlier ones). */
  public Query orderBy(Order... orders) {
    return new Query(condition, List.of(orders), skip, limit);
  }

  /** This query ordered by the given keys (replacing earlier ones). */
  public Query orderBy(List<Order> orders) {
    return new Query(condition, orders, skip, limit);
  }

  /** This query skipping the first {@code skip} matches. */
  public Query skip(int skip) {
    return new Query(condition, orders, skip, limit);
  }

  /** This query emitting at most {@code limit} matches. */
  public Query limit(int limit) {
    return new Query(condition, orders, skip, limit);
  }
}
