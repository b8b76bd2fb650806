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
 * Load tool for a searcher over HTTP: {@code generate} writes the cars store, {@code run} drives a
 * query mix against a running searcher in open loop at a fixed offered rate ({@link OpenLoop}) over
 * a few persistent connections with every request encoded ahead ({@link KeepAliveClient}, so the
 * generator stays cheap beside the searcher on a small machine) while republishing one partition
 * every second through {@code PUT /partitions/{p}/versions/{v}}, checks every answer against the
 * reference counts of what was published ({@link ReferenceCounts}), and prints one {@code RESULT
 * searcher_load offered_rps=... achieved_rps=... p50_ms=... p99_ms=... p999_ms=... errors=...
 * wrong_answers=... reopens=...} line; failed requests count in the latencies and in errors. With
 * {@code --searcher-pid} it also prints the CPU time the searcher and the tool itself spent per
 * scheduled request while measuring, and the searcher's per request answered 200 (an {@code INFO
 * searcher_load} line): a machine shared with other work disturbs these less than latencies.
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

    @Option(
        names = "--connections",
        defaultValue = "64",
        description =
            "Persistent connections to the searcher (the most requests in flight; a request"
                + " scheduled while all are busy waits, and the wait counts in its latency).")
    int connections;

    @Option(
        names = "--searcher-pid",
        description = "Process id of the searcher, to report its CPU time per request.")
    Long searcherPid;

    @Option(names = "--await-ready-seconds", defaultValue = "300")
    int awaitReadySeconds;

    @Option(names = "--seed", defaultValue = "7")
    long seed;

    private HttpClient client;
    private KeepAliveClient loadClient;
    private final java.util.concurrent.ConcurrentHashMap<String, Long> failures =
        new java.util.concurrent.ConcurrentHashMap<>();
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
      URI base = URI.create(url);
      loadClient =
          new KeepAliveClient(
              new java.net.InetSocketAddress(base.getHost(), base.getPort()),
              connections,
              Duration.ofSeconds(timeoutSeconds));
      Republisher republisher = new Republisher();
      Thread rt = Thread.ofPlatform().name("republisher").daemon().start(republisher);
      try {
        System.out.printf(Locale.ROOT, "warmup %d s at %.0f rps%n", warmupSeconds, rate);
        if (warmupSeconds > 0) {
          System.out.println("warmup: " + load(warmupSeconds, seed - 1).describe());
          int dropped = loadClient.drain(Duration.ofSeconds(timeoutSeconds));
          if (dropped > 0) {
            System.out.println("warmup: dropped " + dropped + " requests still queued");
          }
          printFailures("warmup");
        }
        long reopensBefore = reopens();
        long publishedBefore = republisher.published.get();
        String loadBefore = loadAverage();
        CpuClock cpu = new CpuClock(searcherPid);
        OpenLoop.Result r = load(durationSeconds, seed);
        CpuClock used = cpu.since();
        long reopens = reopens() - reopensBefore;
        System.out.println("measured: " + r.describe());
        printFailures("measured");
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
        System.out.printf(
            Locale.ROOT,
            "INFO searcher_load searcher_cpu_ms_per_request=%.3f searcher_cpu_ms_per_answer=%.3f"
                + " load_cpu_ms_per_request=%.3f cpus=%d load_average_start=%s"
                + " load_average_end=%s%n",
            used.serverNanos() < 0 ? Double.NaN : used.serverNanos() / 1e6 / r.scheduled(),
            used.serverNanos() < 0
                ? Double.NaN
                : used.serverNanos() / 1e6 / Math.max(1, r.ok() + r.wrongAnswers()),
            used.ownNanos() / 1e6 / r.scheduled(),
            Runtime.getRuntime().availableProcessors(),
            loadBefore,
            loadAverage());
        return 0;
      } finally {
        republisher.stop.set(true);
        loadClient.close();
      }
    }

    /** Prints how many requests failed in which way, then forgets them. */
    private void printFailures(String phase) {
      failures.forEach(
          (kind, n) -> System.out.printf(Locale.ROOT, "%s failures: %s x %d%n", phase, kind, n));
      failures.clear();
      reportedFailures.set(0);
    }

    private static String loadAverage() {
      try {
        return java.nio.file.Files.readString(Path.of("/proc/loadavg")).split(" ")[0];
      } catch (java.io.IOException | RuntimeException e) {
        return "unknown";
      }
    }

    /**
     * CPU time used so far by this process and by the searcher (-1 when its pid is not given or the
     * system does not tell), or, from {@link #since}, used in between.
     */
    private record CpuClock(Long searcherPid, long ownNanos, long serverNanos) {
      CpuClock(Long searcherPid) {
        this(searcherPid, ownCpu(), serverCpu(searcherPid));
      }

      CpuClock since() {
        CpuClock now = new CpuClock(searcherPid);
        return new CpuClock(
            searcherPid,
            now.ownNanos - ownNanos,
            serverNanos < 0 || now.serverNanos < 0 ? -1 : now.serverNanos - serverNanos);
      }

      private static long ownCpu() {
        return ((com.sun.management.OperatingSystemMXBean)
                java.lang.management.ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
      }

      private static long serverCpu(Long pid) {
        if (pid == null) {
          return -1;
        }
        return ProcessHandle.of(pid)
            .flatMap(h -> h.info().totalCpuDuration())
            .map(Duration::toNanos)
            .orElse(-1L);
      }
    }

    /** A query of the mix with its HTTP request encoded ahead of the run. */
    private record Prepared(QueryMix.Request query, byte[] http) {}

    private OpenLoop.Result load(int seconds, long mixSeed) throws InterruptedException {
      // every request of the run is drawn and encoded before it starts, so the schedule's thread
      // only hands bytes to a connection
      QueryMix mix = new QueryMix(mixSeed);
      URI base = URI.create(url);
      String host = base.getHost() + ":" + base.getPort();
      Prepared[] prepared = new Prepared[(int) Math.min(Integer.MAX_VALUE - 8, rate * seconds + 1)];
      for (int i = 0; i < prepared.length; i++) {
        QueryMix.Request q = mix.next();
        prepared[i] =
            new Prepared(
                q,
                KeepAliveClient.post(
                    host, q.path(), q.body().getBytes(java.nio.charset.StandardCharsets.UTF_8)));
      }
      int[] next = {0};
      return new OpenLoop(rate, Duration.ofSeconds(seconds), Duration.ofSeconds(timeoutSeconds + 5))
          .run(
              () -> {
                Prepared p = prepared[next[0]++ % prepared.length];
                return () -> send(p);
              });
    }

    private CompletableFuture<OpenLoop.Outcome> send(Prepared prepared) {
      QueryMix.Request q = prepared.query();
      long start = System.nanoTime();
      return loadClient
          .send(prepared.http())
          .handle(
              (r, e) -> {
                if (e != null) {
                  return fail("request failed", e.toString());
                }
                if (r.status() != 200) {
                  return fail(
                      "HTTP " + r.status(),
                      "HTTP " + r.status() + " for " + q.body() + ": " + new String(r.body()));
                }
                String wrong = check(q, r.body(), start, System.nanoTime());
                if (wrong != null) {
                  failures.merge("wrong answer", 1L, Long::sum);
                  report("wrong answer to " + q.body() + ": " + wrong);
                  return OpenLoop.Outcome.WRONG_ANSWER;
                }
                return OpenLoop.Outcome.OK;
              });
    }

    private OpenLoop.Outcome fail(String kind, String detail) {
      failures.merge(kind, 1L, Long::sum);
      report(detail);
      return OpenLoop.Outcome.ERROR;
    }

    private void report(String failure) {
      if (reportedFailures.incrementAndGet() <= 10) {
        System.err.println(failure);
      }
    }

    /** What is wrong with an answer, or null when it is right. */
    private String check(QueryMix.Request q, byte[] body, long start, long end) {
      SearchAnswer answer;
      try {
        answer = SearchAnswer.parse(body);
      } catch (java.io.IOException e) {
        return "not JSON: " + e.getMessage();
      }
      long total = answer.total();
      if (total < 0) {
        return "no total";
      }
      if (!reference.accepts(q.expect(), total, start, end)) {
        return "total "
            + total
            + ", expected one of "
            + reference.candidates(q.expect(), start, end);
      }
      if (q.limit() < 0) {
        return null;
      }
      long expectedHits = Math.min(q.limit(), Math.max(0, total - q.skip()));
      if (answer.hits() != expectedHits) {
        return answer.hits()
            + " hits for total "
            + total
            + ", skip "
            + q.skip()
            + ", limit "
            + q.limit();
      }
      if (q.byPrice()) {
        long previous = Long.MIN_VALUE;
        for (long price : answer.prices()) {
          if (price == Long.MIN_VALUE) {
            return "a hit without values.price";
          }
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
