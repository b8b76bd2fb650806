package dev.mosaic.searcher;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.Schema;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds the next {@link Generation} of {@link Generations} from the store's serving files of a
 * schema version: reuses every partition already mapped, maps the others into shared arenas
 * (grouping the partitions one reopen maps, and filling the arena of a reopen moments ago), and
 * composes the partitions' databases, with the background groups when grouping is on. Swapping the
 * generation in is left to {@link Generations}.
 *
 * <p>Thread safety: not thread safe; called only under the generations' books lock (on the
 * maintenance thread). NOTE: a failed build closes the arenas it opened and forgets what it mapped,
 * so the current generation keeps serving untouched.
 */
final class GenerationBuilder {
  // logs under the generations' name: building is the generations' story
  private static final Logger LOG = LoggerFactory.getLogger(Generations.class);

  private final PartitionStore store;
  private final PartitionMappings mappings;

  /** Null unless grouping is on. */
  private final BackgroundGrouping grouping;

  private final Clock clock;
  private final Generations owner;
  private final int arenaGroupSize;
  private final int bulkReopenPartitions;
  private final long arenaFillWindowNanos;
  // the arena the last reopens mapped into, which the next ones may fill up (books lock)
  private SharedArena filling;
  private long fillingSince;
  private long nextGenerationId = 1;

  GenerationBuilder(
      PartitionStore store,
      PartitionMappings mappings,
      BackgroundGrouping grouping,
      Clock clock,
      Generations owner,
      int arenaGroupSize,
      int bulkReopenPartitions,
      long arenaFillWindowNanos) {
    this.store = store;
    this.mappings = mappings;
    this.grouping = grouping;
    this.clock = clock;
    this.owner = owner;
    this.arenaGroupSize = arenaGroupSize;
    this.bulkReopenPartitions = bulkReopenPartitions;
    this.arenaFillWindowNanos = arenaFillWindowNanos;
  }

  /**
   * A generation built and counted as used by each of its partitions, and how many of them it
   * mapped newly.
   */
  record Built(Generation generation, int newlyMapped) {}

