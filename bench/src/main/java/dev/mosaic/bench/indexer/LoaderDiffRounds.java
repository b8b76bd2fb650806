package dev.mosaic.bench.indexer;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.schema.BuiltInSchemas;
import dev.mosaic.api.schema.PayloadCheck;
import dev.mosaic.embedded.EmbeddedKafka;
import dev.mosaic.indexer.FeedBatch;
import dev.mosaic.indexer.FeedLoader;
import dev.mosaic.indexer.OfferTopics;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Stream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The feed loader's diff alone, repeated: a real KRaft broker in this JVM and a {@link FeedLoader}
 * with a state directory; the cars generator's offers (snapshots A) are published once, then each
 * round publishes the other of A and B (B: a share of the offers changed) as one batch, so every
 * round diffs the same amount of change. Prints per round the wall time from the snapshots handed
 * over to the last change acknowledged, and the process CPU time the round took; no indexer node.
 */
@Command(name = "loader-diff-rounds", mixinStandardHelpOptions = true)
public final class LoaderDiffRounds implements java.util.concurrent.Callable<Integer> {
  @Option(names = "--offers", description = "offers (default ${DEFAULT-VALUE})")
  int offers = 500_000;

  @Option(names = "--changed", description = "share of offers changed (default ${DEFAULT-VALUE})")
  double changed = 0.01;

  @Option(names = "--rounds", description = "rounds (default ${DEFAULT-VALUE})")
  int rounds = 12;

  @Option(
      names = "--publish-threads",
      description = "partners in parallel (default ${DEFAULT-VALUE})")
  int publishThreads = FeedLoader.DEFAULT_PUBLISH_THREADS;

  @Option(names = "--work", description = "work directory (default ${DEFAULT-VALUE})")
  Path work = Path.of("bench/target/loader-diff-rounds");

  public static void main(String[] args) {
    System.exit(new CommandLine(new LoaderDiffRounds()).execute(args));
  }

  @Override
  public Integer call() throws Exception {
    deleteRecursively(work);
    Files.createDirectories(work);
    CarOfferGenerator generator = CarOfferGenerator.builder().seed(1).build();
    List<CarOffer> cars = new ArrayList<>(offers);
    for (int i = 0; i < offers; i++) {
      cars.add(generator.next());
    }
    List<CarOffer> next = generator.mutate(cars, changed, 0, 0);
    List<byte[]> a = serialized(CarOffers.snapshotsByPartner(cars, 1, System.currentTimeMillis()));
    List<byte[]> b = serialized(CarOffers.snapshotsByPartner(next, 2, System.currentTimeMillis()));
    var os =
        (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
    try (EmbeddedKafka kafka =
        EmbeddedKafka.builder()
            .logDir(work.resolve("kafka"))
            .brokerProperty("message.max.bytes", Integer.toString(16 << 20))
            .build()
            .start()) {
      try (var admin = kafka.admin()) {
        OfferTopics.create(admin, OfferTopics.OFFERS, 32, OfferTopics.DEAD_LETTERS, (short) 1);
      }
      try (FeedLoader loader =
          FeedLoader.builder()
              .bootstrapServers(kafka.bootstrapServers())
              .partitions(1024)
              .schema(CarsSchema.SCHEMA)
              .payloadCheck(PayloadCheck.against(BuiltInSchemas.cars()))
              .stateDir(work.resolve("loader"))
              .meterRegistry(new SimpleMeterRegistry())
              .build()
              .start()) {
        long t = System.nanoTime();
        publishAll(loader, a);
        System.out.printf("first snapshots: %d ms%n", (System.nanoTime() - t) / 1_000_000);
        for (int r = 1; r <= rounds; r++) {
          List<byte[]> s = r % 2 == 1 ? b : a;
          long cpu0 = os.getProcessCpuTime();
          long t0 = System.nanoTime();
          long[] res = publishAll(loader, s);
          long cpu = os.getProcessCpuTime() - cpu0;
          System.out.printf(
              "ROUND %d diff_ms=%d returned_ms=%d cpu_ms=%d upserts=%d summed_diff_ms=%d"
                  + " summed_ack_ms=%d load=%.2f%n",
              r,
              (res[0] - t0) / 1_000_000,
              (System.nanoTime() - t0) / 1_000_000,
              cpu / 1_000_000,
              res[1],
              res[2],
              res[3],
              os.getSystemLoadAverage());
        }
      }
    }
    return 0;
  }

  /** Returns last ack nanos, upserts, summed diff ms, summed ack-wait ms. */
  private long[] publishAll(FeedLoader loader, List<byte[]> snapshots) throws Exception {
    FeedBatch batch = loader.batch();
    try (ExecutorService pool = Executors.newFixedThreadPool(publishThreads)) {
      List<Future<long[]>> results = new ArrayList<>();
      for (byte[] s : snapshots) {
        results.add(
            pool.submit(
                () -> {
                  long start = System.nanoTime();
                  FeedLoader.PublishResult r = batch.publish(s);
                  return new long[] {
                    start + r.acknowledgedMillis() * 1_000_000,
                    r.upserts(),
                    r.diffMillis(),
                    r.acknowledgedMillis() - r.diffMillis()
                  };
                }));
      }
      long[] out = new long[4];
      for (Future<long[]> f : results) {
        long[] x = f.get();
        out[0] = Math.max(out[0], x[0]);
        for (int i = 1; i < 4; i++) {
          out[i] += x[i];
        }
      }
      batch.end();
      return out;
    }
  }

  private static List<byte[]> serialized(List<FeedSnapshot> snapshots) {
    return snapshots.stream().map(FeedSnapshot::toByteArray).toList();
  }

  private static void deleteRecursively(Path root) throws java.io.IOException {
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
