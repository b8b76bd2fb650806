package dev.mosaic.format.impl;

import dev.mosaic.format.Database;
import dev.mosaic.format.DocumentProcessor;
import dev.mosaic.format.PartitionGroup;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a composite's partitions map to the databases it queries (its units): each maximal run of two
 * or more consecutive partitions that are consecutive members of one {@link PartitionGroup} becomes
 * one unit, the group's database restricted to the run's document window; every other partition is
 * a unit of its own. Units are in partition order and a window holds its partitions' documents in
 * partition order, so "unit order, then document id" is "partition order, then document id" (the
 * composite's tie order).
 *
 * <p>Thread safety: immutable after construction.
 */
final class GroupLayout {
  /** The database of each unit. */
  final Database[] units;

  /** Per unit: first document of its window, or null when no unit has a partial window. */
  final int[] windowFrom;

  /** Per unit: end of its window (exclusive), or null as {@link #windowFrom}. */
  final int[] windowTo;

  /** Per unit: the partitions of a group window, null for a partition queried as itself. */
  final Run[] runs;

  /** The groups this layout was made with, and where each member sits (null when ungrouped). */
  private final List<PartitionGroup> groups;

  private final Map<Database, Member> members;

  private GroupLayout(
      Database[] units,
      int[] windowFrom,
      int[] windowTo,
      Run[] runs,
      List<PartitionGroup> groups,
      Map<Database, Member> members) {
    this.units = units;
    this.windowFrom = windowFrom;
    this.windowTo = windowTo;
    this.runs = runs;
    this.groups = groups;
    this.members = members;
  }

  /** Every partition a unit of its own. */
  static GroupLayout ungrouped(List<Database> partitions) {
    return new GroupLayout(
        partitions.toArray(new Database[0]), null, null, new Run[partitions.size()], null, null);
  }

  /** The units of {@code partitions} given {@code groups} (see the class comment). */
  static GroupLayout of(List<Database> partitions, List<PartitionGroup> groups) {
    return of(partitions, groups, null);
  }

  /**
   * {@link #of(List, List)}, taking the index of the groups' members from {@code previous} (may be
   * null) when it was made with the same groups: a searcher's reopens change partitions far more
   * often than groups.
   */
  static GroupLayout of(
      List<Database> partitions, List<PartitionGroup> groups, GroupLayout previous) {
    Map<Database, Member> members =
        previous != null && sameGroups(previous.groups, groups) ? previous.members : null;
    if (members == null) {
      members = new IdentityHashMap<>();
      for (PartitionGroup g : groups) {
        for (int m = 0; m < g.members().size(); m++) {
          members.putIfAbsent(g.members().get(m), new Member(g, m));
        }
      }
    }
    List<Database> units = new ArrayList<>();
    List<int[]> windows = new ArrayList<>();
    List<Run> runs = new ArrayList<>();
    boolean partial = false;
    int n = partitions.size();
    for (int i = 0; i < n; ) {
      Member at = members.get(partitions.get(i));
      int length = 1;
      if (at != null) {
        List<Database> groupMembers = at.group.members();
        while (i + length < n
            && at.index + length < groupMembers.size()
            && groupMembers.get(at.index + length) == partitions.get(i + length)) {
          length++;
        }
      }
      if (length == 1) {
        Database p = partitions.get(i);
        units.add(p);
        windows.add(new int[] {0, (int) p.documentCount()});
        runs.add(null);
        i++;
        continue;
      }
      PartitionGroup g = at.group;
      int[] starts = new int[length + 1];
      for (int k = 0; k <= length; k++) {
        starts[k] = g.start(at.index + k);
      }
      units.add(g.database());
      windows.add(new int[] {starts[0], starts[length]});
      runs.add(new Run(starts, partitions.subList(i, i + length).toArray(new Database[0])));
      partial |= starts[0] != 0 || starts[length] != g.database().documentCount();
      i += length;
    }
    int[] from = null;
    int[] to = null;
    if (partial) {
      from = new int[units.size()];
      to = new int[units.size()];
      for (int u = 0; u < from.length; u++) {
        from[u] = windows.get(u)[0];
        to[u] = windows.get(u)[1];
      }
    }
    return new GroupLayout(
        units.toArray(new Database[0]),
        from,
        to,
        runs.toArray(new Run[0]),
        List.copyOf(groups),
        members);
  }

  private static boolean sameGroups(List<PartitionGroup> a, List<PartitionGroup> b) {
    if (a == null || a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (a.get(i) != b.get(i)) {
        return false;
      }
    }
    return true;
  }

  /** True when some unit is a group's database. */
  boolean grouped() {
    for (Run r : runs) {
      if (r != null) {
        return true;
      }
    }
    return false;
  }

  /** A partition's place in a group. */
  private record Member(PartitionGroup group, int index) {}

  /**
   * The partitions of one group window: partition {@code k} holds the group's documents {@code
   * [starts[k], starts[k + 1])}.
   */
  static final class Run {
    final int[] starts;
    final Database[] partitions;

    Run(int[] starts, Database[] partitions) {
      this.starts = starts;
      this.partitions = partitions;
    }

    /** Hands group document {@code doc} to {@code processor} as its partition's own document. */
    boolean process(int doc, DocumentProcessor processor) {
      int lo = 0;
      int hi = partitions.length - 1;
      while (lo < hi) {
        int mid = (lo + hi + 1) >>> 1;
        if (starts[mid] <= doc) {
          lo = mid;
        } else {
          hi = mid - 1;
        }
      }
      return processor.process(doc - starts[lo], partitions[lo]);
    }
  }
}
