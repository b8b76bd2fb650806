package dev.mosaic.bench.chart;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.concurrent.Callable;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.imageio.ImageIO;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.Styler;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * Turns a benchmark script's saved output into one PNG chart: reads the {@code RESULT <name>
 * key=value ...} lines (and, for the searcher load, the per-concurrency lines) and draws one panel
 * per result with XChart, stacked under a header naming the script and where the figures come from.
 *
 * <p>Layouts: a result with {@code ours_<unit>} and a peer's {@code <peer>_<unit>} (Lucene, a plain
 * socket, ...) gets bars ours vs the peer with the ratio in the title; a result with latency
 * percentiles ({@code p50_ms}, {@code p99_ms}, {@code p999_ms}) gets percentile bars; the searcher
 * load's per-concurrency lines get p50/p99/p99.9 bars per level; any other result gets one small
 * bar chart per numeric figure (each on its own axis, since the units differ). Figures not drawn
 * (non-numeric ones, or those beside a comparison) are listed under their panel.
 *
 * <p>Lines starting with {@code # } before or between the results are captions (e.g. {@code # from
 * README figures of 2026-11-22}); they are printed in the header. JMH's own {@code # } header and
 * progress lines are not captions and are dropped.
 *
 * <p>Command line: {@code ResultCharts --out-dir bench/results bench/target/results/format.txt ...}
 * writes {@code <out-dir>/<name>.png} and {@code <out-dir>/<name>.txt} (the lines the chart was
 * drawn from, so it can be redrawn later without rerunning) for every input {@code <name>.txt}. Run
 * with {@code -Djava.awt.headless=true}.
 *
 * <p>Thread safety: the static methods are safe for concurrent use.
 */
@Command(
    name = "result-charts",
    mixinStandardHelpOptions = true,
    description = "Draws the RESULT lines of saved benchmark outputs as PNG charts.")
public final class ResultCharts implements Callable<Integer> {
  /** Width of every chart image, pixels. */
  public static final int WIDTH = 1000;

  /** Height of the header (script name and captions), pixels. */
  public static final int HEADER_HEIGHT = 64;

  /** Height of one panel's chart, pixels. */
  public static final int CHART_HEIGHT = 360;

  /** Height of the notes strip under each panel, pixels. */
  public static final int NOTES_HEIGHT = 28;

  /** Our side of a comparison: {@code ours_<unit>}, or the merge against a rebuild. */
  private static final Pattern OURS = Pattern.compile("(ours|merge)_(.+)");

  /** A figure's own baseline: {@code <x>_baseline_<unit>} next to {@code <x>_<unit>}. */
  private static final Pattern BASELINE = Pattern.compile("(.+)_baseline_(.+)");

  private static final Pattern PERCENTILE = Pattern.compile("p(\\d+)_(ms|us|s)");

  /**
   * JMH's own {@code # } lines (run headers, progress): not captions, and they carry local paths
   * (the JVM, the class path) that have no place in a committed chart.
   */
  private static final Pattern JMH_HEADER =
      Pattern.compile(
          "# (JMH|VM|Blackhole|Warmup|Measurement|Timeout|Threads|Benchmark|Parameters|Run|Fork"
              + "|Detecting|Preparing)\\b.*");

  private static final Pattern LEVEL =
      Pattern.compile(
          "concurrency\\s+(\\d+):.*?=\\s*([\\d.]+) rps, p50 ([\\d.]+) ms, p99 ([\\d.]+) ms,"
              + " p99\\.9 ([\\d.]+) ms.*");
  private static final Color OURS_COLOR = new Color(0x2b, 0x6c, 0xb0);
  private static final Color PEER_COLOR = new Color(0xa0, 0xa0, 0xa0);
  private static final Color[] PERCENTILE_COLORS = {
    new Color(0x2b, 0x6c, 0xb0), new Color(0xe0, 0x8a, 0x1e), new Color(0xc0, 0x39, 0x2b)
  };

  @Option(
      names = "--out-dir",
      required = true,
      description = "where <name>.png and <name>.txt are written")
  Path outDir;

  @Option(
      names = "--caption",
      description = "a caption line added to every chart's header (e.g. the machine and its load)")
  List<String> captions = new ArrayList<>();

  @Parameters(arity = "1..*", description = "saved outputs, one per script: <name>.txt")
  List<Path> inputs;

