package dev.mosaic.deploy;

import java.time.Duration;
import java.util.List;
import java.util.stream.Collectors;

/**
 * One look at a running {@link LocalCluster}: what the status line prints and the {@code RESULT}
 * line reports.
 *
 * @param uptime since start
 * @param partitionsBuilt partitions with a version in the manifest
 * @param partitions P
 * @param dcs per datacenter
 * @param searchersReady searchers serving a generation
 * @param searchers searchers in the cluster
 * @param partitionsServed per index the fewest partitions any ready searcher serves, summed over
 *     the indexes
 * @param freshnessP50Millis feed-to-searchable median over recent probes, -1 without samples
 * @param freshnessP99Millis feed-to-searchable 99th percentile over recent probes, -1 without
 * @param freshnessSamples probe samples so far
 * @param queriesServed queries answered by all searchers
 * @param snapshots feed snapshots published
 * @param changes offer changes those snapshots caused
 * @param indexes indexes the cluster runs
 */
public record ClusterStatus(
    Duration uptime,
    int partitionsBuilt,
    int partitions,
    List<Dc> dcs,
    int searchersReady,
    int searchers,
    int partitionsServed,
    long freshnessP50Millis,
    long freshnessP99Millis,
    long freshnessSamples,
    long queriesServed,
    long snapshots,
    long changes,
    int indexes) {

  /**
   * One datacenter.
   *
   * @param name its id
   * @param up searchers serving a generation
   * @param total searchers
   * @param current the fewest partitions at the manifest's latest version on any ready searcher
   */
  public record Dc(String name, int up, int total, int current) {}

  /** The status line. */
  public String line() {
    String perDc =
        dcs.stream()
            .map(
                d ->
                    d.name()
                        + "["
                        + d.up()
                        + "/"
                        + d.total()
                        + " up, "
                        + d.current()
                        + "/"
                        + partitionsBuilt
                        + " at latest]")
            .collect(Collectors.joining(" "));
    return String.format(
        "[%4ds] partitions built %d/%d | %s | freshness p50=%s p99=%s (n=%d) | queries %d |"
            + " feed %d snapshots, %d changes",
        uptime.toSeconds(),
        partitionsBuilt,
        partitions,
        perDc,
        millis(freshnessP50Millis),
        millis(freshnessP99Millis),
        freshnessSamples,
        queriesServed,
        snapshots,
        changes);
  }

  private static String millis(long ms) {
    return ms < 0 ? "n/a" : ms + "ms";
  }
}
