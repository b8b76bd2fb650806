package dev.mosaic.searcher.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mosaic.searcher.status.QueryDelta;
import dev.mosaic.searcher.status.StatusSample;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.function.Supplier;

/**
 * Takes one {@link StatusSample} of one index of this searcher: freshness and lag from its own grid
 * of that index (one column, see {@code LagGrid}), query rate and latency from that index's query
 * timers since the previous sample.
 *
 * <p>Thread safety: not thread safe; the history's one thread calls it.
 */
final class NodeSampler {
  private final MeterRegistry registry;
  private final String index;
  private final Supplier<ObjectNode> selfGrid;
  private final QueryDelta queries = new QueryDelta();
  private long lastNanos;

  /**
   * @param registry where the query timers are
   * @param index the index whose timers are read
   * @param selfGrid this node's grid of the index, with {@code generationCreatedAt} when a
   *     generation is open
   */
  NodeSampler(MeterRegistry registry, String index, Supplier<ObjectNode> selfGrid) {
    this.registry = registry;
    this.index = index;
    this.selfGrid = selfGrid;
  }

  StatusSample sample() {
    long nanos = System.nanoTime();
    QueryTimers.Totals totals = QueryTimers.read(registry, index);
    QueryDelta.Interval q =
        queries.next(
            totals.count(),
            totals.notOk(),
            totals.upperBoundsSeconds(),
            totals.cumulativeCounts(),
            lastNanos == 0 ? 0 : (nanos - lastNanos) / 1e9);
    lastNanos = nanos;
    ObjectNode grid = selfGrid.get();
    Instant now = Instant.parse(grid.path("now").asText());
    double newest = Double.NaN;
    int behind = 0;
    for (JsonNode dc : grid.path("datacenters")) {
      for (JsonNode s : dc.path("searchers")) {
        for (JsonNode c : s.path("cells")) {
          if (c.path("ageSeconds").isNumber()) {
            double age = c.path("ageSeconds").asDouble();
            newest = Double.isNaN(newest) ? age : Math.min(newest, age);
          }
          if (c.path("level").asInt() > 0) {
            behind++;
          }
        }
      }
    }
    double generationAge = Double.NaN;
    String created = grid.path("generationCreatedAt").asText(null);
    if (created != null) {
      try {
        generationAge = (now.toEpochMilli() - Instant.parse(created).toEpochMilli()) / 1000.0;
      } catch (DateTimeParseException e) {
        // left unknown
      }
    }
    return new StatusSample(
        now.toEpochMilli(),
        newest,
        generationAge,
        behind,
        grid.path("summary").path("maxSecondsBehind").asDouble(),
        q.perSecond(),
        q.notOkPerSecond(),
        q.p50Ms(),
        q.p99Ms());
  }
}
