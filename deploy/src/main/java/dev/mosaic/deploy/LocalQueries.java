package dev.mosaic.deploy;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The queries the local cluster prints and runs under {@code --duration}, per index: the cars
 * queries of {@link QueryLoad#QUERIES} for a cars index, realty queries for a realty index, and a
 * count and a first page for an index of any other schema; all under {@code /indexes/<name>/}.
 *
 * <p>Thread safety: stateless.
 */
final class LocalQueries {
  /** Queries valid for the realty schema (paths relative to the index). */
  static final List<QueryLoad.Sample> REALTY =
      List.of(
          new QueryLoad.Sample(
              "/search",
              "{\"filter\": {\"and\": [{\"eq\": {\"city\": \"moskva\"}},"
                  + " {\"eq\": {\"deal_type\": \"sale\"}}, {\"gte\": {\"rooms\": 2}}]},"
                  + " \"orderBy\": [\"price\"], \"limit\": 5, \"payload\": false}"),
          new QueryLoad.Sample(
              "/count",
              "{\"filter\": {\"and\": [{\"eq\": {\"deal_type\": \"rent\"}},"
                  + " {\"eq\": {\"property_type\": \"apartment\"}}]}}"),
          new QueryLoad.Sample(
              "/search",
              "{\"filter\": {\"between\": {\"area\": [40, 90]}}, \"orderBy\": [\"-published\"],"
                  + " \"limit\": 3}"),
          new QueryLoad.Sample("/count", "{}"));

  /** Queries valid for any schema. */
  static final List<QueryLoad.Sample> ANY =
      List.of(
          new QueryLoad.Sample("/count", "{}"), new QueryLoad.Sample("/search", "{\"limit\": 3}"));

  private LocalQueries() {}

  /** The queries of one index, each path under {@code /indexes/<name>}. */
  static List<QueryLoad.Sample> samples(IndexConfig index) {
    List<QueryLoad.Sample> relative =
        switch (index.schema().schema().payloadType()) {
          case "mosaic.feed.v1.CarOffer" -> QueryLoad.QUERIES;
          case "mosaic.feed.v1.RealtyOffer" -> REALTY;
          default -> ANY;
        };
    return relative.stream()
        .map(q -> new QueryLoad.Sample("/indexes/" + index.name() + q.path(), q.body()))
        .toList();
  }

  /** Every index's queries, one index after the other. */
  static List<QueryLoad.Sample> mix(MosaicConfig config) {
    List<QueryLoad.Sample> out = new ArrayList<>();
    config.indexes.forEach(i -> out.addAll(samples(i)));
    return out;
  }

  /** The HOCON value of {@code mosaic.indexes} listing built-in indexes by name. */
  static String indexesValue(List<String> names) {
    return names.stream()
        .map(n -> "{name = \"" + n + "\"}")
        .collect(Collectors.joining(", ", "[", "]"));
  }
}
