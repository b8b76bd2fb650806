package dev.mosaic.searcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.searcher.status.StatusHistory;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.Dimension;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * Takes the README's screenshots of {@code /status} (of b1) and {@code /cluster} (asked of a1) from
 * a real run: four searchers in two datacenters serving two indexes, {@code cars} of 64 partitions
 * and {@code realty} of 16, new versions published every second (each recorded in a version
 * manifest first, then delivered to each searcher after its own delay: one searcher of {@code dc-b}
 * is slow, and one partition stops reaching it), queries running meanwhile. Only runs when {@code
 * -Dmosaic.screenshots=<directory>} is given (see {@code searcher/docs/screenshots.sh}); {@code
 * -Dmosaic.screenshots.seconds} sets the run's length.
 */
@EnabledIfSystemProperty(named = "mosaic.screenshots", matches = ".+")
class StatusPagesScreenshots {
  private static final int PARTITIONS = 64;
  private static final int REALTY_PARTITIONS = 16;

  @TempDir Path root;

  @Test
  void screenshotsOfBothPagesFromARunningCluster() throws Exception {
    Path out = Path.of(System.getProperty("mosaic.screenshots"));
    long seconds = Long.getLong("mosaic.screenshots.seconds", 200);
    Files.createDirectories(out);
    PartitionManifest manifest = PartitionManifest.inMemory();
    PartitionManifest realtyManifest = PartitionManifest.inMemory();
    StatusHistory.Settings history =
        new StatusHistory.Settings(Duration.ofSeconds(1), (int) Math.min(900, seconds - 10));
    List<SearcherNode> nodes = new ArrayList<>();
    for (String name : new String[] {"a2", "b1", "b2"}) {
      SearcherNode n = node(name, history).build();
      n.start();
      nodes.add(n);
    }
    // a1, whose pages are shot, knows the others as peers
    SearcherNode.Builder first = node("a1", history);
    for (SearcherNode n : nodes) {
      first.peer(n == nodes.getFirst() ? "dc-a" : "dc-b", "http://127.0.0.1:" + n.port());
    }
    SearcherNode a1 = first.build();
    a1.start();
    nodes.addFirst(a1);
    // every searcher reads the manifest, as its transport does in a deployment
    for (SearcherNode n : nodes) {
      n.useManifest("cars", manifest);
      n.useManifest("realty", realtyManifest);
    }
    // queries go to b1, whose status page is shot (its deliveries take a few seconds)
    SearcherNode b1 = nodes.get(2);

    // delivery delays per searcher (ms): a1 at once, a2 soon, b1 later, b2 slow
    long[] delay = {0, 400, 2_500, 25_000};
    int stuck = 42; // its one change after the first minute never reaches b2
    AtomicBoolean stuckChanged = new AtomicBoolean();
    ScheduledExecutorService sched = Executors.newScheduledThreadPool(3);
    AtomicBoolean running = new AtomicBoolean(true);
    AtomicLong lastVersion = new AtomicLong();
    Random random = new Random(20261124);
    long start = System.currentTimeMillis();
    try {
      for (int p = 0; p < PARTITIONS; p++) {
        long v = start - 600_000 + p;
        record(manifest, p, v, start - 600_000);
        for (SearcherNode n : nodes) {
          TestFiles.publish(n.store(), p, v);
        }
      }
      for (int p = 0; p < REALTY_PARTITIONS; p++) {
        long v = start - 900_000 + p;
        record(realtyManifest, p, v, start - 900_000);
        for (SearcherNode n : nodes) {
          TestFiles.publish(n.index("realty").store(), p, v);
        }
      }
      sched.scheduleAtFixedRate(
          () -> {
            int changed = 1 + random.nextInt(3);
            for (int i = 0; i < changed; i++) {
              int p = random.nextInt(PARTITIONS);
              boolean lost = false;
              if (p == stuck) {
                // changes once more after the first minute, and that version never reaches b2
                if (stuckChanged.get() || System.currentTimeMillis() - start < 60_000) {
                  continue;
                }
                stuckChanged.set(true);
                lost = true;
              }
              long v = Math.max(lastVersion.get() + 1, System.currentTimeMillis());
              lastVersion.set(v);
              record(manifest, p, v, v);
              for (int s = 0; s < nodes.size(); s++) {
                SearcherNode n = nodes.get(s);
                if (s == 3 && lost) {
                  continue;
                }
                long d = delay[s] + (delay[s] == 0 ? 0 : random.nextInt((int) delay[s]));
                sched.schedule(() -> publishQuietly(n.store(), p, v), d, TimeUnit.MILLISECONDS);
              }
            }
            // realty changes less often, and reaches every searcher
            if (random.nextInt(3) == 0) {
              int p = random.nextInt(REALTY_PARTITIONS);
              long v = Math.max(lastVersion.get() + 1, System.currentTimeMillis());
              lastVersion.set(v);
              record(realtyManifest, p, v, v);
              for (int s = 0; s < nodes.size(); s++) {
                ReceivingStore store = nodes.get(s).index("realty").store();
                long d = delay[s] + (delay[s] == 0 ? 0 : random.nextInt((int) delay[s]));
                sched.schedule(() -> publishQuietly(store, p, v), d, TimeUnit.MILLISECONDS);
              }
            }
          },
          0,
          1,
          TimeUnit.SECONDS);
      Thread queries =
          Thread.ofPlatform()
              .daemon()
              .start(
                  () -> {
                    Random q = new Random(7);
                    while (running.get()) {
                      try {
                        String color = TestFiles.COLORS[q.nextInt(TestFiles.COLORS.length)];
                        TestHttp.post(
                            "http://127.0.0.1:" + b1.port() + "/search",
                            "{\"filter\": {\"eq\": {\"color\": \""
                                + color
                                + "\"}}, \"orderBy\":"
                                + " [\"-version\"], \"limit\": 20}");
                        TestHttp.post("http://127.0.0.1:" + b1.port() + "/count", "{}");
                        TestHttp.post(
                            "http://127.0.0.1:" + b1.port() + "/indexes/realty/count", "{}");
                        Thread.sleep(20 + q.nextInt(40)); // pacing the load, not synchronizing
                      } catch (IOException | InterruptedException e) {
                        return;
                      }
                    }
                  });
      long until = start + seconds * 1000;
      await()
          .atMost(Duration.ofSeconds(seconds + 60))
          .pollInterval(Duration.ofSeconds(1))
          .until(() -> System.currentTimeMillis() >= until);

      WebDriver browser = browser();
      try {
        String base = "http://127.0.0.1:" + a1.port();
        browser.manage().window().setSize(new Dimension(1400, 1150));
        browser.get("http://127.0.0.1:" + b1.port() + "/status");
        awaitLoaded(browser);
        shoot(browser, out.resolve("status.png"));
        browser.manage().window().setSize(new Dimension(1400, 1650));
        browser.get(base + "/cluster");
        awaitLoaded(browser);
        // the detail of the partition that stopped reaching b2, one click away
        // in one script run: the page redraws every few seconds, replacing its cells
        ((JavascriptExecutor) browser)
            .executeScript(
                "document.querySelector(arguments[0]).click();",
                ".index[data-index='cars'] .searcher[data-address='http://127.0.0.1:"
                    + nodes.get(3).port()
                    + "'] .cell[data-partition='"
                    + stuck
                    + "']");
        await()
            .atMost(Duration.ofSeconds(30))
            .until(() -> !browser.findElements(By.id("detail")).isEmpty());
        shoot(browser, out.resolve("cluster.png"));
        running.set(false);
        queries.join();
        sched.shutdownNow();
      } finally {
        browser.quit();
      }
    } finally {
      running.set(false);
      sched.shutdownNow();
      for (SearcherNode n : nodes) {
        n.close();
      }
    }
  }

