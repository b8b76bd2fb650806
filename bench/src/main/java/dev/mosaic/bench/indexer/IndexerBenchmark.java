package dev.mosaic.bench.indexer;

import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.bench.progress.Progress;
import dev.mosaic.embedded.EmbeddedKafka;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.indexer.FeedLoader;
import dev.mosaic.indexer.IndexerNode;
import dev.mosaic.indexer.OfferKeys;
import dev.mosaic.indexer.OfferTopics;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.PartitionSender;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The indexer load tool: a real KRaft broker in this JVM, a {@link FeedLoader} and one {@link
 * IndexerNode}, on the cars generator's offers. Measures
 *
 * <ol>
 *   <li>rebuild throughput: documents per second on one core, for exactly the node's rebuild work
 *       (parse the stored offer, map it to a document, add it, write the partition file), over all
 *       partitions on one thread, after a warm-up pass;
 *   <li>state heap per offer: the heap retained by the node once it has restored every offer (GC'd
 *       heap after minus before, so consumer buffers count against it), against the mean serialized
 *       offer size;
 *   <li>snapshot to files: from the moment the changed partners' snapshots start being published
 *       (1% of the offers changed) to the moment the last changed partition's file is written, with
 *       the node's default debounce (1 s) and all cores rebuilding.
 * </ol>
 *
 * Ends with {@code RESULT indexer docs_per_s=<> state_bytes_per_offer=<> raw_bytes_per_offer=<>
 * snapshot_to_files_ms=<>}.
 */
@Command(name = "indexer-benchmark", mixinStandardHelpOptions = true)
public final class IndexerBenchmark implements java.util.concurrent.Callable<Integer> {
  @Option(names = "--offers", description = "offers in the feed (default ${DEFAULT-VALUE})")
  int offers = 500_000;

  @Option(names = "--partitions", description = "index partitions P (default ${DEFAULT-VALUE})")
  int partitions = 1024;

  @Option(
      names = "--kafka-partitions",
      description = "partitions of the offers topic (default ${DEFAULT-VALUE})")
  int kafkaPartitions = 32;

  @Option(names = "--changed", description = "share of offers changed (default ${DEFAULT-VALUE})")
  double changed = 0.01;

  @Option(names = "--debounce-ms", description = "rebuild debounce (default ${DEFAULT-VALUE})")
  long debounceMillis = 1000;

  @Option(
      names = "--publish-threads",
      description = "partners published in parallel (default ${DEFAULT-VALUE})")
  int publishThreads = 4;

  @Option(names = "--work", description = "work directory (default ${DEFAULT-VALUE})")
  Path work = Path.of("bench/target/indexer-bench");

  @Option(names = "--seed", description = "generator seed (default ${DEFAULT-VALUE})")
  long seed = 1;

