package dev.mosaic.bench.load;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.feed.CarOffer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Load tool for a searcher over HTTP (JDK {@link HttpClient}): {@code generate} writes the cars
 * store, {@code run} drives a query mix against a running searcher in open loop at a fixed offered
 * rate ({@link OpenLoop}) while republishing one partition every second through {@code PUT
 * /partitions/{p}/versions/{v}}, checks every answer against the reference counts of what was
 * published ({@link ReferenceCounts}), and prints one {@code RESULT searcher_load offered_rps=...
 * achieved_rps=... p50_ms=... p99_ms=... p999_ms=... errors=... wrong_answers=... reopens=...}
 * line; failed requests count in the latencies and in errors.
 */
@Command(
    name = "searcher-load",
    mixinStandardHelpOptions = true,
    subcommands = {SearcherLoad.Generate.class, SearcherLoad.Run.class})
public final class SearcherLoad implements Runnable {
  /** The operator token the searcher under test was started with (admin upload endpoint). */
  private static final String ADMIN_TOKEN = System.getenv().getOrDefault("MOSAIC_ADMIN_TOKEN", "");

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Entry point. */
  public static void main(String[] args) {
    System.exit(new CommandLine(new SearcherLoad()).execute(args));
  }

  @Override
  public void run() {
    CommandLine.usage(this, System.out);
  }

  /** {@code generate}: writes the cars store. */
  @Command(name = "generate", description = "Write a cars store (version 1 of every partition).")
  static final class Generate implements Callable<Integer> {
    @Option(names = "--store", required = true)
    Path store;

    @Option(names = "--documents", defaultValue = "500000")
    int documents;

    @Option(names = "--partitions", defaultValue = "1024")
    int partitions;

    @Option(names = "--seed", defaultValue = "1")
    long seed;

    @Override
    public Integer call() throws Exception {
      long t0 = System.nanoTime();
      long bytes = CarsStoreGenerator.generate(store, documents, partitions, seed);
      System.out.printf(
          Locale.ROOT,
          "generated %d documents in %d partitions, %.1f MiB, in %.1f s%n",
          documents,
          partitions,
          bytes / 1048576.0,
          (System.nanoTime() - t0) / 1e9);
      return 0;
    }
  }

  /** {@code run}: drives the query mix. */
  @Command(
      name = "run",
      description =
          "Drive the query mix against a running searcher at a constant offered rate (open loop),"
              + " checking every answer.")
  static final class Run implements Callable<Integer> {
    @Option(names = "--url", defaultValue = "http://127.0.0.1:18080")
    String url;

    @Option(names = "--partitions", defaultValue = "1024")
    int partitions;

    @Option(
        names = "--documents",
        defaultValue = "500000",
        description = "Data set size, to rebuild the reference and size republished partitions.")
    int documents;

    @Option(
        names = "--data-seed",
        defaultValue = "1",
        description = "Seed the store was generated with (generate --seed), for the reference.")
    long dataSeed;

    @Option(names = "--rate", defaultValue = "1000", description = "Offered requests per second.")
    double rate;

    @Option(names = "--warmup-seconds", defaultValue = "15")
    int warmupSeconds;

    @Option(names = "--duration-seconds", defaultValue = "60")
    int durationSeconds;

    @Option(
        names = "--timeout-seconds",
        defaultValue = "10",
        description = "A request not answered in this time is an error.")
    int timeoutSeconds;

    @Option(
        names = "--republish-millis",
        defaultValue = "1000",
        description = "0 disables republishing.")
    long republishMillis;

    @Option(names = "--await-ready-seconds", defaultValue = "300")
    int awaitReadySeconds;

    @Option(names = "--seed", defaultValue = "7")
    long seed;

    private HttpClient client;
    private ReferenceCounts reference;
    private final AtomicLong reportedFailures = new AtomicLong();

    @Override
    public Integer call() throws Exception {
      client =
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(5))
              .version(HttpClient.Version.HTTP_1_1)
              .build();
      long t0 = System.nanoTime();
      reference = ReferenceCounts.ofGeneratedStore(documents, partitions, dataSeed);
      System.out.printf(
          Locale.ROOT,
          "reference counts of %d documents rebuilt in %.1f s%n",
          documents,
          (System.nanoTime() - t0) / 1e9);
      awaitReady();
      Republisher republisher = new Republisher();
      Thread rt = Thread.ofPlatform().name("republisher").daemon().start(republisher);
      try {
        System.out.printf(Locale.ROOT, "warmup %d s at %.0f rps%n", warmupSeconds, rate);
        if (warmupSeconds > 0) {
          System.out.println("warmup: " + load(warmupSeconds, seed - 1).describe());
        }
        long reopensBefore = reopens();
        long publishedBefore = republisher.published.get();
        OpenLoop.Result r = load(durationSeconds, seed);
        long reopens = reopens() - reopensBefore;
        System.out.println("measured: " + r.describe());
        republisher.stop.set(true);
        rt.join(Duration.ofSeconds(30));
        printServerSide();
        System.out.printf(
            Locale.ROOT,
            "republished %d partition files while measuring (%d failed in all), searcher reopens"
                + " %d%n",
            republisher.published.get() - publishedBefore,
            republisher.failed.get(),
            reopens);
        System.out.printf(
            Locale.ROOT,
            "RESULT searcher_load offered_rps=%.0f achieved_rps=%.0f p50_ms=%.2f p99_ms=%.2f"
                + " p999_ms=%.2f errors=%d wrong_answers=%d reopens=%d%n",
            r.offeredRps(),
            r.achievedRps(),
            r.percentileMs(0.50),
            r.percentileMs(0.99),
            r.percentileMs(0.999),
            r.errors(),
            r.wrongAnswers(),
            reopens);
        return 0;
      } finally {
        republisher.stop.set(true);
      }
    }