  /** Command line entry point; exits 1 with the reason when an input cannot be charted. */
  public static void main(String[] args) {
    System.setProperty("java.awt.headless", "true");
    System.exit(new CommandLine(new ResultCharts()).execute(args));
  }

  @Override
  public Integer call() throws IOException {
    Files.createDirectories(outDir);
    for (Path in : inputs) {
      String file = in.getFileName().toString();
      String name = file.endsWith(".txt") ? file.substring(0, file.length() - 4) : file;
      List<String> lines = new ArrayList<>();
      captions.forEach(c -> lines.add("# " + c));
      lines.addAll(Files.readAllLines(in, StandardCharsets.UTF_8));
      Output out = Output.parse(name, lines);
      Path png = write(out, outDir);
      System.out.printf(
          Locale.ROOT, "chart: %s (%d results from %s)%n", png, out.results().size(), in);
    }
    return 0;
  }

  /**
   * What a chart is drawn from: a script's captions, result lines and searcher-load levels.
   *
   * @param script the script's name, e.g. {@code format}
   * @param captions caption lines, without the leading {@code # }
   * @param results the result lines, in order
   * @param levels the searcher load's per-concurrency figures, when printed
   */
  public record Output(
      String script, List<String> captions, List<ResultLine> results, List<LoadLevel> levels) {
    /** Copies the lists. */
    public Output {
      Objects.requireNonNull(script, "script");
      captions = List.copyOf(captions);
      results = List.copyOf(results);
      levels = List.copyOf(levels);
    }

    /**
     * Reads a script's output: {@code RESULT} lines, {@code # } captions, the searcher load's
     * {@code concurrency N: ...} lines; everything else is ignored.
     *
     * @throws IllegalArgumentException when a RESULT line is malformed (naming the script and line
     *     number) or when there is no RESULT line at all
     */
    public static Output parse(String script, List<String> lines) {
      List<String> captions = new ArrayList<>();
      List<ResultLine> results = new ArrayList<>();
      List<LoadLevel> levels = new ArrayList<>();
      for (int i = 0; i < lines.size(); i++) {
        String line = lines.get(i);
        if (ResultLine.isResultLine(line)) {
          results.add(ResultLine.parse(line, script + ".txt line " + (i + 1)));
        } else if (line.startsWith("# ") && !JMH_HEADER.matcher(line).matches()) {
          captions.add(line.substring(2).strip());
        } else {
          Matcher m = LEVEL.matcher(line.strip());
          if (m.matches()) {
            levels.add(
                new LoadLevel(
                    Integer.parseInt(m.group(1)),
                    Double.parseDouble(m.group(2)),
                    Double.parseDouble(m.group(3)),
                    Double.parseDouble(m.group(4)),
                    Double.parseDouble(m.group(5))));
          }
        }
      }
      if (results.isEmpty()) {
        throw new IllegalArgumentException(
            script + ".txt has no RESULT line (did the benchmark finish?)");
      }
      return new Output(script, captions, results, levels);
    }

    /** The lines a chart is redrawn from: captions, level lines and results, in that order. */
    public List<String> lines() {
      List<String> out = new ArrayList<>();
      captions.forEach(c -> out.add("# " + c));
      levels.forEach(l -> out.add(l.toString()));
      results.forEach(r -> out.add(r.toString()));
      return out;
    }
  }

  /**
   * One concurrency level of the searcher load.
   *
   * @param concurrency requests in flight
   * @param rps requests per second
   * @param p50Ms median latency
   * @param p99Ms 99th percentile
   * @param p999Ms 99.9th percentile
   */
  public record LoadLevel(int concurrency, double rps, double p50Ms, double p99Ms, double p999Ms) {
    @Override
    public String toString() {
      return String.format(
          Locale.ROOT,
          "concurrency %2d: = %.0f rps, p50 %.2f ms, p99 %.2f ms, p99.9 %.2f ms",
          concurrency,
          rps,
          p50Ms,
          p99Ms,
          p999Ms);
    }
  }

