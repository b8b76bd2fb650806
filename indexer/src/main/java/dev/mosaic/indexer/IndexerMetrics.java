package dev.mosaic.indexer;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The node's meters, all tagged with its name: {@code mosaic.indexer.consumer.lag}, {@code
 * mosaic.indexer.partitions.dirty}, {@code mosaic.indexer.rebuild.duration}, {@code
 * mosaic.indexer.partition.documents}, {@code mosaic.indexer.offers}, {@code
 * mosaic.indexer.state.bytes}, {@code mosaic.indexer.deliveries.pending}, {@code
 * mosaic.indexer.delivery.retries}, {@code mosaic.indexer.records.fenced}, {@code
 * mosaic.indexer.documents.carried.over} (dead letters are counted by {@link DeadLetterPublisher}).
 * Thread safety: safe for concurrent use.
 */
final class IndexerMetrics {
  private final Timer rebuild;
  private final DistributionSummary documents;
  private final Counter retries;
  private final Counter fenced;
  private final Counter carriedOver;

  IndexerMetrics(MeterRegistry registry, String node) {
    rebuild =
        Timer.builder("mosaic.indexer.rebuild.duration")
            .description("time to rebuild, write and record one partition file")
            .tag("node", node)
            .register(registry);
    documents =
        DistributionSummary.builder("mosaic.indexer.partition.documents")
            .description("documents per rebuilt partition file")
            .tag("node", node)
            .register(registry);
    retries =
        Counter.builder("mosaic.indexer.delivery.retries")
            .description("re-sends of a recorded version some datacenter did not accept")
            .tag("node", node)
            .register(registry);
    carriedOver =
        Counter.builder("mosaic.indexer.documents.carried.over")
            .description("documents kept from the previous file by rebuilds, not re-parsed")
            .tag("node", node)
            .register(registry);
    fenced =
        Counter.builder("mosaic.indexer.records.fenced")
            .description("versions refused because another node claimed the partition")
            .tag("node", node)
            .register(registry);
  }

  /** Registers the gauges read from the node's parts. */
  static IndexerMetrics register(
      MeterRegistry registry,
      String node,
      Supplier<Number> lag,
      Supplier<Number> dirty,
      Supplier<Number> offers,
      Supplier<Number> stateBytes,
      Supplier<Number> pendingDeliveries) {
    Gauge.builder("mosaic.indexer.consumer.lag", lag)
        .description("records behind the end of the assigned offers partitions")
        .tag("node", node)
        .register(registry);
    Gauge.builder("mosaic.indexer.partitions.dirty", dirty)
        .description("index partitions waiting for or in a rebuild")
        .tag("node", node)
        .register(registry);
    Gauge.builder("mosaic.indexer.offers", offers)
        .description("offers held in the state of the owned partitions")
        .tag("node", node)
        .register(registry);
    Gauge.builder("mosaic.indexer.state.bytes", stateBytes)
        .description("heap bytes of the owned partitions' state")
        .tag("node", node)
        .register(registry);
    Gauge.builder("mosaic.indexer.deliveries.pending", pendingDeliveries)
        .description("recorded versions not yet accepted by every datacenter")
        .tag("node", node)
        .register(registry);
    return new IndexerMetrics(registry, node);
  }

  void rebuilt(long nanos, int documentCount, int carriedOverCount) {
    rebuild.record(nanos, TimeUnit.NANOSECONDS);
    documents.record(documentCount);
    carriedOver.increment(carriedOverCount);
  }

  void retried() {
    retries.increment();
  }

  void fenced() {
    fenced.increment();
  }
}
