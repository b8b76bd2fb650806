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
 * mosaic.indexer.delivery.retries}, {@code mosaic.indexer.records.fenced} (dead letters are counted
 * by {@link DeadLetterPublisher}). Thread safety: safe for concurrent use.
 */
final class IndexerMetrics {
  private final Timer rebuild;
  private final DistributionSummary documents;
  private final Counter retries;
  private final Counter fenced;

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
    gauge(
        registry,
        node,
        "mosaic.indexer.consumer.lag",
        lag,
        "records behind the end of the assigned offers partitions");
    gauge(
        registry,
        node,
        "mosaic.indexer.partitions.dirty",
        dirty,
        "index partitions waiting for or in a rebuild");
    gauge(
        registry,
        node,
        "mosaic.indexer.offers",
        offers,
        "offers held in the state of the owned partitions");
    gauge(
        registry,
        node,
        "mosaic.indexer.state.bytes",
        stateBytes,
        "heap bytes of the owned partitions' state");
    gauge(
        registry,
        node,
        "mosaic.indexer.deliveries.pending",
        pendingDeliveries,
        "recorded versions not yet accepted by every datacenter");
    return new IndexerMetrics(registry, node);
  }

  private static void gauge(
      MeterRegistry registry, String node, String name, Supplier<Number> value, String what) {
    Gauge.builder(name, value).description(what).tag("node", node).register(registry);
  }

  void rebuilt(long nanos, int documentCount) {
    rebuild.record(nanos, TimeUnit.NANOSECONDS);
    documents.record(documentCount);
  }

  void retried() {
    retries.increment();
  }

  void fenced() {
    fenced.increment();
  }
}
