package dev.mosaic.searcher;

import dev.mosaic.format.Schema;
import dev.mosaic.format.json.CountRequest;
import dev.mosaic.format.json.InvalidQueryException;
import dev.mosaic.format.json.QueryCodec;
import dev.mosaic.format.json.SearchRequest;
import java.util.function.Supplier;

/**
 * The searcher's side of the JSON query language ({@code searcher/QUERY.md}): decodes {@code
 * /search} and {@code /count} bodies with the format's {@link QueryCodec} under the searcher's
 * {@link QueryLimits}, turning every decoding problem into a {@link BadQueryException} (400) with
 * the codec's message, which names the JSON path and what was wrong.
 *
 * <p>Thread safety: stateless.
 */
public final class JsonQuery {
  private JsonQuery() {}

  /** Decodes the JSON text of a search, refusing one over any of {@code limits}. */
  public static SearchRequest parseSearch(byte[] json, Schema schema, QueryLimits limits) {
    return decoded(() -> QueryCodec.decodeSearch(json, schema, limits.request()));
  }

  /** Decodes the JSON text of a count, refusing one over any of {@code limits}. */
  public static CountRequest parseCount(byte[] json, Schema schema, QueryLimits limits) {
    return decoded(() -> QueryCodec.decodeCount(json, schema, limits.request()));
  }

  private static <T> T decoded(Supplier<T> decode) {
    try {
      return decode.get();
    } catch (InvalidQueryException e) {
      throw new BadQueryException(e.getMessage(), e);
    }
  }
}