    private OpenLoop.Result load(int seconds, long mixSeed) throws InterruptedException {
      QueryMix mix = new QueryMix(mixSeed);
      return new OpenLoop(rate, Duration.ofSeconds(seconds), Duration.ofSeconds(timeoutSeconds + 5))
          .run(
              () -> {
                QueryMix.Request q = mix.next();
                return () -> send(q);
              });
    }

    private CompletableFuture<OpenLoop.Outcome> send(QueryMix.Request q) {
      HttpRequest req =
          HttpRequest.newBuilder(URI.create(url + q.path()))
              .header("Content-Type", "application/json")
              .timeout(Duration.ofSeconds(timeoutSeconds))
              .POST(HttpRequest.BodyPublishers.ofString(q.body()))
              .build();
      long start = System.nanoTime();
      return client
          .sendAsync(req, HttpResponse.BodyHandlers.ofByteArray())
          .handle(
              (r, e) -> {
                if (e != null) {
                  report("request failed: " + e);
                  return OpenLoop.Outcome.ERROR;
                }
                if (r.statusCode() != 200) {
                  report(
                      "HTTP " + r.statusCode() + " for " + q.body() + ": " + new String(r.body()));
                  return OpenLoop.Outcome.ERROR;
                }
                String wrong = check(q, r.body(), start, System.nanoTime());
                if (wrong != null) {
                  report("wrong answer to " + q.body() + ": " + wrong);
                  return OpenLoop.Outcome.WRONG_ANSWER;
                }
                return OpenLoop.Outcome.OK;
              });
    }

    private void report(String failure) {
      if (reportedFailures.incrementAndGet() <= 10) {
        System.err.println(failure);
      }
    }

    /** What is wrong with an answer, or null when it is right. */
    private String check(QueryMix.Request q, byte[] body, long start, long end) {
      JsonNode answer;
      try {
        answer = JSON.readTree(body);
      } catch (java.io.IOException e) {
        return "not JSON: " + e.getMessage();
      }
      JsonNode totalNode = answer.get("total");
      if (totalNode == null || !totalNode.canConvertToLong()) {
        return "no total";
      }
      long total = totalNode.asLong();
      if (!reference.accepts(q.expect(), total, start, end)) {
        return "total "
            + total
            + ", expected one of "
            + reference.candidates(q.expect(), start, end);
      }
      if (q.limit() < 0) {
        return null;
      }
      JsonNode hits = answer.get("hits");
      long expectedHits = Math.min(q.limit(), Math.max(0, total - q.skip()));
      if (hits == null || hits.size() != expectedHits) {
        return (hits == null ? 0 : hits.size())
            + " hits for total "
            + total
            + ", skip "
            + q.skip()
            + ", limit "
            + q.limit();
      }
      if (q.byPrice()) {
        long previous = Long.MIN_VALUE;
        for (JsonNode h : hits) {
          long price = h.path("values").path("price").asLong();
          if (price < previous) {
            return "hits not ordered by price: " + price + " after " + previous;
          }
          previous = price;
        }
      }
      return null;
    }

