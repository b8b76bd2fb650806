package dev.mosaic.bench.freshness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.deploy.MosaicConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class FreshnessBenchmarkOptionsTest {

  private static FreshnessBenchmark.Settings parse(String... args) {
    FreshnessBenchmark tool = new FreshnessBenchmark();
    new CommandLine(tool).parseArgs(args);
    return tool.settings();
  }

  @Test
  void defaultsAreTheProductionScale() {
    FreshnessBenchmark.Settings s = parse();
    assertThat(s.offers()).isEqualTo(500_000);
    assertThat(s.partitions()).isEqualTo(1024);
    assertThat(s.cycles()).isEqualTo(10);
    assertThat(s.warmupCycles()).isEqualTo(8);
    assertThat(s.changeFraction()).isEqualTo(0.01);
    assertThat(s.cycleTimeout()).isEqualTo(Duration.ofMinutes(10));
  }

  @Test
  void theClusterRunsAtTheGivenScaleWithStillFeedsAndTheSetsWin() {
    MosaicConfig c =
        MosaicConfig.withOverrides(
            parse(
                    "--offers",
                    "20000",
                    "--partitions",
                    "4",
                    "--set",
                    "mosaic.indexer.debounce=300ms")
                .clusterOverrides());
    assertThat(c.feed.offers).isEqualTo(20_000);
    assertThat(c.partitions).isEqualTo(4);
    assertThat(c.topicPartitions).isEqualTo(4);
    assertThat(c.local.feedAfterStart).isFalse();
    assertThat(c.local.readyTimeout).isEqualTo(Duration.ofHours(1));
    assertThat(c.indexer.debounce).isEqualTo(Duration.ofMillis(300));
    assertThat(c.hasZooKeeperCredential()).isTrue();
  }

  @Test
  void outOfRangeOptionsAreRefusedNamingTheOptionAndValue() {
    assertRefused("--offers must be at least 1, got 0", "--offers", "0");
    assertRefused("--partitions must be between 1 and 32768, got 0", "--partitions", "0");
    assertRefused("--cycles must be at least 1, got 0", "--cycles", "0");
    assertRefused("--warmup-cycles must be at least 0, got -1", "--warmup-cycles", "-1");
    assertRefused("--change-fraction must be in (0, 1], got 0.0", "--change-fraction", "0");
    assertRefused("--change-fraction must be in (0, 1], got 1.5", "--change-fraction", "1.5");
    assertRefused("--cycle-timeout must be at least 1 s, got 0", "--cycle-timeout", "0");
    assertRefused("--poll-ms must be at least 1, got -5", "--poll-ms", "-5");
  }

  private static void assertRefused(String message, String... args) {
    assertThatThrownBy(() -> parse(args))
        .isInstanceOf(CommandLine.ParameterException.class)
        .hasMessage(message);
  }
}