  private SearcherNode.Builder node(String name, StatusHistory.Settings history)
      throws IOException {
    return SearcherNode.builder(Files.createDirectories(root.resolve(name)))
        .port(0)
        .datacenter(name.startsWith("a") ? "dc-a" : "dc-b")
        .indexName("cars")
        .index(
            "realty", Files.createDirectories(root.resolve(name + "-realty")), new PayloadDecoder())
        .statusHistory(history);
  }

  private static void record(PartitionManifest manifest, int p, long v, long builtAt) {
    try {
      manifest.record(
          ManifestRecord.built(
              new PartitionFileId(TestFiles.SCHEMA_VERSION, p, v), 1000, 0, 0, -1, builtAt, 0));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void publishQuietly(ReceivingStore store, int p, long v) {
    try {
      TestFiles.publish(store, p, v);
    } catch (Exception e) {
      // a later version already arrived: the store refuses older ones, as in production
    }
  }

  private static void awaitLoaded(WebDriver browser) {
    await()
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                "true".equals(browser.findElement(By.tagName("body")).getAttribute("data-loaded")));
  }

  private static void shoot(WebDriver browser, Path to) throws IOException {
    File png = ((ChromeDriver) browser).getScreenshotAs(OutputType.FILE);
    Files.copy(png.toPath(), to, StandardCopyOption.REPLACE_EXISTING);
    assertThat(Files.size(to)).isPositive();
  }

  private static WebDriver browser() {
    ChromeOptions options = new ChromeOptions();
    options.setBinary(new File("/usr/bin/chromium"));
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--hide-scrollbars");
    return new ChromeDriver(
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File("/usr/bin/chromedriver"))
            .usingAnyFreePort()
            .build(),
        options);
  }
}
