package dev.mosaic.bench.load;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.mosaic.api.cars.CarOfferGenerator;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.Callable;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * Load tool for a searcher over HTTP (JDK {@link HttpClient}): {@code generate} writes the cars
 * store, {@code run} drives a query mix against a running searcher in closed loop at several
 * concurrency levels while republishing one partition every second through {@code PUT
 * /partitions/{p}/versions/{v}}, and prints one {@code RESULT searcher_load ...} line for the best
 * level whose p99 stays under the latency target.
 */
@Command(
    name = "searcher-load",
    mixinStandardHelpOptions = true,
    subcommands = {SearcherLoad.Generate.class, SearcherLoad.Run.class})
public final class SearcherLoad implements Runnable {
  /** The operator token the searcher under test was started with (admin upload endpoint). */
  private static final String ADMIN_TOKEN = System.getenv().getOrDefault("MOSAIC_ADMIN_TOKEN", "");

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
  @Command(name = "run", description = "Drive the query mix against a running searcher.")
  static final class Run implements Callable<Integer> {
    @Option(names = "--url", defaultValue = "http://127.0.0.1:18080")
    String url;

    @Option(names = "--partitions", defaultValue = "1024")
    int partitions;

    @Option(
        names = "--documents",
        defaultValue = "500000",
        description = "Data set size, to size republished partitions.")
    int documents;

    @Option(names = "--concurrency", split = ",", defaultValue = "2,4,8,16")
    int[] concurrency;

    @Option(names = "--warmup-seconds", defaultValue = "15")
    int warmupSeconds;

    @Option(names = "--step-seconds", defaultValue = "20")
    int stepSeconds;

    @Option(
        names = "--republish-millis",
        defaultValue = "1000",
        description = "0 disables republishing.")
    long republishMillis;

    @Option(names = "--p99-target-ms", defaultValue = "50")
    double p99TargetMs;

    @Option(names = "--await-ready-seconds", defaultValue = "300")
    int awaitReadySeconds;

    @Option(names = "--seed", defaultValue = "7")
    long seed;

    private HttpClient client;