    private void awaitReady() throws InterruptedException {
      long deadline = System.nanoTime() + awaitReadySeconds * 1_000_000_000L;
      while (true) {
        try {
          HttpResponse<String> r =
              client.send(
                  HttpRequest.newBuilder(URI.create(url + "/health")).build(),
                  HttpResponse.BodyHandlers.ofString());
          if (r.statusCode() == 200) {
            return;
          }
        } catch (java.io.IOException e) {
          // not listening yet
        }
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException(
              "searcher at " + url + " not ready within " + awaitReadySeconds + " s");
        }
        Thread.sleep(200); // polling a separate process: nothing to await on
      }
    }

    /** Reopen and unmap times as the searcher measured them, for the record. */
    private void printServerSide() throws Exception {
      String metrics =
          client
              .send(
                  HttpRequest.newBuilder(URI.create(url + "/metrics")).build(),
                  HttpResponse.BodyHandlers.ofString())
              .body();
      for (String timer :
          List.of("mosaic_searcher_reopen_seconds", "mosaic_searcher_unmap_seconds")) {
        double count = metric(metrics, timer + "_count");
        double sum = metric(metrics, timer + "_sum");
        double max = metric(metrics, timer + "_max");
        System.out.printf(
            Locale.ROOT,
            "searcher %s: %.0f, mean %.2f ms, max %.2f ms%n",
            timer,
            count,
            count > 0 ? sum / count * 1000 : 0,
            max * 1000);
      }
    }

    private static double metric(String metrics, String name) {
      Matcher m =
          Pattern.compile("(?m)^" + name + "(?:\\{[^}]*\\})? ([0-9.eE+-]+)$").matcher(metrics);
      return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
    }

    private long reopens() throws Exception {
      HttpResponse<String> r =
          client.send(
              HttpRequest.newBuilder(URI.create(url + "/metrics")).build(),
              HttpResponse.BodyHandlers.ofString());
      Matcher m =
          Pattern.compile("(?m)^mosaic_searcher_reopen_seconds_count(?:\\{[^}]*\\})? ([0-9.eE+]+)$")
              .matcher(r.body());
      return m.find() ? (long) Double.parseDouble(m.group(1)) : -1;
    }

    /**
     * Polls {@code /partitions} until partition {@code p} is served at version {@code v} (the
     * reopen runs after the upload answered), for at most 10 s.
     */
    private void awaitServed(int p, long v) throws Exception {
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
      while (System.nanoTime() < deadline) {
        HttpResponse<byte[]> r =
            client.send(
                HttpRequest.newBuilder(URI.create(url + "/partitions")).build(),
                HttpResponse.BodyHandlers.ofByteArray());
        for (JsonNode n : JSON.readTree(r.body()).path("partitions")) {
          if (n.path("partition").asInt() == p && n.path("servedVersion").asLong() >= v) {
            return;
          }
        }
        Thread.sleep(20); // polling another process: nothing to await on
      }
      System.err.println("partition " + p + " version " + v + " not served within 10 s");
    }

    /** Republishes one random partition with fresh offers every period. */
    private final class Republisher implements Runnable {
      final AtomicBoolean stop = new AtomicBoolean();
      final AtomicLong published = new AtomicLong();
      final AtomicLong failed = new AtomicLong();

      @Override
      public void run() {
        if (republishMillis <= 0) {
          return;
        }
        SplittableRandom random = new SplittableRandom(seed ^ 0x5eed);
        CarOfferGenerator generator = CarOfferGenerator.builder().seed(seed ^ 0xcafe).build();
        long[] versions = new long[partitions];
        Arrays.fill(versions, 1);
        try {
          HttpResponse<String> held =
              client.send(
                  HttpRequest.newBuilder(URI.create(url + "/partitions")).build(),
                  HttpResponse.BodyHandlers.ofString());
          for (var node : JSON.readTree(held.body()).get("partitions")) {
            int p = node.get("partition").asInt();
            if (p < partitions) {
              versions[p] = node.get("versions").get(node.get("versions").size() - 1).asLong();
            }
          }
        } catch (Exception e) {
          System.err.println("cannot read the held versions, starting from 1: " + e);
        }
        int perPartition = Math.max(1, documents / partitions);
        long next = System.nanoTime();
        while (!stop.get()) {
          next += republishMillis * 1_000_000L;
          int p = random.nextInt(partitions);
          long v = ++versions[p];
          List<CarOffer> cars = generator.next(perPartition);
          byte[] file = CarsStoreGenerator.partition(cars);
          ReferenceCounts.Replacement replacement = reference.replace(p, cars, System.nanoTime());
          try {
            HttpResponse<String> r =
                client.send(
                    HttpRequest.newBuilder(URI.create(url + "/partitions/" + p + "/versions/" + v))
                        .header("Authorization", "Bearer " + ADMIN_TOKEN)
                        .PUT(HttpRequest.BodyPublishers.ofByteArray(file))
                        .build(),
                    HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 200) {
              published.incrementAndGet();
              awaitServed(p, v);
              replacement.served(System.nanoTime());
            } else {
              failed.incrementAndGet();
              replacement.refused();
              System.err.println("republish " + p + "/" + v + " refused: " + r.body());
            }
          } catch (Exception e) {
            failed.incrementAndGet();
            // not known whether it was published: leave both states possible
            System.err.println("republish " + p + "/" + v + " failed: " + e);
          }
          long wait = next - System.nanoTime();
          if (wait > 0) {
            try {
              Thread.sleep(
                  wait / 1_000_000L, (int) (wait % 1_000_000L)); // pacing, not synchronization
            } catch (InterruptedException e) {
              return;
            }
          }
        }
      }
    }
  }
}