  /**
   * Builds the generation that should follow {@code cur} (null when none) serving schema version
   * {@code sv}.
   *
   * @return the new generation, or null when {@code cur} should keep serving (nothing changed, or
   *     nothing to serve)
   */
  Built build(Generation cur, int sv) {
    StoredFile[] want = store.servingArray(sv);
    int wanted = 0;
    StoredFile first = null;
    for (StoredFile f : want) {
      if (f != null) {
        wanted++;
        first = first == null ? f : first;
      }
    }
    if (wanted == 0) {
      if (cur != null) {
        LOG.warn(
            "the store holds no partition of schema version {}; generation {} keeps serving",
            sv,
            cur.id());
      }
      return null;
    }
    boolean newGroups = grouping != null && cur != null && grouping.hasNewGroups(cur.database());
    if (cur != null && cur.servedFrom() == want && !newGroups) {
      return null; // the store has not changed since this generation was built
    }
    Schema schema =
        cur != null && cur.database().schema().version() == sv
            ? cur.database().schema()
            : first.schema();
    int[] nextIds = new int[wanted];
    MappedPartition[] next = new MappedPartition[wanted];
    int n = 0;
    int c = 0; // walks the current generation's partitions beside want's (both ascending)
    List<MappedPartition> fresh = new ArrayList<>();
    int group = groupSizeFor(want);
    SharedArena arena = null;
    List<SharedArena> arenas = new ArrayList<>();
    try {
      for (int p = 0; p < want.length; p++) {
        StoredFile f = want[p];
        if (f == null) {
          continue;
        }
        MappedPartition old = null;
        if (cur != null) {
          while (c < cur.partitionCount() && cur.partitionAt(c) < p) {
            c++;
          }
          if (c < cur.partitionCount() && cur.partitionAt(c) == p) {
            old = cur.mappedAt(c);
          }
        }
        MappedPartition reuse =
            old != null && old.file().id().equals(f.id()) ? old : mappings.mapped(f.id());
        if (reuse != null) {
          nextIds[n] = p;
          next[n++] = reuse;
          continue;
        }
        if (!f.schema().equals(schema)) {
          LOG.error(
              "{} has schema {} but generation schema is {}; keeping the previous version of partition {}",
              f.id(),
              f.schema(),
              schema,
              p);
          if (old != null) {
            nextIds[n] = p;
            next[n++] = old;
          }
          continue;
        }
        if (arena == null || arena.fileCount() >= group) {
          long now = System.nanoTime();
          if (arena == null
              && group > 1
              && filling != null
              && filling.accepts(group)
              && now - fillingSince < arenaFillWindowNanos) {
            arena = filling; // still filling from a reopen moments ago
          } else {
            arena = mappings.openArena();
            arenas.add(arena);
            fillingSince = now;
          }
          filling = group > 1 ? arena : null;
        }
        MappedPartition m = mappings.map(f, arena);
        if (m == null) {
          if (old != null) {
            nextIds[n] = p;
            next[n++] = old;
          }
          continue;
        }
        fresh.add(m);
        nextIds[n] = p;
        next[n++] = m;
      }
    } catch (RuntimeException e) {
      // undo what this attempt mapped; an arena filled since an earlier reopen keeps its older
      // files (and closes when they retire)
      filling = null;
      for (MappedPartition m : fresh) {
        mappings.forget(m.file().id());
        if (!arenas.contains(m.arena()) && m.arena().retired()) {
          mappings.closeArena(m.arena());
        }
      }
      for (SharedArena a : arenas) {
        mappings.closeArena(a);
      }
      throw e;
    }
    for (SharedArena a : arenas) {
      if (a.empty()) {
        mappings.closeArena(a);
      }
    }
    if (n == 0) {
      return null;
    }
    if (fresh.isEmpty() && !newGroups && cur != null && sameAs(cur, nextIds, next, n)) {
      return null; // the store changed, but not what is served (a pruned version, a pin kept)
    }
    if (n < next.length) {
      nextIds = Arrays.copyOf(nextIds, n);
      next = Arrays.copyOf(next, n);
    }
    Database[] partitionDatabases = new Database[n];
    for (int i = 0; i < n; i++) {
      partitionDatabases[i] = next[i].database();
    }
    List<Database> databases = Arrays.asList(partitionDatabases);
    // the successor reuses the dictionaries derived from the unchanged partitions
    CompositeDatabase composite =
        grouping != null
            ? grouping.compose(cur == null ? null : cur.database(), schema, databases)
            : cur != null && cur.database().schema().equals(schema)
                ? cur.database().withPartitions(databases)
                : CompositeDatabase.of(schema, databases);
    Generation g =
        new Generation(nextGenerationId++, composite, nextIds, next, want, clock.instant(), owner);
    for (MappedPartition m : next) {
      m.incGenerations();
    }
    return new Built(g, fresh.size());
  }

  /**
   * Partitions per arena for this reopen: {@link #arenaGroupSize} when it maps at least {@link
   * #bulkReopenPartitions} partitions (a full feed cycle, start-up, catch-up: the group's members
   * are then likely to retire together), else one, so that a reopen replacing a few partitions
   * never keeps retired neighbours mapped.
   */
  private int groupSizeFor(StoredFile[] want) {
    int unmapped = 0;
    for (StoredFile f : want) {
      if (f != null && !mappings.isMapped(f.id()) && ++unmapped >= bulkReopenPartitions) {
        return arenaGroupSize;
      }
    }
    return 1;
  }

  private static boolean sameAs(Generation have, int[] ids, MappedPartition[] mapped, int n) {
    if (have.partitionCount() != n) {
      return false;
    }
    for (int i = 0; i < n; i++) {
      if (have.partitionAt(i) != ids[i] || have.mappedAt(i) != mapped[i]) {
        return false;
      }
    }
    return true;
  }
}