    @Override
    public Integer call() throws Exception {
      client =
          HttpClient.newBuilder()
              .connectTimeout(Duration.ofSeconds(5))
              .version(HttpClient.Version.HTTP_1_1)
              .build();
      awaitReady();
      long reopensBefore = reopens();
      Republisher republisher = new Republisher();
      Thread rt = Thread.ofPlatform().name("republisher").daemon().start(republisher);
      try {
        System.out.printf(
            "warmup %d s at concurrency %d%n", warmupSeconds, concurrency[concurrency.length - 1]);
        step(concurrency[concurrency.length - 1], warmupSeconds, seed - 1);
        List<Step> steps = new ArrayList<>();
        for (int i = 0; i < concurrency.length; i++) {
          Step s = step(concurrency[i], stepSeconds, seed + i);
          steps.add(s);
          System.out.println(s.describe());
        }
        republisher.stop.set(true);
        rt.join(Duration.ofSeconds(30));
        long reopens = reopens() - reopensBefore;
        printServerSide();
        long errors = steps.stream().mapToLong(s -> s.errors).sum();
        Step best = null;
        for (Step s : steps) {
          if (s.p99Ms() < p99TargetMs && (best == null || s.rps() > best.rps())) {
            best = s;
          }
        }
        if (best == null) {
          best = steps.stream().min((a, b) -> Double.compare(a.p99Ms(), b.p99Ms())).orElseThrow();
          System.out.printf(
              Locale.ROOT,
              "no level kept p99 under %.0f ms; reporting the lowest p99%n",
              p99TargetMs);
        }
        System.out.printf(
            Locale.ROOT,
            "republished %d partition files (%d failed), searcher reopens %d%n",
            republisher.published.get(),
            republisher.failed.get(),
            reopens);
        System.out.printf(
            Locale.ROOT,
            "RESULT searcher_load rps=%.0f p50_ms=%.2f p99_ms=%.2f p999_ms=%.2f errors=%d reopens=%d%n",
            best.rps(),
            best.percentileMs(0.50),
            best.p99Ms(),
            best.percentileMs(0.999),
            errors,
            reopens);
        return 0;
      } finally {
        republisher.stop.set(true);
      }
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

    private Step step(int threads, int seconds, long stepSeed) throws InterruptedException {
      long end = System.nanoTime() + seconds * 1_000_000_000L;
      Worker[] workers = new Worker[threads];
      Thread[] ts = new Thread[threads];
      for (int i = 0; i < threads; i++) {
        workers[i] = new Worker(new QueryMix(stepSeed * 1000 + i), end);
        ts[i] = Thread.ofPlatform().name("load-" + i).start(workers[i]);
      }
      long t0 = System.nanoTime();
      for (Thread t : ts) {
        t.join();
      }
      double elapsed = (System.nanoTime() - t0) / 1e9;
      int n = 0;
      long errors = 0;
      for (Worker w : workers) {
        n += w.count;
        errors += w.errors;
      }
      long[] all = new long[n];
      int k = 0;
      for (Worker w : workers) {
        System.arraycopy(w.latencies, 0, all, k, w.count);
        k += w.count;
      }
      Arrays.sort(all);
      return new Step(threads, elapsed, all, errors);
    }

    private final class Worker implements Runnable {
      final QueryMix mix;
      final long end;
      long[] latencies = new long[1 << 14];
      int count;
      long errors;

      Worker(QueryMix mix, long end) {
        this.mix = mix;
        this.end = end;
      }

      @Override
      public void run() {
        while (System.nanoTime() < end) {
          QueryMix.Request q = mix.next();
          HttpRequest req =
              HttpRequest.newBuilder(URI.create(url + q.path()))
                  .header("Content-Type", "application/json")
                  .timeout(Duration.ofSeconds(10))
                  .POST(HttpRequest.BodyPublishers.ofString(q.body()))
                  .build();
          long t0 = System.nanoTime();
          boolean ok;
          try {
            HttpResponse<byte[]> r = client.send(req, HttpResponse.BodyHandlers.ofByteArray());
            ok = r.statusCode() == 200;
            if (!ok && errors < 5) {
              System.err.println(
                  "HTTP " + r.statusCode() + " for " + q.body() + ": " + new String(r.body()));
            }
          } catch (Exception e) {
            ok = false;
            if (errors < 5) {
              System.err.println("request failed: " + e);
            }
          }
          long took = System.nanoTime() - t0;
          if (ok) {
            if (count == latencies.length) {
              latencies = Arrays.copyOf(latencies, count * 2);
            }
            latencies[count++] = took;
          } else {
            errors++;
          }
        }
      }
    }

    private record Step(int threads, double seconds, long[] sortedNanos, long errors) {
      double rps() {
        return sortedNanos.length / seconds;
      }

      double percentileMs(double q) {
        if (sortedNanos.length == 0) {
          return Double.NaN;
        }
        int i = (int) Math.min(sortedNanos.length - 1, Math.ceil(q * sortedNanos.length) - 1);
        return sortedNanos[Math.max(0, i)] / 1e6;
      }

      double p99Ms() {
        return percentileMs(0.99);
      }

      String describe() {
        return String.format(
            Locale.ROOT,
            "concurrency %2d: %6d requests in %.1f s = %7.0f rps, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms, errors %d",
            threads,
            sortedNanos.length,
            seconds,
            rps(),
            percentileMs(0.5),
            p99Ms(),
            percentileMs(0.999),
            errors);
      }
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
          for (var node : new ObjectMapper().readTree(held.body()).get("partitions")) {
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
          byte[] file = CarsStoreGenerator.partition(generator.next(perPartition));
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
            } else {
              failed.incrementAndGet();
              System.err.println("republish " + p + "/" + v + " refused: " + r.body());
            }
          } catch (Exception e) {
            failed.incrementAndGet();
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
