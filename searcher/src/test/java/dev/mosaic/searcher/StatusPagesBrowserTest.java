package dev.mosaic.searcher;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
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
 * answer.
 */
class StatusPagesBrowserTest {
  private static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Duration PAGE_DEADLINE = Duration.ofSeconds(30);

  @TempDir static Path root;
  static SearcherNode east1;
  static SearcherNode east2;
  static SearcherNode west;
  static WebDriver browser;
  static String unreachable;

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
    east2 = node("east2", "east").build();
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
    for (SearcherNode n : List.of(east1, east2, west)) {
      n.generations().reopen().join();
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
  }

  private static SearcherNode.Builder node(String name, String dc) throws Exception {
    return SearcherNode.builder(Files.createDirectories(root.resolve(name)))
        .port(0)
        .datacenter(dc)
        .scanInterval(Duration.ZERO);
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

  @Test
  void statusPageShowsTheNodesPartitionsVersionsAndAFreshnessChart() {
    browser.get(base(east1) + "/status");
    await()
        .atMost(PAGE_DEADLINE)
        .untilAsserted(
            () ->
                assertThat(browser.findElements(By.cssSelector("#partitions tbody tr")))
                    .hasSize(4));
    WebElement p2 = browser.findElement(By.cssSelector("#partitions tr[data-partition='2']"));
    List<String> cells =
        p2.findElements(By.tagName("td")).stream().map(WebElement::getText).toList();
    assertThat(cells.get(1)).isEqualTo("2"); // version held
    assertThat(cells.get(2)).isEqualTo("2"); // version served by the generation
    assertThat(browser.findElement(By.id("health-status")).getText()).isEqualTo("UP");
    assertThat(browser.findElement(By.cssSelector("#tile-partitions .value")).getText())
        .isEqualTo("4");
    assertThat(browser.findElement(By.cssSelector("#tile-mapped .value")).getText())
        .doesNotStartWith("0 ");
    // the browser samples freshness on every refresh and draws it as SVG polylines
    await()
        .atMost(PAGE_DEADLINE)
        .untilAsserted(
            () ->
                assertThat(browser.findElements(By.cssSelector("#freshness polyline.series")))
                    .isNotEmpty());
  }

  @Test
  void clusterPageShowsEverySearcherByDatacenterAndHighlightsTheLaggingPartition() {
    browser.get(base(east1) + "/cluster");
    await()
        .atMost(PAGE_DEADLINE)
        .untilAsserted(
            () -> assertThat(browser.findElements(By.cssSelector(".searcher table"))).hasSize(3));
    // a peer that does not answer is shown as such, the others still are
    assertThat(
            browser
                .findElement(By.cssSelector(".searcher[data-address='" + unreachable + "']"))
                .getAttribute("class"))
        .contains("unreachable");
    assertThat(
            browser.findElements(By.cssSelector(".dc")).stream()
                .map(e -> e.getAttribute("data-dc"))
                .toList())
        .containsExactly("east", "west");
    assertThat(
            browser.findElements(By.cssSelector(".searcher")).stream()
                .map(e -> e.getAttribute("data-address"))
                .toList())
        .containsExactlyInAnyOrder(base(east1), base(east2), base(west), unreachable);

    WebElement westBox =
        browser.findElement(By.cssSelector(".searcher[data-address='" + base(west) + "']"));
    WebElement lagging = westBox.findElement(By.cssSelector("tr[data-partition='2']"));
    assertThat(lagging.getAttribute("class")).contains("lagging");
    assertThat(lagging.getAttribute("data-lagging")).isEqualTo("true");
    assertThat(westBox.findElements(By.cssSelector("tr.lagging"))).hasSize(1);
    for (SearcherNode east : List.of(east1, east2)) {
      WebElement box =
          browser.findElement(By.cssSelector(".searcher[data-address='" + base(east) + "']"));
      assertThat(box.findElements(By.cssSelector("tr.lagging"))).isEmpty();
    }
    assertThat(browser.findElement(By.id("lagging-list")).getText())
        .contains(base(west) + " partition 2: v1 < v2");
  }
}
