package dev.mosaic.bench.indexer;

import dev.mosaic.format.Schema;
import dev.mosaic.indexer.IndexerNode;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.PartitionSender;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Everything the indexer benchmark does with an {@link IndexerNode}, in one place: start one node
 * on the offers topic (in-memory manifest, a sender that delivers at once, one version kept), count
 * the files it writes per partition through its rebuild listener, wait until it is quiet, and read
 * its state figures. Adapting the benchmark to a changed node API means changing this class only.
 *
 * <p>Thread safety: the counters are updated from the node's rebuild threads and read from the
 * benchmark's thread.
 */
final class NodeUnderTest implements AutoCloseable {
  private final IndexerNode node;
  private final MeterRegistry registry;
  private final long debounceMillis;
  private final AtomicLong files = new AtomicLong();
  private final Map<Integer, AtomicInteger> rebuildsSinceMark = new ConcurrentHashMap<>();
  private final Map<Integer, Long> lastFileNanos = new ConcurrentHashMap<>();

  NodeUnderTest(
      String bootstrapServers,
      int partitions,
      Schema schema,
      Path outputDir,
      long debounceMillis,
      int rebuildThreads,
      MeterRegistry registry)
      throws IOException {
    this.registry = registry;
    this.debounceMillis = debounceMillis;
    PartitionSender sender =
        (id, file) ->
            CompletableFuture.completedFuture(
                new PartitionSender.DeliveryReport(id, Map.of("bench", "local"), Map.of()));
    node =
        IndexerNode.builder()
            .bootstrapServers(bootstrapServers)
            .partitions(partitions)
            .schema(schema)
            .outputDir(outputDir)
            .sender(sender)
            .manifest(PartitionManifest.inMemory())
            .debounce(Duration.ofMillis(debounceMillis))
            .rebuildThreads(rebuildThreads)
            .retainVersions(1)
            .meterRegistry(registry)
            .rebuildListener(
                (id, file, documents) -> {
                  lastFileNanos.put(id.partition(), System.nanoTime());
                  rebuildsSinceMark
                      .computeIfAbsent(id.partition(), p -> new AtomicInteger())
                      .incrementAndGet();
                  files.incrementAndGet();
                })
            .build()
            .start();
  }

  /** Forgets the rebuilds counted so far ({@link #rebuildsSinceMark} counts from here). */
  void mark() {
    rebuildsSinceMark.clear();
  }

  /** Files written per partition since the last {@link #mark}. */
  Map<Integer, AtomicInteger> rebuildsSinceMark() {
    return rebuildsSinceMark;
  }

  /** When the partition's last file was written ({@link System#nanoTime}), or null. */
  Long lastFileNanos(int partition) {
    return lastFileNanos.get(partition);
  }

  long files() {
    return files.get();
  }

  long offerCount() {
    return node.offerCount();
  }

  long stateBytes() {
    return node.stateBytes();
  }

  long rawOfferBytes() {
    return node.rawOfferBytes();
  }

  /** The node's rebuild timer: count and mean in milliseconds. */
  String rebuildTimer() {
    Timer t = registry.get("mosaic.indexer.rebuild.duration").timer();
    return String.format("%,d rebuilds, mean %.1f ms", t.count(), t.mean(TimeUnit.MILLISECONDS));
  }

  /**
   * Waits until the node is idle and no file was written for three debounces (at least 1.5 s), so
   * changes still in flight in Kafka have had their chance.
   */
  void awaitQuiet(Duration timeout) throws InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    long quietNanos = TimeUnit.MILLISECONDS.toNanos(Math.max(3 * debounceMillis, 1500));
    long seen = -1;
    long since = System.nanoTime();
    while (System.nanoTime() < deadline) {
      long n = files.get();
      if (n != seen || !node.isIdle()) {
        seen = n;
        since = System.nanoTime();
      } else if (System.nanoTime() - since > quietNanos) {
        return;
      }
      if (node.failure().isPresent()) {
        throw new IllegalStateException("indexer failed", node.failure().get());
      }
      Thread.sleep(20); // polling a load tool's progress, not synchronizing threads
    }
    throw new IllegalStateException("indexer not idle within " + timeout);
  }

  @Override
  public void close() {
    node.close();
  }
}
