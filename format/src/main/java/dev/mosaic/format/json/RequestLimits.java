package dev.mosaic.format.json;

/**
 * Structural bounds on a decoded query, checked by {@link QueryCodec} while it decodes: result size
 * ({@code limit}), how deep a search may page ({@code skip + limit}), condition clauses, nesting of
 * {@code and}/{@code or}/{@code not}, values of one {@code in}, and the lengths of {@code facets},
 * facet values, {@code stats}, {@code orderBy} and {@code fields}. Every refusal names the bound
 * ({@code maxFacets}, ...) and its value.
 *
 * <p>Thread safety: immutable.
 *
 * @param maxLimit largest {@code limit}
 * @param maxResultWindow largest {@code skip + limit} ({@link Integer#MAX_VALUE}: no bound, even
 *     when the sum overflows an int)
 * @param maxClauses most condition objects in one filter (every {@code eq}, {@code and}, {@code
 *     not}... counts one)
 * @param maxDepth deepest nesting of condition objects (a flat {@code eq} is depth 1)
 * @param maxInValues most values in one {@code in} list
 * @param maxFacets most facet requests
 * @param maxFacetValues most values one facet may ask ({@code top}, {@code values}), and most
 *     {@code bounds} of one stat
 * @param maxStats most stats requests
 * @param maxOrderBy most sort keys
 * @param maxFields most names in {@code fields}
 */
public record RequestLimits(
    int maxLimit,
    int maxResultWindow,
    int maxClauses,
    int maxDepth,
    int maxInValues,
    int maxFacets,
    int maxFacetValues,
    int maxStats,
    int maxOrderBy,
    int maxFields) {
  /** No bound at all (every bound {@link Integer#MAX_VALUE}): for trusted, local callers. */
  public static final RequestLimits NONE =
      new RequestLimits(
          Integer.MAX_VALUE,
          Integer.MAX_VALUE,
          Integer.MAX_VALUE,
          Integer.MAX_VALUE,
          Integer.MAX_VALUE,
          Integer.MAX_VALUE,
          Integer.MAX_VALUE,
          Integer.MAX_VALUE,
          Integer.MAX_VALUE,
          Integer.MAX_VALUE);

  /** Checks every bound is positive. */
  public RequestLimits {
    positive(maxLimit, "maxLimit");
    positive(maxResultWindow, "maxResultWindow");
    positive(maxClauses, "maxClauses");
    positive(maxDepth, "maxDepth");
    positive(maxInValues, "maxInValues");
    positive(maxFacets, "maxFacets");
    positive(maxFacetValues, "maxFacetValues");
    positive(maxStats, "maxStats");
    positive(maxOrderBy, "maxOrderBy");
    positive(maxFields, "maxFields");
  }

  private static void positive(int v, String name) {
    if (v < 1) {
      throw new IllegalArgumentException(name + " must be >= 1, got " + v);
    }
  }
}
