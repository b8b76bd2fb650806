package dev.mosaic.searcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.searcher.status.StatusHistory;
import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The status and cluster pages in a real headless Chromium (Debian's {@code chromium} and {@code
 * chromium-driver}, driven by Selenium through the installed driver; nothing is downloaded), over a
 * cluster of three searchers in this JVM: two in datacenter {@code east}, one in {@code west} that
 * has not received the newest version of partition 2, plus a {@code west} peer that does not
 * answer. The first reads a version manifest that also holds a partition 3 version no searcher has
 * received yet. The two {@code east} searchers also serve a second index, {@code realty}, of two
 * partitions, whose partition 1 has not reached the second yet.
 */
class StatusPagesBrowserTest {
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Duration PAGE_DEADLINE = Duration.ofSeconds(30);
  private static final String REALTY = "realty";

  @TempDir static Path root;
  static SearcherNode east1;
  static SearcherNode east2;
  static SearcherNode west;
  static WebDriver browser;
  static String unreachable;
  static final PartitionManifest manifest = PartitionManifest.inMemory();

  @BeforeAll
  static void startClusterAndBrowser() throws Exception {
    String missing =
        CHROMEDRIVER
            + " is missing; install Debian's chromium and chromium-driver to run the browser test";
    if ("true".equals(System.getenv("CI"))) {
      // .ci/run installs the driver: in CI a missing driver is a broken set-up, never a skip
      assertThat(CHROMEDRIVER).as(missing).isExecutable();
    }
    Assumptions.assumeTrue(Files.isExecutable(CHROMEDRIVER), "skipped: " + missing);
    east2 =
        node("east2", "east").index("realty", realtyStore("east2"), new PayloadDecoder()).build();
    west = node("west", "west").build();
    east2.start();
    west.start();
    try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      unreachable = "http://127.0.0.1:" + closed.getLocalPort();
    }
    east1 =
        node("east1", "east")
            .peer("west", unreachable)
            .peer("east", "http://127.0.0.1:" + east2.port())
            .peer("west", "http://127.0.0.1:" + west.port())
            .index("realty", realtyStore("east1"), new PayloadDecoder())
            .build();
    east1.start();
    for (SearcherNode n : List.of(east1, east2, west)) {
      for (int p = 0; p < 4; p++) {
        TestFiles.publish(n.store(), p, 1);
      }
    }
    // partition 2 moved on in east only: west lags
    TestFiles.publish(east1.store(), 2, 2);
    TestFiles.publish(east2.store(), 2, 2);
    for (SearcherNode n : List.of(east1, east2)) {
      ReceivingStore realty = n.index(REALTY).store();
      TestFiles.publish(realty, 0, 1);
      TestFiles.publish(realty, 1, 1);
    }
    TestFiles.publish(east1.index(REALTY).store(), 1, 2);
    for (SearcherNode n : List.of(east1, east2, west)) {
      for (SearchIndex index : n.indexes().values()) {
        index.generations().reopen().join();
      }
    }

