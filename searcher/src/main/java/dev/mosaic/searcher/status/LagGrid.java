package dev.mosaic.searcher.status;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mosaic.partition.ManifestRecord;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * One index's partitions × searchers grid, as the status and cluster pages draw it: for every
 * searcher (grouped by datacenter) and partition, the version served, how far it is behind the
 * newest version known (the manifest's when there is one, else the newest any searcher holds), in
 * versions and in seconds, and a lag level that picks the cell's colour; plus the detail shown on a
 * click (versions held, size, checksum, pin).
 *
 * <p>Lag levels: 0 serves the newest version; 1 behind for under {@link #SLOW_SECONDS}; 2 behind
 * for under {@link #LATE_SECONDS}; 3 behind longer, or the partition is not served. When the time a
 * newer version appeared is unknown, one version behind is level 1, two or three level 2, more
 * level 3. "Behind for" runs from the earliest moment a newer version is known to have existed: the
 * manifest's build time of its version, the arrival of a newer file on another searcher, or a newer
 * version held anywhere that reads as its build time (indexers number versions by clock
 * milliseconds). Versions no searcher holds any more are unknown, so it is a lower bound.
 *
 * <p>Thread safety: stateless; {@link #build} may be called concurrently.
 */
public final class LagGrid {
  /** Seconds behind from which a cell is level 2. */
  public static final double SLOW_SECONDS = 10;

  /** Seconds behind from which a cell is level 3. */
  public static final double LATE_SECONDS = 60;

  /** How many of the worst cells the summary lists. */
  static final int WORST = 12;

  private static final JsonNodeFactory JSON = JsonNodeFactory.instance;

  /** What the summary's list of the worst cells repeats of each: enough to name and rank it. */
  private static final List<String> WORST_FIELDS =
      List.of(
          "partition",
          "level",
          "state",
          "version",
          "newestVersion",
          "versionsBehind",
          "secondsBehind");

  private LagGrid() {}

  /**
   * One searcher's column.
   *
   * @param datacenter its datacenter
   * @param address its HTTP base address
   * @param self true for the searcher answering
   * @param health its {@code /health} status ({@code UP}, {@code DOWN}, {@code UNREACHABLE})
   * @param partitions its {@code /partitions} answer, or null when unread
   * @param error why {@code partitions} is null
   */
  public record Column(
      String datacenter,
      String address,
      boolean self,
      String health,
      JsonNode partitions,
      String error) {
    /** Checks the names. */
    public Column {
      Objects.requireNonNull(datacenter, "datacenter");
      Objects.requireNonNull(address, "address");
    }
  }

  /** What is known of one partition across the columns and the manifest. */
  private static final class Known {
    final NavigableSet<Long> versions = new TreeSet<>();
    // version -> earliest moment it is known to have existed (epoch millis)
    final Map<Long, Long> since = new HashMap<>();
    Long manifestVersion;

    void saw(long version, Long atMillis, Instant now) {
      versions.add(version);
      if (atMillis == null && looksLikeBuildTime(version, now)) {
        atMillis = version;
      }
      if (atMillis != null) {
        since.merge(version, atMillis, Math::min);
      }
    }

    long newest() {
      return versions.last();
    }

    /** Earliest moment a version newer than {@code v} existed, or null when unknown. */
    Long newerSince(long v) {
      Long best = null;
      for (long w : versions.tailSet(v, false)) {
        Long t = since.get(w);
        if (t != null && (best == null || t < best)) {
          best = t;
        }
      }
      return best;
    }
  }

  /**
   * The grid of one index.
   *
   * @param index the index's name
   * @param columns the searchers, in display order
   * @param manifest every record of the version manifest, or null when this searcher reads none
   * @param now the time ages are computed at
   */
  public static ObjectNode build(
      String index, List<Column> columns, Collection<ManifestRecord> manifest, Instant now) {
    int sv = -1;
    for (Column c : columns) {
      if (c.partitions() != null) {
        sv = Math.max(sv, c.partitions().path("schemaVersion").asInt(-1));
      }
    }
    TreeMap<Integer, Known> known = new TreeMap<>();
    boolean fromManifest = false;
    if (manifest != null) {
      if (sv < 0) {
        for (ManifestRecord r : manifest) {
          sv = Math.max(sv, r.id().schemaVersion());
        }
      }
      for (ManifestRecord r : manifest) {
        if (r.id().schemaVersion() == sv) {
          Known k = known.computeIfAbsent(r.id().partition(), p -> new Known());
          k.saw(r.id().version(), r.createdAtMillis() > 0 ? r.createdAtMillis() : null, now);
          k.manifestVersion = r.id().version();
          fromManifest = true;
        }
      }
    }
    for (Column c : columns) {
      if (c.partitions() == null || c.partitions().path("schemaVersion").asInt(-1) != sv) {
        continue;
      }
      for (JsonNode p : c.partitions().path("partitions")) {
        Known k = known.computeIfAbsent(p.path("partition").asInt(), x -> new Known());
        k.saw(p.path("version").asLong(), millis(p.path("publishedAt").asText(null)), now);
        for (JsonNode v : p.path("versions")) {
          k.saw(v.asLong(), null, now);
        }
        if (!p.path("servedVersion").isNull() && p.has("servedVersion")) {
          k.saw(p.path("servedVersion").asLong(), null, now);
        }
      }
    }

    ObjectNode grid = JSON.objectNode();
    grid.put("name", index);
    grid.put("schemaVersion", sv);
    grid.put("reference", fromManifest ? "manifest" : "newest held");
    grid.put("now", now.toString());
    grid.put("slowSeconds", SLOW_SECONDS);
    grid.put("lateSeconds", LATE_SECONDS);
    ArrayNode parts = grid.putArray("partitions");
    known.forEach(
        (p, k) -> {
          ObjectNode o = parts.addObject();
          o.put("partition", p);
          o.put("newestVersion", k.newest());
          Long t = k.since.get(k.newest());
          if (t != null) {
            o.put("newestSince", Instant.ofEpochMilli(t).toString());
          }
          if (k.manifestVersion != null) {
            o.put("manifestVersion", k.manifestVersion);
          }
        });

    int[] levels = new int[4];
    int unreachable = 0;
    List<ObjectNode> behind = new ArrayList<>();
    Map<String, ArrayNode> byDc = new LinkedHashMap<>();
    ArrayNode dcs = grid.putArray("datacenters");
    for (Column c : columns) {
      ArrayNode searchers =
          byDc.computeIfAbsent(
              c.datacenter(),
              dc -> {
                ObjectNode d = dcs.addObject();
                d.put("name", dc);
                return d.putArray("searchers");
              });
      ObjectNode s = searchers.addObject();
      s.put("address", c.address());
      s.put("self", c.self());
      s.put("health", c.health() == null ? "UNKNOWN" : c.health());
      if (c.partitions() == null) {
        s.put("error", c.error() == null ? "no answer" : c.error());
        unreachable++;
        continue;
      }
      int theirs = c.partitions().path("schemaVersion").asInt(-1);
      s.put("schemaVersion", theirs);
      s.set("generation", c.partitions().path("generation"));
      if (theirs != sv) {
        s.put(
            "note",
            "serves schema version " + theirs + "; the index's newest is " + sv + ": all behind");
      }
      Map<Integer, JsonNode> held = new HashMap<>();
      if (theirs == sv) {
        for (JsonNode p : c.partitions().path("partitions")) {
          held.put(p.path("partition").asInt(), p);
        }
      }
      ArrayNode cells = s.putArray("cells");
      for (Map.Entry<Integer, Known> e : known.entrySet()) {
        ObjectNode cell = cells.addObject();
        cell(cell, e.getKey(), e.getValue(), held.get(e.getKey()), now);
        levels[cell.path("level").asInt()]++;
        if (cell.path("level").asInt() > 0) {
          // a reference to the cell, not a second copy of its detail
          ObjectNode w = JSON.objectNode();
          for (String f : WORST_FIELDS) {
            if (cell.has(f)) {
              w.set(f, cell.get(f));
            }
          }
          w.put("datacenter", c.datacenter());
          w.put("address", c.address());
          behind.add(w);
        }
      }
    }
    ObjectNode summary = grid.putObject("summary");
    summary.put("cells", levels[0] + levels[1] + levels[2] + levels[3]);
    summary.put("current", levels[0]);
    ArrayNode lv = summary.putArray("levels");
    for (int l : levels) {
      lv.add(l);
    }
    summary.put("behind", levels[1] + levels[2] + levels[3]);
    summary.put("unreachable", unreachable);
    double maxBehind = 0;
    for (ObjectNode w : behind) {
      if (w.path("secondsBehind").isNumber()) {
        maxBehind = Math.max(maxBehind, w.path("secondsBehind").asDouble());
      }
    }
    summary.put("maxSecondsBehind", maxBehind);
    behind.sort(
        Comparator.<ObjectNode>comparingInt(w -> w.path("level").asInt())
            .thenComparingDouble(w -> w.path("secondsBehind").asDouble(0))
            .thenComparingInt(w -> w.path("versionsBehind").asInt())
            .reversed());
    ArrayNode worst = summary.putArray("worst");
    behind.stream().limit(WORST).forEach(worst::add);
    return grid;
  }

  private static void cell(ObjectNode cell, int partition, Known k, JsonNode p, Instant now) {
    cell.put("partition", partition);
    long newest = k.newest();
    cell.put("newestVersion", newest);
    if (p == null) {
      cell.put("state", "missing");
      cell.put("level", 3);
      Long t = k.since.get(newest);
      if (t != null) {
        cell.put("secondsBehind", seconds(now.toEpochMilli() - t));
      }
      return;
    }
    long held = p.path("version").asLong();
    boolean served = p.has("servedVersion") && !p.path("servedVersion").isNull();
    long version = served ? p.path("servedVersion").asLong() : held;
    cell.put("version", version);
    if (served) {
      cell.put("servedVersion", version);
    } else {
      cell.putNull("servedVersion");
    }
    cell.put("heldVersion", held);
    for (String f : List.of("ageSeconds", "publishedAt", "sizeBytes", "crc32c", "pinned")) {
      if (p.has(f)) {
        cell.set(f, p.get(f));
      }
    }
    cell.set("versions", p.path("versions").deepCopy());
    if (!served) {
      cell.put("state", "not served");
      cell.put("level", 3);
      return;
    }
    int versionsBehind = k.versions.tailSet(version, false).size();
    cell.put("versionsBehind", versionsBehind);
    if (versionsBehind == 0) {
      cell.put("state", "current");
      cell.put("level", 0);
      cell.put("secondsBehind", 0.0);
      return;
    }
    cell.put("state", "behind");
    Long since = k.newerSince(version);
    int level;
    if (since != null) {
      double s = Math.max(0, seconds(now.toEpochMilli() - since));
      cell.put("secondsBehind", s);
      level = s < SLOW_SECONDS ? 1 : s < LATE_SECONDS ? 2 : 3;
    } else {
      cell.putNull("secondsBehind");
      level = versionsBehind <= 1 ? 1 : versionsBehind <= 3 ? 2 : 3;
    }
    cell.put("level", level);
  }

  /**
   * True when a version reads as the clock milliseconds it was built at (indexers number versions
   * {@code max(previous + 1, clock millis)}): after 2001 and not ahead of now by more than an hour.
   */
  static boolean looksLikeBuildTime(long version, Instant now) {
    return version >= 1_000_000_000_000L && version <= now.toEpochMilli() + 3_600_000L;
  }

  private static double seconds(long millis) {
    return millis / 1000.0;
  }

  private static Long millis(String iso) {
    if (iso == null) {
      return null;
    }
    try {
      return Instant.parse(iso).toEpochMilli();
    } catch (DateTimeParseException e) {
      return null;
    }
  }
}
