package dev.mosaic.bench.chart;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.awt.image.BufferedImage;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import javax.imageio.ImageIO;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResultChartsTest {
  @TempDir Path dir;

  @BeforeAll
  static void headless() {
    System.setProperty("java.awt.headless", "true");
  }

  @Test
  void formatOutputBecomesAPngWithOnePanelPerResult() throws Exception {
    List<String> lines =
        List.of(
            "# from README figures of 2026-11-22",
            "some JMH noise",
            "# JMH version: 1.37",
            "# VM invoker: /opt/jdk/bin/java",
            "# Benchmark: dev.mosaic.bench.format.CarsMixBenchmark.ours",
            "# Run progress: 0.00% complete, ETA 00:01:30",
            "RESULT table1_count ours_us=0.1080 lucene_us=1.1914 ratio=11.03",
            "RESULT cars_mix ours_ops=816.7 lucene_ops=1761.4 ratio=0.46",
            "INFO machine cpus=2",
            "RESULT format_build docs_per_s=120913 bytes_per_raw_payload=0.326"
                + " heap_bytes_per_partition=1044 open_1024_ms=23.78",
            "RESULT cars_facets_new ours_ops=10 lucene_ops=5 note=first");
    ResultCharts.Output out = ResultCharts.Output.parse("format", lines);
    assertThat(out.results())
        .extracting(ResultLine::name)
        .containsExactly("table1_count", "cars_mix", "format_build", "cars_facets_new");
    assertThat(out.captions()).containsExactly("from README figures of 2026-11-22");

    Path png = ResultCharts.write(out, dir);

    BufferedImage image = ImageIO.read(png.toFile());
    assertThat(image).as("a PNG ImageIO reads back").isNotNull();
    assertThat(image.getWidth()).isEqualTo(ResultCharts.WIDTH);
    assertThat(image.getHeight()).isEqualTo(ResultCharts.height(4));
    assertThat(Files.readAllLines(dir.resolve("format.txt")))
        .containsExactly(
            "# from README figures of 2026-11-22",
            "RESULT table1_count ours_us=0.1080 lucene_us=1.1914 ratio=11.03",
            "RESULT cars_mix ours_ops=816.7 lucene_ops=1761.4 ratio=0.46",
            "RESULT format_build docs_per_s=120913 bytes_per_raw_payload=0.326"
                + " heap_bytes_per_partition=1044 open_1024_ms=23.78",
            "RESULT cars_facets_new ours_ops=10 lucene_ops=5 note=first");
  }

  @Test
  void searcherLoadGetsPercentilesAndOnePanelForItsConcurrencyLevels() throws Exception {
    List<String> lines =
        List.of(
            "concurrency  2:   9279 requests in 20.0 s =     464 rps, p50 3.74 ms, p99 13.88 ms,"
                + " p99.9 21.14 ms, errors 0",
            "concurrency  8:  16183 requests in 20.0 s =     809 rps, p50 9.58 ms, p99 19.13 ms,"
                + " p99.9 26.38 ms, errors 0",
            "RESULT searcher_load rps=809 p50_ms=9.58 p99_ms=19.13 p999_ms=26.38 errors=0"
                + " reopens=95");
    ResultCharts.Output out = ResultCharts.Output.parse("searcher-load", lines);
    assertThat(out.levels()).hasSize(2);
    assertThat(out.levels().get(1).p999Ms()).isEqualTo(26.38);

    BufferedImage image = ImageIO.read(ResultCharts.write(out, dir).toFile());

    assertThat(image.getHeight()).isEqualTo(ResultCharts.height(2));
    // the redrawable text keeps the levels: parsing it again gives the same chart input
    ResultCharts.Output again =
        ResultCharts.Output.parse(
            "searcher-load", Files.readAllLines(dir.resolve("searcher-load.txt")));
    assertThat(again).isEqualTo(out);
  }

  @Test
  void aMergeAgainstARebuildIsDrawnAsOneComparisonPerUnit() throws Exception {
    ResultCharts.Output out =
        ResultCharts.Output.parse(
            "merge",
            List.of(
                "RESULT format_merge merge_ms=120.5 rebuild_ms=480.0 merge_alloc_mb=12.0"
                    + " rebuild_alloc_mb=300.0 ratio_alloc=25.0"));

    BufferedImage image = ImageIO.read(ResultCharts.write(out, dir).toFile());

    assertThat(image.getHeight())
        .as("time and allocation panels")
        .isEqualTo(ResultCharts.height(2));
  }

  @Test
  void commandLineWritesOnePngPerInput() throws Exception {
    Path in = dir.resolve("transport.txt");
    Files.writeString(
        in,
        "RESULT transport ours_mbps=23.9 socket_mbps=441.2 fanout_1024_s=254.2"
            + " inter_dc_copies_per_version=3.00 tls=on\n");
    Path out = dir.resolve("out");
    int code =
        new picocli.CommandLine(new ResultCharts())
            .execute("--out-dir", out.toString(), "--caption", "2 vCPU", in.toString());
    assertThat(code).isZero();
    BufferedImage image = ImageIO.read(out.resolve("transport.png").toFile());
    assertThat(image.getHeight()).isEqualTo(ResultCharts.height(1));
    assertThat(Files.readAllLines(out.resolve("transport.txt"))).first().isEqualTo("# 2 vCPU");
  }

  @Test
  void aFigureWithItsOwnBaselineIsDrawnAgainstItNotAgainstOurs() throws Exception {
    Path in = dir.resolve("transport.txt");
    Files.writeString(
        in,
        "RESULT transport ours_mbps=175.3 baseline_mbps=163.2 relay_mbps=49.8"
            + " relay_baseline_mbps=31.8 fanout_s=261.3 partitions=1024 dcs=3 tls=on\n");
    Path out = dir.resolve("out");
    assertThat(
            new picocli.CommandLine(new ResultCharts())
                .execute("--out-dir", out.toString(), in.toString()))
        .isZero();
    BufferedImage image = ImageIO.read(out.resolve("transport.png").toFile());
    assertThat(image.getHeight())
        .as("two panels: ours vs baseline, relay vs relay_baseline")
        .isEqualTo(ResultCharts.height(2));
  }

  @Test
  void malformedLinesAreRejectedNamingTheLineAndTheProblem() {
    assertThatThrownBy(() -> ResultCharts.Output.parse("format", List.of("x", "RESULT")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("format.txt line 2: RESULT line has no name: 'RESULT'");
    assertThatThrownBy(
            () -> ResultCharts.Output.parse("format", List.of("RESULT cars_mix ours_ops 816.7")))
        .hasMessage("format.txt line 1: RESULT cars_mix: 'ours_ops' is not key=value");
    assertThatThrownBy(
            () -> ResultCharts.Output.parse("format", List.of("RESULT cars_mix ours_ops=")))
        .hasMessage("format.txt line 1: RESULT cars_mix: 'ours_ops' has an empty value");
    assertThatThrownBy(
            () -> ResultCharts.Output.parse("format", List.of("RESULT cars_mix a=1 a=2")))
        .hasMessage("format.txt line 1: RESULT cars_mix: 'a' is given twice");
    assertThatThrownBy(() -> ResultCharts.Output.parse("format", List.of("RESULT cars_mix")))
        .hasMessageContaining("has no key=value figures");
    assertThatThrownBy(() -> ResultCharts.Output.parse("indexer", List.of("no results here")))
        .hasMessage("indexer.txt has no RESULT line (did the benchmark finish?)");
  }

  @Test
  void commandLineFailsWithTheReasonOnAMalformedFile() throws Exception {
    Path in = dir.resolve("indexer.txt");
    Files.writeString(in, "RESULT indexer docs_per_s\n");
    java.io.StringWriter err = new java.io.StringWriter();
    picocli.CommandLine cl = new picocli.CommandLine(new ResultCharts());
    cl.setErr(new java.io.PrintWriter(err));
    int code = cl.execute("--out-dir", dir.resolve("out").toString(), in.toString());
    assertThat(code).isNotZero();
    assertThat(err.toString())
        .contains("indexer.txt line 1: RESULT indexer: 'docs_per_s' is not key=value");
    assertThat(dir.resolve("out/indexer.png")).doesNotExist();
  }
}