  public static void main(String[] args) {
    System.exit(new CommandLine(new IndexerBenchmark()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    deleteRecursively(work);
    Files.createDirectories(work);
    int cores = Runtime.getRuntime().availableProcessors();
    log("generating %,d car offers (seed %d)", offers, seed);
    CarOfferGenerator generator = CarOfferGenerator.builder().seed(seed).build();
    List<CarOffer> cars = new ArrayList<>(offers);
    Progress progress = Progress.start("indexer-bench offers", offers, "offers");
    for (int i = 0; i < offers; i++) {
      cars.add(generator.next());
      progress.advance();
    }
    progress.done();

    // 1. Rebuild throughput on one core, on the node's exact rebuild path.
    double docsPerSecond = rebuildThroughput(cars);

    try (EmbeddedKafka kafka =
        EmbeddedKafka.builder()
            .logDir(work.resolve("kafka"))
            .brokerProperty("message.max.bytes", Integer.toString(16 << 20))
            .build()
            .start()) {
      try (var admin = kafka.admin()) {
        OfferTopics.create(
            admin, OfferTopics.OFFERS, kafkaPartitions, OfferTopics.DEAD_LETTERS, (short) 1);
      }
      SimpleMeterRegistry registry = new SimpleMeterRegistry();
      try (FeedLoader loader =
          FeedLoader.builder()
              .bootstrapServers(kafka.bootstrapServers())
              .partitions(partitions)
              .schema(CarsSchema.SCHEMA)
              .meterRegistry(registry)
              .build()
              .start()) {
        long t = System.nanoTime();
        long rawBytes = 0;
        publishAll(loader, CarOffers.snapshotsByPartner(cars, 1, System.currentTimeMillis()));
        log("loader: first snapshots (%,d offers) published in %,d ms", offers, ms(t));
        for (CarOffer c : cars) {
          rawBytes += CarOffers.toOffer(c, System.currentTimeMillis()).getSerializedSize();
        }
        double rawPerOffer = (double) rawBytes / offers;

        // 2. State heap per offer: heap before the node vs after it restored everything.
        long heapBefore = usedHeapAfterGc();
        Map<Integer, Long> lastFileNanos = new ConcurrentHashMap<>();
        AtomicLong files = new AtomicLong();
        PartitionSender sender =
            (id, file) ->
                CompletableFuture.completedFuture(
                    new PartitionSender.DeliveryReport(id, Map.of("bench", "local"), Map.of()));
        long started = System.nanoTime();
        try (IndexerNode node =
            IndexerNode.builder()
                .bootstrapServers(kafka.bootstrapServers())
                .partitions(partitions)
                .schema(CarsSchema.SCHEMA)
                .outputDir(work.resolve("files"))
                .sender(sender)
                .manifest(PartitionManifest.inMemory())
                .debounce(Duration.ofMillis(debounceMillis))
                .retainVersions(1)
                .meterRegistry(registry)
                .rebuildListener(
                    (id, file, documents) -> {
                      lastFileNanos.put(id.partition(), System.nanoTime());
                      files.incrementAndGet();
                    })
                .build()
                .start()) {
          awaitQuiet(node, files, Duration.ofMinutes(30));
          log(
              "node: restored %,d offers and built %,d partition files in %,d ms",
              node.offerCount(), files.get(), ms(started));
          long heapAfter = usedHeapAfterGc();
          double statePerOffer = (double) (heapAfter - heapBefore) / node.offerCount();
          log(
              "state: %.0f heap bytes per offer measured (GC'd heap delta), %.0f by the node's"
                  + " accounting, %.0f raw bytes per offer",
              statePerOffer,
              (double) node.stateBytes() / node.offerCount(),
              (double) node.rawOfferBytes() / node.offerCount());

          // 3. 1% of the offers change; time from publishing to the last changed file written.
          List<CarOffer> next = generator.mutate(cars, changed, 0, 0);
          Set<Integer> changedPartitions = new HashSet<>();
          Set<String> changedPartners = new HashSet<>();
          List<CarOffer> changedCars = new ArrayList<>();
          for (int i = 0; i < next.size(); i++) {
            if (!next.get(i).equals(cars.get(i))) {
              changedCars.add(next.get(i));
              changedPartners.add(next.get(i).getPartnerId());
              changedPartitions.add(
                  OfferKeys.indexPartition(next.get(i).getDedupKey(), partitions));
            }
          }
          List<FeedSnapshot> snapshots =
              CarOffers.snapshotsByPartner(next, 2, System.currentTimeMillis()).stream()
                  .filter(s -> changedPartners.contains(s.getPartnerId()))
                  .toList();
          log(
              "%,d offers changed (%,d partners, %,d partitions)",
              changedCars.size(), changedPartners.size(), changedPartitions.size());
          long filesBefore = files.get();
          double carriedBefore = carriedOver(registry);
          double rebuildSecondsBefore = rebuildSeconds(registry);
          long t0 = System.nanoTime();
          int upserts = publishAll(loader, snapshots);
          long published = System.nanoTime();
          awaitQuiet(node, files, Duration.ofMinutes(10));
          long rebuilt = 0;
          long last = t0;
          for (int p : changedPartitions) {
            Long at = lastFileNanos.get(p);
            if (at != null && at > t0) {
              rebuilt++;
              last = Math.max(last, at);
            }
          }
          long snapshotToFilesMs = (last - t0) / 1_000_000;
          log(
              "snapshot to files: %,d upserts published in %,d ms; %,d of %,d changed partitions"
                  + " rebuilt (%,d files); last file %,d ms after the snapshot arrived",
              upserts,
              (published - t0) / 1_000_000,
              rebuilt,
              changedPartitions.size(),
              files.get() - filesBefore,
              snapshotToFilesMs);
          log(
              "node rebuild timer: %,d rebuilds, mean %.1f ms",
              registry.get("mosaic.indexer.rebuild.duration").timer().count(),
              registry.get("mosaic.indexer.rebuild.duration").timer().mean(TimeUnit.MILLISECONDS));
          double mergeDocsPerSecond =
              (carriedOver(registry) - carriedBefore)
                  / Math.max(1e-9, rebuildSeconds(registry) - rebuildSecondsBefore);
          double rebuildsPerChanged =
              (double) (files.get() - filesBefore) / Math.max(1, changedPartitions.size());
          log(
              "cycle: %.0f documents carried over per second of rebuild thread time; %.2f files"
                  + " per changed partition",
              mergeDocsPerSecond, rebuildsPerChanged);
          System.out.printf(
              "RESULT indexer docs_per_s=%.0f merge_docs_per_s=%.0f state_bytes_per_offer=%.0f"
                  + " raw_bytes_per_offer=%.0f snapshot_to_files_ms=%d"
                  + " rebuilds_per_changed_partition=%.2f%n",
              docsPerSecond,
              mergeDocsPerSecond,
              statePerOffer,
              rawPerOffer,
              snapshotToFilesMs,
              rebuildsPerChanged);
          log("machine: %d cores, %s", cores, System.getProperty("java.vm.version"));
          if (rebuilt < changedPartitions.size()) {
            System.err.printf(
                "FAILED: only %d of %d changed partitions were rebuilt%n",
                rebuilt, changedPartitions.size());
            return 1;
          }
        }
      }
    }
    return 0;
  }

  private static double carriedOver(MeterRegistry registry) {
    return registry.get("mosaic.indexer.documents.carried.over").counter().count();
  }

  private static double rebuildSeconds(MeterRegistry registry) {
    return registry.get("mosaic.indexer.rebuild.duration").timer().totalTime(TimeUnit.SECONDS);
  }

  /** Publishes partners' snapshots in parallel (one loader, several partners at once). */
  private int publishAll(FeedLoader loader, List<FeedSnapshot> snapshots) throws Exception {
    try (ExecutorService pool = Executors.newFixedThreadPool(publishThreads)) {
      List<Future<FeedLoader.PublishResult>> results = new ArrayList<>();
      for (FeedSnapshot s : snapshots) {
        results.add(pool.submit(() -> loader.publish(s)));
      }
      int upserts = 0;
      for (Future<FeedLoader.PublishResult> r : results) {
        upserts += r.get().upserts();
      }
      return upserts;
    }
  }

  /** One thread rebuilding every partition as the node does; the second of two passes counts. */
  private double rebuildThroughput(List<CarOffer> cars) throws IOException {
    List<List<byte[]>> byPartition = new ArrayList<>(partitions);
    for (int p = 0; p < partitions; p++) {
      byPartition.add(new ArrayList<>());
    }
    long now = System.currentTimeMillis();
    for (CarOffer c : cars) {
      byPartition
          .get(OfferKeys.indexPartition(c.getDedupKey(), partitions))
          .add(CarOffers.toOffer(c, now).toByteArray());
    }
    Path dir = Files.createDirectories(work.resolve("throughput"));
    double docsPerSecond = 0;
    for (int pass = 1; pass <= 2; pass++) {
      long t = System.nanoTime();
      long docs = 0;
      long mapping = 0;
      long writing = 0;
      for (int p = 0; p < partitions; p++) {
        long m = System.nanoTime();
        List<Document> documents = new ArrayList<>(byPartition.get(p).size());
        for (byte[] bytes : byPartition.get(p)) {
          documents.add(OfferDocuments.toDocument(CarsSchema.SCHEMA, Offer.parseFrom(bytes)));
        }
        long w = System.nanoTime();
        mapping += w - m;
        DatabaseBuilder builder = DatabaseBuilder.create(CarsSchema.SCHEMA);
        documents.forEach(builder::add);
        builder.writeTo(dir.resolve(p + ".yocto"));
        writing += System.nanoTime() - w;
        docs += builder.documentCount();
      }
      double seconds = (System.nanoTime() - t) / 1e9;
      docsPerSecond = docs / seconds;
      log(
          "rebuild pass %d: %,d documents in %,d partitions on one thread in %.1f s: %,.0f docs/s"
              + " (parse and map offers %.1f s, build and write files %.1f s)",
          pass, docs, partitions, seconds, docsPerSecond, mapping / 1e9, writing / 1e9);
    }
    deleteRecursively(dir);
    return docsPerSecond;
  }

  /**
   * Waits until the node is idle and no file was written for three debounces (so changes still in
   * flight in Kafka have had their chance).
   */
  private void awaitQuiet(IndexerNode node, AtomicLong files, Duration timeout)
      throws InterruptedException {
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

  private static long usedHeapAfterGc() throws InterruptedException {
    var memory = ManagementFactory.getMemoryMXBean();
    long used = Long.MAX_VALUE;
    for (int i = 0; i < 4; i++) {
      System.gc();
      Thread.sleep(200);
      used = Math.min(used, memory.getHeapMemoryUsage().getUsed());
    }
    return used;
  }

  private static long ms(long sinceNanos) {
    return (System.nanoTime() - sinceNanos) / 1_000_000;
  }

  private static void log(String format, Object... args) {
    System.out.printf("[indexer-bench] " + format + "%n", args);
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