  /**
   * Writes {@code <dir>/<script>.png} and {@code <dir>/<script>.txt} (the lines drawn from).
   *
   * @return the PNG's path
   */
  public static Path write(Output output, Path dir) throws IOException {
    Files.createDirectories(dir);
    Path txt = dir.resolve(output.script() + ".txt");
    Files.write(txt, output.lines(), StandardCharsets.UTF_8);
    Path png = dir.resolve(output.script() + ".png");
    Path tmp = dir.resolve(output.script() + ".png.tmp");
    if (!ImageIO.write(render(output), "png", tmp.toFile())) {
      throw new IOException("no PNG writer in this JDK");
    }
    Files.move(
        tmp,
        png,
        java.nio.file.StandardCopyOption.REPLACE_EXISTING,
        java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    return png;
  }

  /** The expected height of a chart with this many panels. */
  public static int height(int panels) {
    return HEADER_HEIGHT + panels * (CHART_HEIGHT + NOTES_HEIGHT);
  }

  /** Draws the chart: the header, then one panel per result (two for a load with levels). */
  public static BufferedImage render(Output output) {
    List<Panel> panels = panels(output);
    BufferedImage image =
        new BufferedImage(WIDTH, height(panels.size()), BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, image.getWidth(), image.getHeight());
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 18));
      g.drawString(title(output.script()), 12, 24);
      g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
      String caption = String.join(" · ", output.captions());
      g.drawString(caption.isEmpty() ? "(no caption)" : caption, 12, 48);
      int y = HEADER_HEIGHT;
      for (Panel p : panels) {
        g.drawImage(p.image(), 0, y, null);
        y += CHART_HEIGHT;
        g.setColor(Color.DARK_GRAY);
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        g.drawString(p.notes(), 16, y + 19);
        y += NOTES_HEIGHT;
      }
    } finally {
      g.dispose();
    }
    return image;
  }

  /**
   * Whether {@code key} is one side of an {@code <x>_<unit>} / {@code <x>_baseline_<unit>} pair.
   */
  private static boolean pairedWithItsOwnBaseline(ResultLine r, String key) {
    Matcher b = BASELINE.matcher(key);
    if (b.matches()) {
      return r.number(b.group(1) + "_" + b.group(2)).isPresent();
    }
    int cut = key.lastIndexOf('_');
    return cut > 0
        && r.number(key.substring(0, cut) + "_baseline" + key.substring(cut)).isPresent();
  }

  private static String title(String script) {
    return switch (script) {
      case "format" -> "bench/format.sh: the format engine vs Apache Lucene 10";
      case "searcher-load" -> "bench/searcher-load.sh: HTTP query load on one searcher";
      case "transport" ->
          "bench/transport.sh: delivery vs a TLS socket baseline doing the same work";
      case "indexer" -> "bench/indexer.sh: indexer rebuild";
      case "merge" -> "bench/merge.sh: merging partition files vs rebuilding them";
      case "local-cluster" -> "deploy/local-cluster.sh: the whole pipeline";
      default -> script;
    };
  }

  /** One panel: a chart image of {@link #WIDTH} x {@link #CHART_HEIGHT} and a line of notes. */
  private record Panel(BufferedImage image, String notes) {}

  private static List<Panel> panels(Output output) {
    List<Panel> panels = new ArrayList<>();
    for (ResultLine r : output.results()) {
      List<String> drawn = new ArrayList<>();
      List<Panel> own = new ArrayList<>();
      for (String key : r.figures().keySet()) {
        Matcher m = OURS.matcher(key);
        if (!m.matches() || r.number(key).isEmpty()) {
          continue;
        }
        String unit = m.group(2);
        for (String peerKey : r.figures().keySet()) {
          if (!peerKey.equals(key)
              && peerKey.endsWith("_" + unit)
              && !OURS.matcher(peerKey).matches()
              && !pairedWithItsOwnBaseline(r, peerKey)
              && r.number(peerKey).isPresent()) {
            own.add(comparison(r, m.group(1), key, peerKey, unit));
            drawn.add(key);
            drawn.add(peerKey);
            drawn.add("ratio");
          }
        }
      }
      for (String key : r.figures().keySet()) {
        Matcher b = BASELINE.matcher(key);
        String measured = b.matches() ? b.group(1) + "_" + b.group(2) : null;
        if (measured != null
            && r.number(key).isPresent()
            && r.number(measured).isPresent()
            && !OURS.matcher(measured).matches()) {
          own.add(comparison(r, b.group(1), measured, key, b.group(2)));
          drawn.add(measured);
          drawn.add(key);
        }
      }
      List<String> percentiles =
          r.figures().keySet().stream()
              .filter(k -> PERCENTILE.matcher(k).matches() && r.number(k).isPresent())
              .toList();
      if (percentiles.size() >= 2) {
        own.add(percentiles(r, percentiles));
        drawn.addAll(percentiles);
      }
      if (own.isEmpty()) {
        own.add(figures(r));
        r.figures().keySet().stream().filter(k -> r.number(k).isPresent()).forEach(drawn::add);
      }
      String notes = notes(r, drawn);
      for (Panel p : own) {
        panels.add(new Panel(p.image(), notes));
      }
      if (r.name().equals("searcher_load") && !output.levels().isEmpty()) {
        panels.add(levels(output.levels()));
      }
    }
    return panels;
  }

  /** What a known result measures, printed under its panel. */
  private static final Map<String, String> MEANING =
      Map.of(
          "table1_count",
          "the YoctoDB paper's Table 1 count",
          "cars_mix",
          "the cars query mix",
          "cars_facets",
          "the cars facets sidebar",
          "format_merge",
          "merging partition files vs rebuilding them from the offers",
          "transport",
          "ours/baseline: one hop; relay: until the entry and every peer hold the file"
              + " (TLS, CRC, fsync, verified)",
          "searcher_load",
          "open loop at a fixed offered rate; failed requests counted in the latencies",
          "indexer",
          "full build and merge on one core; state, diff and snapshot-to-files on all cores");

  private static String notes(ResultLine r, List<String> drawn) {
    StringBuilder b = new StringBuilder(MEANING.getOrDefault(r.name(), ""));
    boolean first = true;
    for (Map.Entry<String, String> e : r.figures().entrySet()) {
      if (!drawn.contains(e.getKey())) {
        if (first) {
          b.append(b.isEmpty() ? "" : "; ").append("also: ");
          first = false;
        } else {
          b.append(", ");
        }
        b.append(e.getKey()).append('=').append(e.getValue());
      }
    }
    return b.toString();
  }

  private static Panel comparison(
      ResultLine r, String ourName, String oursKey, String peerKey, String unit) {
    String peer = peerKey.substring(0, peerKey.length() - unit.length() - 1);
    double ours = r.number(oursKey).orElseThrow();
    double theirs = r.number(peerKey).orElseThrow();
    boolean lowerIsBetter = isTime(unit) || isSize(unit);
    double speedup = lowerIsBetter ? theirs / ours : ours / theirs;
    String verdict =
        speedup >= 1
            ? String.format(Locale.ROOT, "%s %.2fx %s", ourName, speedup, better(unit))
            : String.format(Locale.ROOT, "%s %.2fx %s", ourName, 1 / speedup, worse(unit));
    String ratio = r.figures().containsKey("ratio") ? ", ratio=" + r.figures().get("ratio") : "";
    CategoryChart chart =
        chart(
            String.format(
                Locale.ROOT, "%s: %s vs %s, %s%s", r.name(), ourName, peer, verdict, ratio),
            unitLabel(unit) + (lowerIsBetter ? " (lower is better)" : " (higher is better)"));
    chart.addSeries(ourName, List.of(r.name()), List.of(ours)).setFillColor(OURS_COLOR);
    chart.addSeries(peer, List.of(r.name()), List.of(theirs)).setFillColor(PEER_COLOR);
    return new Panel(BitmapEncoder.getBufferedImage(chart), "");
  }

  private static Panel percentiles(ResultLine r, List<String> keys) {
    String unit = "";
    List<String> labels = new ArrayList<>();
    List<Double> values = new ArrayList<>();
    for (String k : keys) {
      Matcher m = PERCENTILE.matcher(k);
      if (!m.matches()) {
        throw new IllegalStateException(k);
      }
      String digits = m.group(1);
      unit = m.group(2);
      labels.add(
          "p"
              + (digits.length() > 2
                  ? digits.substring(0, 2) + "." + digits.substring(2)
                  : digits));
      values.add(r.number(k).orElseThrow());
    }
    OptionalDouble rps = r.number("rps");
    String title =
        r.name()
            + ": latency percentiles"
            + (rps.isPresent() ? " at " + trim(rps.getAsDouble()) + " requests/s" : "");
    CategoryChart chart = chart(title, "latency, " + unit);
    chart.getStyler().setLegendVisible(false);
    chart.addSeries("latency", labels, values).setFillColor(OURS_COLOR);
    return new Panel(BitmapEncoder.getBufferedImage(chart), "");
  }

  private static Panel levels(List<LoadLevel> levels) {
    List<String> labels = new ArrayList<>();
    for (LoadLevel l : levels) {
      labels.add(l.concurrency() + " in flight, " + trim(l.rps()) + " rps");
    }
    CategoryChart chart = chart("searcher_load: latency per concurrency level", "latency, ms");
    chart.getStyler().setLegendPosition(Styler.LegendPosition.InsideNW);
    String[] names = {"p50", "p99", "p99.9"};
    for (int s = 0; s < names.length; s++) {
      List<Double> v = new ArrayList<>();
      for (LoadLevel l : levels) {
        v.add(s == 0 ? l.p50Ms() : s == 1 ? l.p99Ms() : l.p999Ms());
      }
      chart.addSeries(names[s], labels, v).setFillColor(PERCENTILE_COLORS[s]);
    }
    return new Panel(
        BitmapEncoder.getBufferedImage(chart),
        "every concurrency level the load tool ran; the RESULT line reports the busiest level"
            + " whose p99 stays under the target");
  }

  /** Small multiples: one single-bar chart per numeric figure, each on its own axis. */
  private static Panel figures(ResultLine r) {
    List<String> keys = r.figures().keySet().stream().filter(k -> r.number(k).isPresent()).toList();
    BufferedImage image = new BufferedImage(WIDTH, CHART_HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = image.createGraphics();
    try {
      g.setColor(Color.WHITE);
      g.fillRect(0, 0, WIDTH, CHART_HEIGHT);
      g.setColor(Color.BLACK);
      g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 14));
      g.setRenderingHint(
          RenderingHints.KEY_TEXT_ANTIALIASING, RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
      g.drawString(r.name(), 16, 22);
      if (keys.isEmpty()) {
        g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 13));
        g.drawString("no numeric figures", 16, 48);
      }
      int w = keys.isEmpty() ? WIDTH : WIDTH / keys.size();
      for (int i = 0; i < keys.size(); i++) {
        String k = keys.get(i);
        CategoryChart c =
            new CategoryChartBuilder().width(w).height(CHART_HEIGHT - 30).title(k).build();
        style(c);
        c.getStyler().setLegendVisible(false);
        c.getStyler().setYAxisMin(0.0);
        c.addSeries(k, List.of(k), List.of(r.number(k).orElseThrow())).setFillColor(OURS_COLOR);
        g.drawImage(BitmapEncoder.getBufferedImage(c), i * w, 30, null);
      }
    } finally {
      g.dispose();
    }
    return new Panel(image, "");
  }

  private static CategoryChart chart(String title, String yTitle) {
    CategoryChart c =
        new CategoryChartBuilder()
            .width(WIDTH)
            .height(CHART_HEIGHT)
            .title(title)
            .yAxisTitle(yTitle)
            .build();
    style(c);
    c.getStyler().setYAxisMin(0.0);
    return c;
  }

  private static void style(CategoryChart c) {
    c.getStyler().setLabelsVisible(true).setLabelsPosition(0.9).setAvailableSpaceFill(0.6);
    c.getStyler().setPlotGridVerticalLinesVisible(false);
    c.getStyler().setYAxisDecimalPattern("#,##0.###");
    c.getStyler()
        .setChartBackgroundColor(Color.WHITE)
        .setLegendPosition(Styler.LegendPosition.InsideNE)
        .setChartTitleBoxVisible(false);
  }

  private static boolean isSize(String unit) {
    return unit.endsWith("mb") || unit.endsWith("bytes");
  }

  private static String better(String unit) {
    return isSize(unit) ? "smaller" : "faster";
  }

  private static String worse(String unit) {
    return isSize(unit) ? "larger" : "slower";
  }

  private static boolean isTime(String unit) {
    return unit.equals("us") || unit.equals("ms") || unit.equals("s") || unit.equals("ns");
  }

  private static String unitLabel(String unit) {
    return switch (unit) {
      case "us" -> "µs per operation";
      case "ns" -> "ns per operation";
      case "ms" -> "ms";
      case "s" -> "seconds";
      case "ops" -> "operations/s";
      case "mbps" -> "MB/s";
      case "rps" -> "requests/s";
      case "alloc_mb" -> "MB allocated";
      default -> unit;
    };
  }

  private static String trim(double v) {
    if (v == Math.rint(v) && Math.abs(v) < 1e15) {
      return Long.toString((long) v);
    }
    return String.format(Locale.ROOT, Math.abs(v) >= 100 ? "%.1f" : "%.3g", v);
  }
}
