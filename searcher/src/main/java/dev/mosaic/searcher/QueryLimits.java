package dev.mosaic.searcher;

import dev.mosaic.format.json.RequestLimits;
import java.time.Duration;
import java.util.Objects;

/**
 * Bounds on what one query may ask of a searcher, so that a single caller cannot take it down:
 * result size ({@code limit}), how deep it may page ({@code skip + limit}), number of condition
 * clauses, nesting depth of {@code and}/{@code or}/{@code not}, values in one {@code in} list,
 * number of facets, of values one facet may ask or return, of stats, of sort keys and of returned
 * fields, and wall time per query (counted from the request's arrival, so time waiting for a query
 * thread counts).
 *
 * <p>Structural limits are checked by the format's query codec while it decodes ({@link
 * #request()}); the time budget is checked while the query waits for a thread, between documents
 * while hits are produced and after the count and aggregation, so a query over budget is cancelled
 * there and answered 400 with a message naming the budget. Every refusal names the limit ({@code
 * maxFacets}, ...) and its value. NOTE: a count or aggregation over one partition is not
 * interrupted midway; its cost is bounded by the structural limits. Documents skipped by {@code
 * skip} are not visited one by one by the caller, so {@code maxResultWindow} is what bounds their
 * cost.
 *
 * <p>Thread safety: immutable.
 *
 * @param maxLimit largest {@code limit} of a search
 * @param maxResultWindow largest {@code skip + limit} of a search (how deep a caller may page)
 * @param maxClauses largest number of condition objects in a filter (every {@code eq}, {@code and},
 *     {@code not}... counts one)
 * @param maxDepth deepest nesting of condition objects (a flat {@code eq} is depth 1)
 * @param maxInValues most values in one {@code in} list
 * @param maxFacets most facet requests in one query
 * @param maxFacetValues most values one facet may ask ({@code top}, {@code values}) or return
 *     ({@code all}), and most {@code bounds} of one stat
 * @param maxStats most stats requests in one query
 * @param maxOrderBy most sort keys in {@code orderBy}
 * @param maxFields most names in {@code fields}
 * @param timeBudget wall time a query may take, from arrival, before it is cancelled
 */
public record QueryLimits(
    int maxLimit,
    int maxResultWindow,
    int maxClauses,
    int maxDepth,
    int maxInValues,
    int maxFacets,
    int maxFacetValues,
    int maxStats,
    int maxOrderBy,
    int maxFields,
    Duration timeBudget) {
  /**
   * Defaults: limit 1000, result window 10,000, 256 clauses, depth 16, 1024 {@code in} values, 32
   * facets, 1000 facet values, 32 stats, 8 sort keys, 64 fields, 10 s.
   */
  public static final QueryLimits DEFAULT =
      new QueryLimits(1000, 10_000, 256, 16, 1024, 32, 1000, 32, 8, 64, Duration.ofSeconds(10));

  /** Checks every bound is positive and the result window holds the largest limit. */
  public QueryLimits {
    // the structural bounds are the codec's; it checks each is positive, naming it
    new RequestLimits(
        maxLimit,
        maxResultWindow,
        maxClauses,
        maxDepth,
        maxInValues,
        maxFacets,
        maxFacetValues,
        maxStats,
        maxOrderBy,
        maxFields);
    Objects.requireNonNull(timeBudget, "timeBudget");
    if (timeBudget.isNegative() || timeBudget.isZero()) {
      throw new IllegalArgumentException("timeBudget must be positive, got " + timeBudget);
    }
    if (maxResultWindow < maxLimit) {
      throw new IllegalArgumentException(
          "maxResultWindow (" + maxResultWindow + ") must be >= maxLimit (" + maxLimit + ")");
    }
  }

  /**
   * The five historical bounds, every other one at its {@link #DEFAULT} (the result window grows to
   * {@code maxLimit} when that is larger).
   */
  public QueryLimits(
      int maxLimit, int maxClauses, int maxDepth, int maxInValues, Duration timeBudget) {
    this(
        maxLimit,
        Math.max(maxLimit, DEFAULT.maxResultWindow),
        maxClauses,
        maxDepth,
        maxInValues,
        DEFAULT.maxFacets,
        DEFAULT.maxFacetValues,
        DEFAULT.maxStats,
        DEFAULT.maxOrderBy,
        DEFAULT.maxFields,
        timeBudget);
  }

  /**
   * The structural bounds (everything but the time budget), as the format's query codec checks them
   * while it decodes.
   */
  public RequestLimits request() {
    return new RequestLimits(
        maxLimit,
        maxResultWindow,
        maxClauses,
        maxDepth,
        maxInValues,
        maxFacets,
        maxFacetValues,
        maxStats,
        maxOrderBy,
        maxFields);
  }
}