    // Selenium Manager stays unused: the driver and the browser are given explicitly
    System.setProperty("webdriver.chrome.driver", CHROMEDRIVER.toString());
    ChromeOptions options = new ChromeOptions();
    if (Files.isExecutable(CHROMIUM)) {
      options.setBinary(CHROMIUM.toFile());
    }
    options.addArguments(
        "--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu");
    ChromeDriverService service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(CHROMEDRIVER.toString()))
            .usingAnyFreePort()
            .build();
    browser = new ChromeDriver(service, options);
    // the manifest east1 reads (recorded last, so that the ages below hold while the tests run):
    // east's versions, v2 of partition 2 built two minutes ago, and a
    // v2 of partition 3 built 12 s ago that no searcher holds yet
    long now = System.currentTimeMillis();
    for (int p = 0; p < 4; p++) {
      long v = p >= 2 ? 2 : 1;
      long builtAt = p == 3 ? now - 12_000 : now - 120_000;
      manifest.record(
          ManifestRecord.built(
              new PartitionFileId(TestFiles.SCHEMA_VERSION, p, v), 100, 0, 0, -1, builtAt, 0));
    }
    east1.useManifest(manifest);
  }

  private static Path realtyStore(String node) throws Exception {
    return Files.createDirectories(root.resolve(node + "-realty"));
  }

  private static SearcherNode.Builder node(String name, String dc) throws Exception {
    return SearcherNode.builder(Files.createDirectories(root.resolve(name)))
        .port(0)
        .datacenter(dc)
        .scanInterval(Duration.ZERO)
        .statusHistory(new StatusHistory.Settings(Duration.ofMillis(100), 900));
  }

  @AfterAll
  static void stop() {
    if (browser != null) {
      browser.quit();
    }
    for (SearcherNode n : new SearcherNode[] {east1, east2, west}) {
      if (n != null) {
        n.close();
      }
    }
  }

  private static String base(SearcherNode n) {
    return "http://127.0.0.1:" + n.port();
  }

  /** Waits until east1 has kept a few samples with query latencies in its history. */
  private static void awaitHistoryWithQueries() {
    await()
        .atMost(PAGE_DEADLINE)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              TestHttp.post(base(east1) + "/count", "{}");
              JsonNode h =
                  TestHttp.json(base(east1) + "/status/history.json").path("indexes").get(0);
              int latencies = 0;
              for (JsonNode v : h.path("p50Ms")) {
                latencies += v.isNumber() ? 1 : 0;
              }
              return h.path("t").size() >= 5 && latencies >= 2;
            });
  }

  @Test
  void statusPageDrawsTheGridByLagAndChartsFullOfHistoryOnFirstLoad() {
    awaitHistoryWithQueries();
    browser.get(base(east1) + "/status");
    awaitBody("data-loaded", "true");
    // the first render already draws the searcher's own history: the page has sampled nothing
    assertThat(
            Integer.parseInt(
                browser.findElement(By.tagName("body")).getAttribute("data-first-history-samples")))
        .isGreaterThanOrEqualTo(5);
    assertThat(points("freshness", "newest file")).isGreaterThanOrEqualTo(5);
    assertThat(points("rate", "queries/s")).isGreaterThanOrEqualTo(5);
    assertThat(points("latency", "p50")).isGreaterThanOrEqualTo(2);

    // one square per partition, coloured by lag behind the manifest: 3 is behind by 12 s
    List<WebElement> cells =
        browser.findElements(By.cssSelector(".index[data-index='default'] .cell[data-partition]"));
    assertThat(cells).hasSize(4);
    assertThat(levels(cells)).containsExactly("0", "0", "0", "2");
    assertThat(cells.get(3).getAttribute("class")).contains("lag-2");
    assertThat(cells.get(3).getAttribute("title")).contains("1 version").contains("behind");
    assertThat(browser.findElement(By.cssSelector("#tile-current .value")).getText())
        .isEqualTo("3 / 4");

    // the detail is one click away
    click(".index[data-index='default'] .cell[data-partition='2']");
    WebElement detail = browser.findElement(By.id("detail"));
    assertThat(detail.getAttribute("data-partition")).isEqualTo("2");
    assertThat(detail.getText()).contains("v2").contains("v1, v2").contains("current");

    browser.findElement(By.cssSelector("#partitions-details summary")).click();
    assertThat(browser.findElements(By.cssSelector("#partitions tbody tr"))).hasSize(4);
    WebElement p2 = browser.findElement(By.cssSelector("#partitions tr[data-partition='2']"));
    List<String> row = p2.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
    assertThat(row.get(1)).isEqualTo("v2"); // version held
    assertThat(row.get(2)).isEqualTo("v2"); // version served by the generation
    assertThat(browser.findElement(By.id("health-status")).getText()).isEqualTo("UP");
    assertThat(browser.findElement(By.cssSelector("#tile-partitions .value")).getText())
        .isEqualTo("4");
    assertThat(browser.findElement(By.cssSelector("#tile-mapped .value")).getText())
        .doesNotStartWith("0 ");
  }

  /**
   * Points drawn for one series of one chart, read in one script run (the page redraws its charts
   * every two seconds, so an element found in one call may be gone by the next).
   */
  private static int points(String chart, String series) {
    Object n =
        ((JavascriptExecutor) browser)
            .executeScript(
                "const e = document.querySelector(arguments[0]);"
                    + " return e ? e.getAttribute('data-points') : '0';",
                "#" + chart + " polyline.series[data-name='" + series + "']");
    return Integer.parseInt(String.valueOf(n));
  }

  /**
   * Clicks the element the selector finds, in one script run (the page redraws every few seconds,
   * so an element found in one call may be gone by the next).
   */
  private static void click(String selector) {
    ((JavascriptExecutor) browser)
        .executeScript("document.querySelector(arguments[0]).click();", selector);
  }

  /** Waits until the page's body carries the attribute with that value. */
  private static void awaitBody(String attribute, String value) {
    await()
        .atMost(PAGE_DEADLINE)
        .until(() -> value.equals(browser.findElement(By.tagName("body")).getAttribute(attribute)));
  }

  private static List<String> levels(List<WebElement> cells) {
    return cells.stream().map(e -> e.getAttribute("data-level")).toList();
  }

  private static final String DEFAULT = ".index[data-index='default']";

  private static WebElement searcherBox(String address) {
    return searcherBox(DEFAULT, address);
  }

  private static WebElement searcherBox(String index, String address) {
    return browser.findElement(
        By.cssSelector(index + " .searcher[data-address='" + address + "']"));
  }

  @Test
  void clusterPageGridsEverySearcherByDatacenterColouredByLag() {
    browser.get(base(east1) + "/cluster");
    await()
        .atMost(PAGE_DEADLINE)
        .untilAsserted(
            () ->
                assertThat(browser.findElements(By.cssSelector(DEFAULT + " .searcher .cells")))
                    .hasSize(3));
    // a peer that does not answer is shown as such, the others still are
    assertThat(searcherBox(unreachable).getAttribute("class")).contains("unreachable");
    assertThat(
            browser.findElements(By.cssSelector(DEFAULT + " .dc")).stream()
                .map(e -> e.getAttribute("data-dc"))
                .toList())
        .containsExactly("east", "west");
    assertThat(
            browser.findElements(By.cssSelector(DEFAULT + " .searcher")).stream()
                .map(e -> e.getAttribute("data-address"))
                .toList())
        .containsExactlyInAnyOrder(base(east1), base(east2), base(west), unreachable);

    // west serves v1 of partition 2, whose v2 the manifest has held for two minutes: red;
    // partition 3's v2 is in the manifest only, for 12 s: orange everywhere
    List<WebElement> westCells = searcherBox(base(west)).findElements(By.cssSelector(".cell"));
    assertThat(levels(westCells)).containsExactly("0", "0", "3", "2");
    assertThat(westCells.get(2).getAttribute("class")).contains("lag-3");
    assertThat(westCells.get(2).getAttribute("title"))
        .contains("serves v1")
        .contains("newest v2")
        .contains("1 version");
    for (SearcherNode east : List.of(east1, east2)) {
      assertThat(levels(searcherBox(base(east)).findElements(By.cssSelector(".cell"))))
          .containsExactly("0", "0", "0", "2");
    }
    assertThat(browser.findElement(By.cssSelector("#tile-current .value")).getText())
        .isEqualTo("11 / 16"); // 8 of 12 copies of default, 3 of 4 of realty
    WebElement worst = browser.findElement(By.cssSelector("#lagging-list tbody tr"));
    assertThat(worst.getAttribute("data-searcher")).isEqualTo(base(west));
    assertThat(worst.getAttribute("data-partition")).isEqualTo("2");

    // a click on a cell opens the partition across every searcher
    click(DEFAULT + " .searcher[data-address='" + base(west) + "'] .cell[data-partition='2']");
    WebElement detail = browser.findElement(By.id("detail"));
    assertThat(detail.getAttribute("data-partition")).isEqualTo("2");
    assertThat(
            detail.findElement(By.cssSelector("tr[data-searcher='" + base(west) + "']")).getText())
        .contains("v1")
        .contains("behind");
    assertThat(
            detail.findElement(By.cssSelector("tr[data-searcher='" + base(east2) + "']")).getText())
        .contains("v2")
        .contains("current");
  }

  @Test
  void statusPageShowsEachIndexBehindItsOwnTab() {
    browser.get(base(east1) + "/status");
    awaitBody("data-loaded", "true");
    List<WebElement> tabs = browser.findElements(By.cssSelector("#index-tabs .index-tab"));
    assertThat(tabs.stream().map(t -> t.getAttribute("data-index")).toList())
        .containsExactly("default", REALTY);
    assertThat(tabs.getFirst().getAttribute("class")).contains("selected");
    assertThat(tabs.get(1).getText()).contains("2 / 2 current");

    click("#index-tabs .index-tab[data-index='realty']");
    awaitBody("data-index", REALTY);
    assertThat(browser.getCurrentUrl()).endsWith("#index=" + REALTY);
    assertThat(browser.findElements(By.cssSelector(".index[data-index='default']"))).isEmpty();
    List<WebElement> cells =
        browser.findElements(By.cssSelector(".index[data-index='realty'] .cell[data-partition]"));
    assertThat(levels(cells)).containsExactly("0", "0");
    assertThat(browser.findElement(By.cssSelector("#tile-current .value")).getText())
        .isEqualTo("2 / 2");
    assertThat(browser.findElement(By.cssSelector("#tile-partitions .value")).getText())
        .isEqualTo("2");
    browser.findElement(By.cssSelector("#partitions-details summary")).click();
    WebElement p1 = browser.findElement(By.cssSelector("#partitions tr[data-partition='1']"));
    assertThat(p1.findElements(By.tagName("td")).get(7).getText()).isEqualTo("v1, v2");
    assertThat(browser.findElements(By.cssSelector("#partitions tbody tr"))).hasSize(2);
    // the realty history is its own, sampled since start
    await().atMost(PAGE_DEADLINE).until(() -> points("freshness", "newest file") >= 2);

    // the index in the address survives a reload
    browser.navigate().refresh();
    awaitBody("data-index", REALTY);
  }

  @Test
  void statusJsonSendsEachPartitionOnceAndEachIndexItsOwnQueries() throws Exception {
    for (int i = 0; i < 3; i++) {
      assertThat(TestHttp.post(base(east1) + "/indexes/realty/count", "{}")).isEqualTo(200);
    }
    JsonNode status = TestHttp.json(base(east1) + "/status.json");
    assertThat(status.has("partitions")).isFalse();
    assertThat(names(status)).containsExactly("default", REALTY);
    // every partition file held appears once: as its cell in the index's grid
    assertThat(status.findValues("crc32c")).hasSize(4 + 2);
    JsonNode realty = status.path("indexes").get(1);
    assertThat(realty.path("node").path("queries").path("count").asLong()).isEqualTo(3);
    assertThat(realty.path("node").path("partitionsHeld").asInt()).isEqualTo(2);
    assertThat(realty.path("node").path("manifest").asBoolean()).isFalse();
    assertThat(status.path("indexes").get(0).path("node").path("manifest").asBoolean()).isTrue();

    JsonNode history = TestHttp.json(base(east1) + "/status/history.json");
    assertThat(names(history)).containsExactly("default", REALTY);
    // the realty queries show in the realty history's rate, never in the default's
    await()
        .atMost(PAGE_DEADLINE)
        .pollInterval(Duration.ofMillis(50))
        .until(
            () -> {
              TestHttp.post(base(east1) + "/indexes/realty/count", "{}");
              return positive(
                  TestHttp.json(base(east1) + "/status/history.json")
                      .path("indexes")
                      .get(1)
                      .path("queriesPerSecond"));
            });
    // a searcher serving one index lists only it
    assertThat(TestHttp.json(base(west) + "/status.json").path("indexes").size()).isEqualTo(1);
  }

  private static List<String> names(JsonNode json) {
    List<String> names = new ArrayList<>();
    json.path("indexes").forEach(i -> names.add(i.path("name").asText()));
    return names;
  }

  private static boolean positive(JsonNode column) {
    for (JsonNode v : column) {
      if (v.isNumber() && v.asDouble() > 0) {
        return true;
      }
    }
    return false;
  }

  @Test
  void clusterPageGridsEachIndexWithTheSearchersServingIt() {
    browser.get(base(east1) + "/cluster");
    String realty = ".index[data-index='realty']";
    await()
        .atMost(PAGE_DEADLINE)
        .untilAsserted(
            () ->
                assertThat(browser.findElements(By.cssSelector(realty + " .searcher .cells")))
                    .hasSize(2));
    // west does not serve realty: not in its grid; the peer that does not answer is, unknown
    assertThat(
            browser.findElements(By.cssSelector(realty + " .searcher")).stream()
                .map(e -> e.getAttribute("data-address"))
                .toList())
        .containsExactlyInAnyOrder(base(east1), base(east2), unreachable);
    assertThat(levels(searcherBox(realty, base(east1)).findElements(By.cssSelector(".cell"))))
        .containsExactly("0", "0");
    List<WebElement> behind =
        searcherBox(realty, base(east2)).findElements(By.cssSelector(".cell"));
    assertThat(behind.get(0).getAttribute("data-level")).isEqualTo("0");
    assertThat(behind.get(1).getAttribute("data-level")).isNotEqualTo("0");
    assertThat(behind.get(1).getAttribute("title")).contains("serves v1").contains("newest v2");
    assertThat(browser.findElement(By.cssSelector("#tile-indexes .value")).getText())
        .isEqualTo("2");
  }
}
