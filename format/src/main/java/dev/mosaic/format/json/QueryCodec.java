package dev.mosaic.format.json;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;

/**
 * The JSON query language of Mosaic (documented once, in {@code searcher/QUERY.md}): decodes
 * searches, counts and conditions against a schema, checking everything up front, and encodes them
 * back. The searcher's {@code /search} and {@code /count} and {@code mosaic-inspect query} speak it
 * through this class.
 *
 * <p>Decoding refuses anything it cannot make exact sense of with an {@link InvalidQueryException}
 * whose message starts with the JSON path at fault ({@code filter.and[1].gt.price: field 'price' is
 * LONG and needs a 64-bit integer, got the string "cheap"}). Encoding writes the canonical form
 * (every key explicit), so {@code decode(encode(r))} equals {@code r} for every request the decoder
 * can produce, with {@link RequestLimits#NONE}.
 *
 * <p>Thread safety: stateless apart from a shared, thread-safe Jackson mapper.
 */
public final class QueryCodec {
  /** Limit of a search that does not give one. */
  public static final int DEFAULT_LIMIT = 10;

  /** Largest {@code top} of a facet. */
  public static final int MAX_FACET_TOP = 1000;

  private QueryCodec() {}

  /**
   * Decodes the JSON text of a search.
   *
   * @throws InvalidQueryException naming the JSON path and the problem
   */
  public static SearchRequest decodeSearch(byte[] json, Schema schema, RequestLimits limits) {
    return new QueryDecoder(schema, limits).search(QueryDecoder.readObject(json));
  }

  /**
   * Decodes the JSON text of a count (only {@code filter}, {@code facets} and {@code stats}).
   *
   * @throws InvalidQueryException naming the JSON path and the problem
   */
  public static CountRequest decodeCount(byte[] json, Schema schema, RequestLimits limits) {
    return new QueryDecoder(schema, limits).count(QueryDecoder.readObject(json));
  }

  /**
   * Decodes one condition (what {@code filter} holds); {@code path} prefixes error messages.
   *
   * @throws InvalidQueryException naming the JSON path and the problem
   */
  public static Condition decodeCondition(
      JsonNode node, Schema schema, RequestLimits limits, String path) {
    QueryDecoder d = new QueryDecoder(schema, limits);
    d.checkStructure(node, path);
    return d.condition(node, path);
  }

  /** The canonical JSON text of a search. */
  public static byte[] encode(SearchRequest search) {
    return QueryEncoder.bytes(QueryEncoder.search(search));
  }

  /** The canonical JSON text of a count. */
  public static byte[] encode(CountRequest count) {
    return QueryEncoder.bytes(QueryEncoder.count(count));
  }

  /** The canonical JSON of a condition (what {@code filter} holds). */
  public static JsonNode encode(Condition condition) {
    return QueryEncoder.condition(condition);
  }
}
