package dev.mosaic.searcher.http;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Function;
import org.apache.pekko.http.javadsl.model.ContentTypes;
import org.apache.pekko.http.javadsl.model.HttpResponse;
import org.apache.pekko.http.javadsl.model.StatusCodes;
import org.apache.pekko.http.javadsl.server.AllDirectives;
import org.apache.pekko.http.javadsl.server.PathMatchers;
import org.apache.pekko.http.javadsl.server.Route;

/**
 * The routes of several indexes on one node: {@code GET /indexes} lists their names, and {@code
 * /indexes/<name>/...} is that index's {@link HttpApi} ({@code /search}, {@code /count}, {@code
 * /partitions}, the admin routes). An unknown name answers 404 naming the indexes served.
 *
 * <p>Thread safety: the routes are immutable and safe for concurrent requests.
 */
public final class IndexRoutes extends AllDirectives {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final Map<String, Route> byName = new LinkedHashMap<>();

  private IndexRoutes(Iterable<String> names, Function<String, HttpApi> api) {
    for (String name : names) {
      byName.put(name, api.apply(name).route());
    }
  }

  /**
   * The {@code /indexes} routes.
   *
   * @param names the indexes, in the order {@code GET /indexes} lists them
   * @param api the query API of an index, asked once per index
   */
  public static Route route(Iterable<String> names, Function<String, HttpApi> api) {
    return new IndexRoutes(names, api).route();
  }

  private Route route() {
    return pathPrefix(
        "indexes",
        () ->
            concat(
                pathEnd(() -> get(() -> complete(list()))),
                pathPrefix(
                    PathMatchers.segment(),
                    name -> {
                      Route r = byName.get(name);
                      return r != null
                          ? r
                          : complete(
                              HttpApi.error(
                                  StatusCodes.NOT_FOUND,
                                  "no index '" + name + "'; this node serves " + byName.keySet()));
                    })));
  }

  private HttpResponse list() {
    ArrayNode names = JSON.createArrayNode();
    byName.keySet().forEach(names::add);
    return HttpResponse.create()
        .withEntity(
            ContentTypes.APPLICATION_JSON,
            JSON.createObjectNode().set("indexes", names).toString());
  }
}
