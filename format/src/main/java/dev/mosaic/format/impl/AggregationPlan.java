package dev.mosaic.format.impl;

import dev.mosaic.format.Field;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Stats;
import java.util.Arrays;
import java.util.List;

/**
 * The facets and statistics of a request compiled against a schema: fields resolved to indexes and
 * roles checked, given facet values and histogram bounds encoded to comparable bytes. Part of a
 * {@link Plan}; an {@link Aggregator} counts with it.
 *
 * <p>Thread safety: immutable (its arrays are never written after construction).
 */
final class AggregationPlan {
  static final AggregationPlan NONE = new AggregationPlan(List.of(), List.of(), null);

  final List<Facet> facets;
  final List<Stats> stats;

  /** Per facet: its field's index. */
  final int[] facetFields;

  /** Per facet: the given values encoded for a VALUES facet, null for TOP/ALL. */
  final Key[][] facetKeys;

  /** Per statistics request: its field's index. */
  final int[] statsFields;

  /** Per statistics request: its histogram bounds, strictly ascending (empty when none). */
  final Key[][] bounds;

  private AggregationPlan(List<Facet> facets, List<Stats> stats, Schema schema) {
    this.facets = List.copyOf(facets);
    this.stats = List.copyOf(stats);
    int nf = this.facets.size();
    facetFields = new int[nf];
    facetKeys = new Key[nf][];
    for (int i = 0; i < nf; i++) {
      Facet f = this.facets.get(i);
      int index = Plan.indexOf(schema, f.field());
      Field field = schema.fields().get(index);
      if (!field.role().isFilterable()) {
        throw new IllegalArgumentException(
            "field '"
                + f.field()
                + "' is "
                + field.role()
                + ", not filterable: cannot facet on it");
      }
      facetFields[i] = index;
      if (f.kind() == Facet.Kind.VALUES) {
        facetKeys[i] = keys(field, f.values());
      }
    }
    int ns = this.stats.size();
    statsFields = new int[ns];
    bounds = new Key[ns][];
    for (int i = 0; i < ns; i++) {
      Stats s = this.stats.get(i);
      int index = Plan.indexOf(schema, s.field());
      Field field = schema.fields().get(index);
      if (!field.role().isSortable()) {
        throw new IllegalArgumentException(
            "field '" + s.field() + "' is " + field.role() + ", not sortable: no stats on it");
      }
      statsFields[i] = index;
      bounds[i] = keys(field, s.bounds());
      for (int b = 1; b < bounds[i].length; b++) {
        if (Arrays.compareUnsigned(bounds[i][b - 1].bytes(), bounds[i][b].bytes()) >= 0) {
          throw new IllegalArgumentException(
              "field '" + s.field() + "': histogram bounds must be strictly ascending");
        }
      }
    }
  }

  /**
   * Compiles facets and statistics against {@code schema}.
   *
   * @throws IllegalArgumentException naming the field: unknown, a facet on a non-filterable field,
   *     stats on a non-sortable one, a value of the wrong type, or bounds not strictly ascending
   */
  static AggregationPlan compile(Schema schema, List<Facet> facets, List<Stats> stats) {
    if (facets.isEmpty() && stats.isEmpty()) {
      return NONE;
    }
    return new AggregationPlan(facets, stats, schema);
  }

  boolean isEmpty() {
    return facets.isEmpty() && stats.isEmpty();
  }

  private static Key[] keys(Field field, List<Object> values) {
    Key[] keys = new Key[values.size()];
    for (int i = 0; i < keys.length; i++) {
      try {
        keys[i] = Key.of(field.type().encode(values.get(i)));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("field '" + field.name() + "': " + e.getMessage(), e);
      }
    }
    return keys;
  }
}
