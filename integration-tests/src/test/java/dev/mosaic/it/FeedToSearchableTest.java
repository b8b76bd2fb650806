package dev.mosaic.it;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.deploy.LocalCluster;
import dev.mosaic.deploy.SearcherRole;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The happy path of the whole pipeline: feed → Kafka → indexers → transport → every searcher. */
@ExtendWith(SharedCluster.class)
@Timeout(300)
class FeedToSearchableTest {

  @Test
  void feedChangeBecomesSearchableOnEverySearcherInEveryDc(LocalCluster cluster) throws Exception {
    List<String> all = cluster.runningSearchers().stream().map(SearcherRole::nodeId).toList();
    assertThat(all).hasSize(4);
    assertThat(cluster.runningSearchers().stream().map(SearcherRole::dc).distinct())
        .containsExactlyInAnyOrder("dc-a", "dc-b");
    Freshness freshness = new Freshness();
    int rounds = 24; // three times over the 8 probe offers, so over several partitions
    for (int i = 0; i < rounds; i++) {
      Map<String, Duration> seen = cluster.probe().measure(Duration.ofSeconds(60));
      assertThat(seen.keySet())
          .as("round %d: searchers that saw the change", i)
          .isEqualTo(new java.util.HashSet<>(all));
      seen.values().forEach(d -> freshness.add(d.toMillis()));
    }
    long p50 = freshness.percentile(50);
    long p99 = freshness.percentile(99);
    String result =
        String.format(
            "RESULT it-freshness samples=%d searchers=%d freshness_p50_ms=%d freshness_p99_ms=%d"
                + " target_p99_ms=2000 met=%s",
            freshness.count(), all.size(), p50, p99, p99 < 2000);
    System.out.println(result);
    write(result);
    // Correctness bound; the 2 s target is reported above (this machine is shared and loaded).
    assertThat(p99).as("feed-to-searchable p99 in ms").isLessThan(30_000);
  }

  private static void write(String line) throws IOException {
    Path out = Path.of("target", "freshness-result.txt");
    Files.createDirectories(out.getParent());
    Files.writeString(out, line + System.lineSeparator());
  }
}
