package dev.mosaic.bench.freshness;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * Where a cycle's CPU went, by the role of the thread that spent it. The freshness bench runs every
 * node in one process on a machine's few cores, so a cycle's time is bounded by the sum of the
 * nodes' work; this splits that sum by role (from the threads' names) so a reader can see which
 * node's work the cycle waited on, and how much of it the watch itself caused.
 *
 * <p>Roles: {@code searcher_rebuilds} (the searchers' blocking transport threads: change sets
 * applied, files written and verified), {@code searcher_streams} (their transport streams, TLS
 * included), {@code searcher_group_merges}, {@code searcher_reopens} (generations, unmapping),
 * {@code searcher_queries} (the watch's searches), {@code searcher_status} (status history), {@code
 * indexer_rebuilds}, {@code indexer_consumers}, {@code indexer_senders} (the indexers' transport),
 * {@code watch} (the bench's polling and its HTTP client), {@code feed_loader}, {@code
 * kafka_zookeeper} (broker, ZooKeeper server, and the clients' network threads, the loader's
 * producer included), {@code other_threads}, and {@code jvm} (the process CPU no Java thread
 * accounts for: garbage collection and JIT compilation).
 *
 * <p>NOTE: a thread that ends during the cycle takes its CPU time with it (the JVM reports none for
 * ended threads); the bench's pools live for the whole run, so that is little.
 *
 * <p>Thread safety: stateless; snapshots are immutable.
 */
final class CpuByRole {
  private CpuByRole() {}

  /** The roles in reporting order, each with the thread names it covers. */
  private static final List<Map.Entry<String, Pattern>> ROLES =
      List.of(
          role(
              "searcher_rebuilds",
              "mosaic-dc-.*-pekko\\.actor\\.default-blocking-io-dispatcher-.*"),
          role(
              "searcher_streams",
              "mosaic-dc-.*-(pekko\\.actor\\..*|mosaic\\.transport\\..*|scheduler-.*)"),
          role("searcher_group_merges", "mosaic-group-merge.*"),
          role("searcher_reopens", "mosaic-(generations|unmapper).*"),
          role("searcher_queries", "mosaic-query-.*"),
          role("searcher_status", "mosaic-(status-history|admin-).*"),
          role("indexer_rebuilds", "indexer-.*-(rebuild|fsync)-.*"),
          role("indexer_consumers", "indexer-.*"),
          role(
              "indexer_senders",
              "mosaic-(pekko\\.actor\\..*|mosaic\\.transport\\..*|scheduler-.*)"),
          role("watch", "(freshness-.*|HttpClient-.*)"),
          role("feed_loader", "feed-.*"),
          role(
              "kafka_zookeeper",
              "(kafka.*|data-plane-.*|quorum-.*|broker-.*|controller-.*|raft-.*|SyncThread.*"
                  + "|NIOWorkerThread.*|NIOServerCxnFactory.*|ProcessThread.*|RequestThrottler"
                  + "|SessionTracker|main-(SendThread|EventThread).*|Curator-.*|executor-.*"
                  + "|LogDirFailureHandler|ExpirationReaper.*)"));

  /** Threads no role covers. */
  static final String OTHER = "other_threads";

  /** Process CPU no Java thread accounts for. */
  static final String JVM = "jvm";

  private static Map.Entry<String, Pattern> role(String name, String threads) {
    return Map.entry(name, Pattern.compile(threads));
  }

  /** The role of a thread, by its name. */
  static String roleOf(String threadName) {
    for (Map.Entry<String, Pattern> r : ROLES) {
      if (r.getValue().matcher(threadName).matches()) {
        return r.getKey();
      }
    }
    return OTHER;
  }

  /** The CPU time of every live thread and of the process, at one moment. */
  record Snapshot(Map<Long, Long> threadCpuNanos, Map<Long, String> names, long processCpuNanos) {
    Snapshot {
      threadCpuNanos = Map.copyOf(threadCpuNanos);
      names = Map.copyOf(names);
    }

    /**
     * The CPU spent from {@code before} until this snapshot, by role (every role listed, zero
     * included, plus {@link #OTHER} and {@link #JVM}), in nanoseconds.
     */
    Map<String, Long> since(Snapshot before) {
      Map<String, Long> out = new LinkedHashMap<>();
      ROLES.forEach(r -> out.put(r.getKey(), 0L));
      out.put(OTHER, 0L);
      long threads = 0;
      for (Map.Entry<String, Long> t : spentByThread(before)) {
        out.merge(roleOf(t.getKey()), t.getValue(), Long::sum);
        threads += t.getValue();
      }
      out.put(JVM, Math.max(0, processCpuNanos - before.processCpuNanos - threads));
      return out;
    }

    /**
     * The {@code k} thread groups that spent the most CPU from {@code before} until this snapshot,
     * most first, in nanoseconds: threads grouped by name with every run of digits read as {@code
     * N} (a pool's threads, the nodes' numbered copies), so a role's total can be told apart.
     */
    Map<String, Long> busiest(Snapshot before, int k) {
      Map<String, Long> groups = new HashMap<>();
      for (Map.Entry<String, Long> t : spentByThread(before)) {
        groups.merge(DIGITS.matcher(t.getKey()).replaceAll("N"), t.getValue(), Long::sum);
      }
      Map<String, Long> out = new LinkedHashMap<>();
      groups.entrySet().stream()
          .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
          .limit(k)
          .forEachOrdered(e -> out.put(e.getKey(), e.getValue()));
      return out;
    }

    /**
     * The CPU each live thread spent since {@code before}, by thread name; threads that spent none
     * left out.
     */
    private List<Map.Entry<String, Long>> spentByThread(Snapshot before) {
      List<Map.Entry<String, Long>> out = new ArrayList<>();
      for (Map.Entry<Long, Long> t : threadCpuNanos.entrySet()) {
        long spent = t.getValue() - before.threadCpuNanos.getOrDefault(t.getKey(), 0L);
        if (spent > 0) {
          out.add(Map.entry(names.get(t.getKey()), spent));
        }
      }
      return out;
    }
  }

  private static final Pattern DIGITS = Pattern.compile("\\d+");

  /** The CPU times now. */
  static Snapshot take() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    Map<Long, Long> cpu = new HashMap<>();
    Map<Long, String> names = new HashMap<>();
    for (ThreadInfo info : threads.getThreadInfo(threads.getAllThreadIds())) {
      if (info == null) {
        continue; // ended since the ids were listed
      }
      long nanos = threads.getThreadCpuTime(info.getThreadId());
      if (nanos >= 0) {
        cpu.put(info.getThreadId(), nanos);
        names.put(info.getThreadId(), info.getThreadName());
      }
    }
    long process =
        ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
            .getProcessCpuTime();
    return new Snapshot(cpu, names, process);
  }

  /** {@code role=ms} pairs, in role order, for a log line. */
  static String describe(Map<String, Long> nanosByRole) {
    return nanosByRole.entrySet().stream()
        .map(e -> String.format(Locale.ROOT, "%s=%d", e.getKey(), e.getValue() / 1_000_000))
        .collect(Collectors.joining(" "));
  }
}
