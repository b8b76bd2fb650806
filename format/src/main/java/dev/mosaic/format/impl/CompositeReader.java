package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.BIG_INT;
import static dev.mosaic.format.impl.FileFormat.BIG_LONG;

import dev.mosaic.format.Aggregation;
import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.DocumentProcessor;
import dev.mosaic.format.Hit;
import dev.mosaic.format.HitProcessor;
import dev.mosaic.format.Page;
import dev.mosaic.format.PartitionGroup;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Query;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs queries over many partitions. The query is compiled once (fields resolved, values encoded);
 * each partition then evaluates it lazily, so a partition whose condition cannot match (an {@code
 * eq} value absent from its value set, say) is dropped after a binary search, without allocating.
 * Counts sum. Unordered queries walk partitions in order, skipping whole partitions by their count.
 * Ordered queries take each partition's first {@code skip + limit} documents and merge them with a
 * heap, comparing sort values as bytes, ties broken by partition order then document id; documents
 * are emitted as the merge proceeds.
 *
 * <p>Thread safety: immutable; safe for concurrent queries. NOTE: does not own its partitions.
 * Every partition (and group) is read directly: it must be a database the format opened ({@link
 * Database#open}, {@link Database#map} or {@link Database#fromBytes}); others are refused.
 */
public final class CompositeReader implements CompositeDatabase {
  private final Schema schema;
  private final List<Database> partitions;
  private final List<PartitionGroup> groups;
  private final GroupLayout layout;

  /** The databases queried, in partition order (see {@link GroupLayout}). */
  private final Database[] units;

  /** Per unit: its window of documents, null when every unit is whole (see {@link GroupLayout}). */
  private final int[] windowFrom;

  private final int[] windowTo;

  /** Per unit: the unit, read directly. */
  private final PartitionSearcher[] searchers;

  private final long documentCount;
  private final long dictionaryBudgetBytes;

  /** Null when the budget is zero. */
  private final CompositeDictionary dictionary;

  /** The distinct lifetimes of the partitions' memory (one per arena). */
  private final MemorySegment.Scope[] scopes;

  /** {@link DatabaseReader#CLOSES} when every partition was last seen open. */
  private volatile long openCheckedAt = -1;

  private static DatabaseReader[] readersOf(PartitionSearcher[] searchers) {
    DatabaseReader[] readers = new DatabaseReader[searchers.length];
    for (int i = 0; i < searchers.length; i++) {
      readers[i] = searchers[i].reader();
    }
    return readers;
  }

  public CompositeReader(Schema schema, List<? extends Database> partitions) {
    this(schema, partitions, CompositeDictionary.DEFAULT_BUDGET_BYTES);
  }

  /**
   * A composite whose value dictionaries (see {@link CompositeDictionary}) may take up to {@code
   * dictionaryBudgetBytes} of heap; 0 disables them.
   */
  CompositeReader(Schema schema, List<? extends Database> partitions, long dictionaryBudgetBytes) {
    this(schema, partitions, List.of(), dictionaryBudgetBytes, null);
  }

  /**
   * A composite over {@code partitions} that queries runs of them through {@code groups} (see
   * {@link GroupLayout}), with the default dictionary budget.
   */
  public static CompositeReader grouped(
      Schema schema, List<? extends Database> partitions, List<PartitionGroup> groups) {
    return new CompositeReader(
        schema, partitions, groups, CompositeDictionary.DEFAULT_BUDGET_BYTES, null);
  }

  /**
   * A composite whose dictionaries are inherited from {@code predecessor}'s (when not null and both
   * have them), see {@link CompositeDictionary#successor}.
   */
  private CompositeReader(
      Schema schema,
      List<? extends Database> partitions,
      List<PartitionGroup> groups,
      long dictionaryBudgetBytes,
      CompositeReader predecessor) {
    this.schema = java.util.Objects.requireNonNull(schema, "schema");
    this.partitions = List.copyOf(partitions);
    this.groups = List.copyOf(groups);
    this.layout =
        this.groups.isEmpty()
            ? GroupLayout.ungrouped(this.partitions)
            : GroupLayout.of(this.partitions, this.groups);
    this.units = layout.units;
    this.windowFrom = layout.windowFrom;
    this.windowTo = layout.windowTo;
    this.searchers = new PartitionSearcher[units.length];
    this.dictionaryBudgetBytes = dictionaryBudgetBytes;
    for (int i = 0; i < this.partitions.size(); i++) {
      Database d = this.partitions.get(i);
      if (d.schema() != schema && !d.schema().equals(schema)) {
        throw new IllegalArgumentException(
            "partition " + i + " (" + d + ") has schema " + d.schema() + ", expected " + schema);
      }
    }
    long n = 0;
    for (int i = 0; i < searchers.length; i++) {
      Database d = units[i];
      if (d.schema() != schema && !d.schema().equals(schema)) {
        throw new IllegalArgumentException(
            "group database " + d + " has schema " + d.schema() + ", expected " + schema);
      }
      searchers[i] = PartitionSearcher.of(d);
      n += windowFrom == null ? d.documentCount() : windowTo[i] - windowFrom[i];
    }
    this.documentCount = n;
    java.util.Set<MemorySegment.Scope> distinct =
        java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (PartitionSearcher r : searchers) {
      distinct.add(r.reader().scope());
    }
    this.scopes = distinct.toArray(new MemorySegment.Scope[0]);
    if (dictionaryBudgetBytes <= 0) {
      // NOTE: with a partial window the dictionaries' whole-database totals are not used
      this.dictionary = null;
    } else if (predecessor != null && predecessor.dictionary != null) {
      this.dictionary =
          predecessor.dictionary.successor(readersOf(searchers), dictionaryBudgetBytes);
    } else {
      this.dictionary =
          new CompositeDictionary(
              readersOf(searchers), schema.fields().size(), dictionaryBudgetBytes);
    }
  }

  @Override
  public CompositeDatabase withPartitions(List<? extends Database> partitions) {
    return new CompositeReader(schema, partitions, groups, dictionaryBudgetBytes, this);
  }

  @Override
  public CompositeDatabase withPartitions(
      List<? extends Database> partitions, List<PartitionGroup> groups) {
    return new CompositeReader(schema, partitions, groups, dictionaryBudgetBytes, this);
  }

  @Override
  public List<PartitionGroup> groups() {
    return groups;
  }

  /** Number of databases a query visits (groups' windows and partitions queried as themselves). */
  int units() {
    return units.length;
  }

  /**
   * The matches of unit {@code unit}, restricted to its window when it has a partial one (a fresh
   * bit set then).
   */
  private Matches evaluate(int unit, Plan.Node node, int[] resolved) {
    Matches m = searchers[unit].evaluate(node, resolved);
    return windowFrom == null ? m : window(unit, m);
  }

  private Matches window(int unit, Matches m) {
    int from = windowFrom[unit];
    int to = windowTo[unit];
    PartitionSearcher r = searchers[unit];
    if (m.kind == Matches.NONE || (from == 0 && to == r.documents())) {
      return m;
    }
    long[] bits = m.kind == Matches.BITS ? m.bits : r.materialize(m);
    java.util.Arrays.fill(bits, 0, from >>> 6, 0L);
    if ((from & 63) != 0) {
      bits[from >>> 6] &= -1L << from;
    }
    if (to >>> 6 < bits.length) {
      bits[to >>> 6] &= (1L << to) - 1;
      java.util.Arrays.fill(bits, (to >>> 6) + 1, bits.length, 0L);
    }
    return Matches.bits(bits);
  }

  /** Unit {@code unit}'s count of {@code node}'s matches. */
  private long count(int unit, Plan.Node node, int[] resolved) {
    PartitionSearcher r = searchers[unit];
    return windowFrom == null ? r.count(node, resolved) : r.count(evaluate(unit, node, resolved));
  }

  /** {@code processor} as unit {@code unit}'s documents must reach it (as their partition's). */
  private DocumentProcessor processorOf(int unit, DocumentProcessor processor) {
    GroupLayout.Run run = layout.runs[unit];
    return run == null ? processor : (doc, db) -> run.process(doc, processor);
  }

  /** Hands unit {@code unit}'s document to {@code processor} as its partition's document. */
  private boolean emit(int unit, int doc, Database listed, DocumentProcessor processor) {
    GroupLayout.Run run = layout.runs[unit];
    return run == null ? processor.process(doc, listed) : run.process(doc, processor);
  }

  /** Field dictionaries this composite derived by patching its predecessor's, 0 when none. */
  int dictionaryPatches() {
    return dictionary == null ? 0 : dictionary.patchedFields();
  }

  /** Heap bytes of the value dictionaries built so far (an estimate), 0 when none. */
  long dictionaryHeapBytes() {
    return dictionary == null ? 0 : dictionary.heapBytes();
  }

  /**
   * Throws when a partition is closed or its memory unmapped. Looks at the partitions themselves
   * only when some reader was closed since they were last all seen open.
   */
  private void ensurePartitionsOpen() {
    for (MemorySegment.Scope scope : scopes) {
      if (!scope.isAlive()) {
        throw new IllegalStateException("a partition's memory is unmapped: its arena is closed");
      }
    }
    long closes = DatabaseReader.CLOSES.get();
    if (closes == openCheckedAt) {
      return;
    }
    for (PartitionSearcher r : searchers) {
      r.ensureOpen();
    }
    openCheckedAt = closes;
  }

  /** The partitions that can match {@code node}, with its leaves' ranks resolved per partition. */
  private CompositeDictionary.Walk walk(Plan.Node node) {
    return dictionary != null
        ? dictionary.walk(node)
        : CompositeDictionary.walkAll(node, searchers.length);
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public List<Database> partitions() {
    return partitions;
  }

  @Override
  public long documentCount() {
    return documentCount;
  }

  @Override
  public String toString() {
    return "CompositeDatabase{"
        + partitions.size()
        + " partitions"
        + (groups.isEmpty() ? "" : " in " + units.length + " units")
        + ", "
        + documentCount
        + " documents}";
  }

  @Override
  public dev.mosaic.format.CompiledQuery compile(
      Query query,
      List<dev.mosaic.format.query.Facet> facets,
      List<dev.mosaic.format.query.Stats> stats) {
    return Plan.compile(schema, query, facets, stats);
  }

  @Override
  public long count(dev.mosaic.format.CompiledQuery query) {
    return count(Plan.of(query, schema));
  }

  private long count(Plan plan) {
    Plan.Node node = plan.condition;
    long total = 0;
    if (dictionary != null) {
      ensurePartitionsOpen();
      long known = windowFrom == null ? dictionary.count(node) : -1;
      if (known >= 0) {
        return known;
      }
      CompositeDictionary.Walk walk = dictionary.walk(node);
      for (int i = walk.next(); i >= 0; i = walk.next()) {
        PartitionSearcher r = searchers[i];
        r.ensureOpen();
        total += count(i, node, walk.resolved);
      }
      return total;
    }
    for (int i = 0; i < searchers.length; i++) {
      searchers[i].ensureOpen();
      total += count(i, node, null);
    }
    return total;
  }

  @Override
  public dev.mosaic.format.Explanation explain(dev.mosaic.format.CompiledQuery query) {
    Plan plan = Plan.of(query, schema);
    if (windowFrom != null) {
      return explainWhole(plan); // no per-unit trace of a partial window
    }
    long start = System.nanoTime();
    List<dev.mosaic.format.Explanation> children = new java.util.ArrayList<>();
    long total = 0;
    for (int i = 0; i < searchers.length; i++) {
      searchers[i].ensureOpen();
      dev.mosaic.format.Explanation e =
          searchers[i].explain(
              plan, "partition " + i + " (" + searchers[i].reader().source() + ")");
      total += e.children().get(0).matches();
      children.add(e);
    }
    long partitionsDone = System.nanoTime();
    long emitted = countEmitted(plan);
    long end = System.nanoTime();
    children.add(
        new dev.mosaic.format.Explanation(
            "merge partitions (skip=" + plan.skip + ", limit=" + plan.limit + ")",
            emitted,
            end - partitionsDone,
            List.of()));
    return new dev.mosaic.format.Explanation(
        "composite of " + searchers.length + " partitions; condition matches " + total,
        emitted,
        end - start,
        children);
  }

  /** The trace of a query as two steps: the whole count, then the whole execution. */
  private dev.mosaic.format.Explanation explainWhole(Plan plan) {
    long start = System.nanoTime();
    long count = count(plan);
    long counted = System.nanoTime();
    long emitted = countEmitted(plan);
    long end = System.nanoTime();
    return new dev.mosaic.format.Explanation(
        "query " + plan.query,
        emitted,
        end - start,
        List.of(
            new dev.mosaic.format.Explanation(
                "count " + plan.query.condition(), count, counted - start, List.of()),
            new dev.mosaic.format.Explanation("execute", emitted, end - counted, List.of())));
  }

  /** Runs the plan, returning the number of documents it emits. */
  private long countEmitted(Plan plan) {
    long[] emitted = {0};
    execute(
        plan,
        (doc, db) -> {
          emitted[0]++;
          return true;
        });
    return emitted[0];
  }

  @Override
  public dev.mosaic.format.Aggregation aggregate(dev.mosaic.format.CompiledQuery query) {
    Plan plan = Plan.of(query, schema);
    Aggregator aggregator = new Aggregator(schema, plan);
    if (dictionary != null) {
      // only the partitions that can match, their leaves resolved without a per-partition search
      ensurePartitionsOpen();
      aggregator.useDictionaries(dictionary);
      CompositeDictionary.Walk walk = dictionary.walk(aggregator.condition());
      for (int i = walk.next(); i >= 0; i = walk.next()) {
        if (windowFrom == null) {
          aggregator.add(searchers[i], walk.resolved, i);
        } else {
          searchers[i].ensureOpen();
          aggregator.add(searchers[i], evaluate(i, aggregator.condition(), walk.resolved), i);
        }
      }
      return aggregator.result();
    }
    for (int i = 0; i < searchers.length; i++) {
      if (windowFrom == null) {
        aggregator.add(searchers[i]);
      } else {
        searchers[i].ensureOpen();
        aggregator.addMatches(searchers[i], evaluate(i, aggregator.condition(), null));
      }
    }
    return aggregator.result();
  }

  // ----- parallel -----------------------------------------------------------------------------

  /** Upper bound of tasks a parallel query is split into (contiguous ranges of partitions). */
  private static final int MAX_TASKS = 64;

  /**
   * Runs {@code work} for every partition index on the executor, in at most {@link #MAX_TASKS}
   * contiguous ranges, and returns the results by partition index. Exceptions are rethrown on the
   * calling thread.
   */
  private <T> List<T> perPartition(
      java.util.concurrent.Executor executor, java.util.function.IntFunction<T> work) {
    int n = searchers.length;
    Object[] results = new Object[n];
    int tasks = Math.min(n, MAX_TASKS);
    List<java.util.concurrent.CompletableFuture<Void>> futures = new ArrayList<>(tasks);
    for (int t = 0; t < tasks; t++) {
      int from = (int) ((long) n * t / tasks);
      int to = (int) ((long) n * (t + 1) / tasks);
      futures.add(
          java.util.concurrent.CompletableFuture.runAsync(
              () -> {
                for (int i = from; i < to; i++) {
                  results[i] = work.apply(i);
                }
              },
              executor));
    }
    try {
      java.util.concurrent.CompletableFuture.allOf(
              futures.toArray(new java.util.concurrent.CompletableFuture<?>[0]))
          .join();
    } catch (java.util.concurrent.CompletionException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      if (e.getCause() instanceof Error err) {
        throw err;
      }
      throw e;
    }
    @SuppressWarnings("unchecked")
    List<T> list = (List<T>) java.util.Arrays.asList(results);
    return list;
  }

  @Override
  public long count(Query query, java.util.concurrent.Executor executor) {
    Plan.Node node = Plan.compile(schema, Query.where(query.condition())).condition;
    long total = 0;
    for (long c :
        perPartition(
            executor,
            i -> {
              searchers[i].ensureOpen();
              return count(i, node, null);
            })) {
      total += c;
    }
    return total;
  }

  @Override
  public void execute(
      Query query, DocumentProcessor processor, java.util.concurrent.Executor executor) {
    Plan plan = Plan.compile(schema, query);
    if (plan.limit == 0) {
      return;
    }
    if (plan.ordered()) {
      int k = plan.wanted();
      List<Cursor> cursors = new ArrayList<>();
      for (Cursor c : perPartition(executor, i -> cursor(i, plan, k))) {
        if (c != null) {
          cursors.add(c);
        }
      }
      mergeCursors(cursors, plan, processor);
      return;
    }
    // Unordered: evaluate and count every partition in parallel, then emit in partition order on
    // the calling thread.
    List<Matches> matches =
        perPartition(
            executor,
            i -> {
              searchers[i].ensureOpen();
              return evaluate(i, plan.condition, null);
            });
    long skip = plan.skip;
    long limit = plan.limit;
    for (int i = 0; i < searchers.length && limit > 0; i++) {
      PartitionSearcher r = searchers[i];
      Matches m = matches.get(i);
      if (m.kind == Matches.NONE) {
        continue;
      }
      if (skip > 0) {
        long c = r.count(m);
        if (skip >= c) {
          skip -= c;
          continue;
        }
      }
      long emitted = r.emitInDocumentOrder(m, skip, limit, processorOf(i, processor));
      if (emitted == PartitionSearcher.STOPPED) {
        return;
      }
      limit -= emitted;
      skip = 0;
    }
  }

  /**
   * The index of each listed partition object (the first listing when one is listed twice), built
   * on first use; immutable once published.
   */
  private volatile java.util.Map<Database, Integer> indexes;

  /** The index of each listed partition object (its first listing). */
  private java.util.Map<Database, Integer> partitionIndexes() {
    java.util.Map<Database, Integer> byDatabase = indexes;
    if (byDatabase == null) {
      java.util.Map<Database, Integer> map = new java.util.IdentityHashMap<>();
      for (int i = 0; i < partitions.size(); i++) {
        map.putIfAbsent(partitions.get(i), i);
      }
      indexes = byDatabase = java.util.Collections.unmodifiableMap(map);
    }
    return byDatabase;
  }

  @Override
  public void execute(dev.mosaic.format.CompiledQuery query, HitProcessor processor) {
    java.util.Map<Database, Integer> index = partitionIndexes();
    execute(Plan.of(query, schema), (doc, db) -> processor.process(index.get(db), doc, db));
  }

  /**
   * One evaluation of the condition per partition feeds the total, the aggregation and the page:
   * for an ordered query each partition's first {@code skip + limit} matches in order are merged;
   * otherwise matches are taken in partition order. Partitions that are not read directly are
   * counted, aggregated and paged through their public methods.
   */
  @Override
  public Page page(dev.mosaic.format.CompiledQuery query) {
    Plan plan = Plan.of(query, schema);
    if (plan.aggregation.isEmpty()) {
      // Nothing to aggregate: the total comes from the value dictionaries where they answer it,
      // and an ordered page skips the partitions that cannot beat the current k-th document;
      // evaluating every partition once for both would cost more than the two paths together.
      Page evaluatedOnce = orderedPageEvaluatedOnce(plan);
      if (evaluatedOnce != null) {
        return evaluatedOnce;
      }
      long total = count(plan);
      List<Hit> hits = new ArrayList<>();
      if (plan.limit > 0 && total > plan.skip) {
        java.util.Map<Database, Integer> index = partitionIndexes();
        execute(
            plan,
            (doc, db) -> {
              hits.add(new Hit(index.get(db), doc, db));
              return true;
            });
      }
      return new Page(total, hits, new Aggregation(total, List.of(), List.of()));
    }
    Aggregator aggregator = new Aggregator(schema, plan);
    Plan.Node condition = aggregator.condition();
    List<Hit> hits = new ArrayList<>();
    List<Cursor> cursors = new ArrayList<>();
    int k = plan.wanted();
    long skip = plan.skip;
    long limit = plan.limit;
    ensurePartitionsOpen();
    if (dictionary != null) {
      aggregator.useDictionaries(dictionary);
    }
    java.util.Map<Database, Integer> index = partitionIndexes();
    // documents reach it as their partition's (a group window's are mapped back by processorOf)
    DocumentProcessor collect =
        (doc, db) -> {
          hits.add(new Hit(index.get(db), doc, db));
          return true;
        };
    CompositeDictionary.Walk walk = walk(condition);
    for (int i = walk.next(); i >= 0; i = walk.next()) {
      PartitionSearcher r = searchers[i];
      r.ensureOpen();
      Matches m = evaluate(i, condition, walk.resolved);
      long c = aggregator.add(r, m, i);
      if (c == 0 || plan.limit == 0) {
        continue;
      }
      if (plan.ordered()) {
        int[] docs = Ordering.top(r, m, plan.orderFields, plan.descending, k);
        if (docs.length > 0) {
          cursors.add(new Cursor(i, r, docs, plan.orderFields));
        }
      } else if (limit > 0) {
        if (skip >= c) {
          skip -= c;
          continue;
        }
        limit -= r.emitInDocumentOrder(m, skip, limit, processorOf(i, collect));
        skip = 0;
      }
    }
    if (!cursors.isEmpty()) {
      mergeCursors(cursors, plan, (unit, doc, db) -> emit(unit, doc, db, collect));
    }
    Aggregation aggregation = aggregator.result();
    return new Page(aggregation.count(), hits, aggregation);
  }

  /**
   * The page of an ordered query without aggregations whose total the value dictionaries cannot
   * give (a range filter, say): each partition is evaluated once, and its matches serve both the
   * total and the bounded top, instead of a count over every partition followed by a second
   * evaluation of the partitions that may enter the top. Null when the query is not such a query
   * (unordered, no page, a large page, a total the dictionaries know, or a partition not read
   * directly): the caller then takes the general path.
   */
  private Page orderedPageEvaluatedOnce(Plan plan) {
    if (!plan.ordered() || plan.limit == 0 || plan.wanted() > BOUNDED_TOP) {
      return null;
    }
    ensurePartitionsOpen();
    if (dictionary != null && windowFrom == null && dictionary.count(plan.condition) >= 0) {
      return null; // a known total costs nothing: only the top needs evaluations
    }
    Matches[] evaluated = new Matches[searchers.length];
    long total = 0;
    CompositeDictionary.Walk walk = walk(plan.condition);
    for (int i = walk.next(); i >= 0; i = walk.next()) {
      PartitionSearcher r = searchers[i];
      r.ensureOpen();
      Matches m = evaluate(i, plan.condition, walk.resolved);
      if (m.kind == Matches.NONE) {
        continue;
      }
      long c = r.count(m);
      if (c > 0) {
        total += c;
        evaluated[i] = m;
      }
    }
    java.util.Map<Database, Integer> index = partitionIndexes();
    List<Hit> hits = new ArrayList<>();
    if (total > plan.skip) {
      boundedTop(
          plan,
          evaluated,
          (doc, db) -> {
            hits.add(new Hit(index.get(db), doc, db));
            return true;
          });
    }
    return new Page(total, hits, new Aggregation(total, List.of(), List.of()));
  }

  @Override
  public void execute(dev.mosaic.format.CompiledQuery query, DocumentProcessor processor) {
    execute(Plan.of(query, schema), processor);
  }

  private void execute(Plan plan, DocumentProcessor processor) {
    if (plan.limit == 0) {
      return;
    }
    if (plan.ordered()) {
      merge(plan, processor);
    } else {
      inPartitionOrder(plan, processor);
    }
  }

  private void inPartitionOrder(Plan plan, DocumentProcessor processor) {
    long skip = plan.skip;
    long limit = plan.limit;
    ensurePartitionsOpen();
    CompositeDictionary.Walk walk = walk(plan.condition);
    for (int i = walk.next(); i >= 0 && limit > 0; i = walk.next()) {
      PartitionSearcher r = searchers[i];
      r.ensureOpen();
      Matches m = evaluate(i, plan.condition, walk.resolved);
      if (m.kind == Matches.NONE) {
        continue;
      }
      if (skip > 0) {
        long c = r.count(m);
        if (skip >= c) {
          skip -= c;
          continue;
        }
      }
      long emitted = r.emitInDocumentOrder(m, skip, limit, processorOf(i, processor));
      if (emitted == PartitionSearcher.STOPPED) {
        return;
      }
      limit -= emitted;
      skip = 0;
    }
  }

  /** Largest skip + limit answered with a bounded global heap rather than a k-way merge. */
  private static final int BOUNDED_TOP = 4096;

  /**
   * Ordered query with a small {@code skip + limit}: keeps the best {@code k} documents seen so far
   * in a bounded max-heap; each partition's sorted candidates enter only while they beat the
   * current k-th, so once the heap is warm most partitions cost one comparison.
   */
  private void boundedTop(Plan plan, DocumentProcessor processor) {
    boundedTop(plan, null, processor);
  }

  /**
   * {@link #boundedTop(Plan, DocumentProcessor)} over matches already evaluated per unit ({@code
   * evaluated[i]}, null where a unit has none) when {@code evaluated} is not null: no partition is
   * evaluated again, and only the units holding matches are visited.
   */
  private void boundedTop(Plan plan, Matches[] evaluated, DocumentProcessor processor) {
    int k = plan.wanted();
    boolean[] desc = plan.descending;
    Entry[] heap = new Entry[k];
    int size = 0;
    Threshold threshold = null;
    Cursor probe = null; // one partition's best document against the k-th kept, reused
    ensurePartitionsOpen();
    CompositeDictionary.Walk walk = evaluated == null ? walk(plan.condition) : null;
    for (int i = evaluated == null ? walk.next() : nextEvaluated(evaluated, 0);
        i >= 0;
        i = evaluated == null ? walk.next() : nextEvaluated(evaluated, i + 1)) {
      Cursor c;
      PartitionSearcher r = searchers[i];
      if (size == k) {
        // Full heap: look at this partition's best document before sorting its candidates.
        r.ensureOpen();
        if (threshold == null || threshold.worst != heap[0]) {
          threshold = new Threshold(heap[0], plan, schema);
        }
        FieldReader sort = r.field(plan.orderFields[0]);
        boolean descending = desc[0];
        int bound =
            descending
                ? sort.lowerBound(threshold.key, true)
                : sort.upperBound(threshold.key, true);
        if (descending ? bound >= sort.valueCount : bound <= 0) {
          continue; // no value of the first key here is as good as the k-th kept one
        }
        Matches m =
            evaluated != null ? evaluated[i] : evaluate(i, threshold.bounded, walk.resolved);
        if (m.kind == Matches.NONE) {
          continue;
        }
        int[] best = Ordering.top(r, m, plan.orderFields, desc, 1);
        if (best.length == 0) {
          continue;
        }
        if (probe == null) {
          probe = new Cursor(i, r, best, plan.orderFields);
        } else {
          probe.retarget(i, r, best);
        }
        probe.load();
        if (!before(probe, best[0], heap[0], desc)) {
          continue;
        }
        c = new Cursor(i, r, Ordering.top(r, m, plan.orderFields, desc, k), plan.orderFields);
      } else if (evaluated != null) {
        r.ensureOpen();
        int[] docs = Ordering.top(r, evaluated[i], plan.orderFields, desc, k);
        c = docs.length == 0 ? null : new Cursor(i, r, docs, plan.orderFields);
      } else {
        c = cursor(i, plan, k, walk.resolved);
      }
      if (c == null) {
        continue;
      }
      for (; c.position < c.docs.length; c.position++) {
        c.load();
        if (size == k && !before(c, c.docs[c.position], heap[0], desc)) {
          break; // this partition's remaining documents are no better
        }
        Entry e = new Entry(c, c.docs[c.position]);
        if (size < k) {
          heap[size] = e;
          siftUp(heap, size++, desc);
        } else {
          heap[0] = e;
          siftDownEntries(heap, 0, size, desc);
        }
      }
    }
    Entry[] sorted = java.util.Arrays.copyOf(heap, size);
    java.util.Arrays.sort(sorted, (a, b) -> before(a, b, desc) ? -1 : before(b, a, desc) ? 1 : 0);
    for (int i = plan.skip; i < size; i++) {
      Entry e = sorted[i];
      if (!emit(e.cursor.partition, e.doc, e.cursor.reader.database(), processor)) {
        return;
      }
    }
  }

  /** The first unit at or after {@code from} with evaluated matches, or -1. */
  private static int nextEvaluated(Matches[] evaluated, int from) {
    for (int i = from; i < evaluated.length; i++) {
      if (evaluated[i] != null) {
        return i;
      }
    }
    return -1;
  }

  /**
   * The first sort key of the worst kept document, as a key and as the query's condition narrowed
   * to documents at least as good on that key: documents strictly worse cannot enter the top, so a
   * partition is evaluated only over the values that can (a range leaf, evaluated first, that drops
   * a partition after one search of its sort value set when none can).
   */
  private static final class Threshold {
    final Entry worst;
    final Key key;
    final Plan.Node bounded;

    Threshold(Entry worst, Plan plan, Schema schema) {
      this.worst = worst;
      Cursor c = worst.cursor;
      this.key = Key.of(c.fields[0].valueBytes(worst.ranks[0]));
      int field = plan.orderFields[0];
      if (!schema.fields().get(field).role().isFilterable()) {
        this.bounded = plan.condition; // no postings to narrow by: the range check alone
        return;
      }
      Plan.Node range =
          plan.descending[0]
              ? new Plan.Range(field, key, true, null, false)
              : new Plan.Range(field, null, false, key, true);
      Plan.Node[] children;
      if (plan.condition instanceof Plan.And and) {
        children = new Plan.Node[and.children().length + 1];
        System.arraycopy(and.children(), 0, children, 1, and.children().length);
      } else {
        children = new Plan.Node[2];
        children[1] = plan.condition;
      }
      children[0] = range;
      this.bounded = new Plan.And(children);
    }
  }

  /** A partition's ordered candidates, or null when it has none. */
  private Cursor cursor(int i, Plan plan, int k) {
    return cursor(i, plan, k, null);
  }

  /** {@link #cursor(int, Plan, int)} with leaf ranks resolved (or null). */
  private Cursor cursor(int i, Plan plan, int k, int[] resolved) {
    PartitionSearcher r = searchers[i];
    r.ensureOpen();
    Matches m = evaluate(i, plan.condition, resolved);
    if (m.kind == Matches.NONE) {
      return null;
    }
    int[] docs = Ordering.top(r, m, plan.orderFields, plan.descending, k);
    return docs.length == 0 ? null : new Cursor(i, r, docs, plan.orderFields);
  }

  /** A document kept by {@link #boundedTop}, with the sort values it had when kept. */
  private static final class Entry {
    final Cursor cursor;
    final int doc;
    final int[] ranks;

    Entry(Cursor c, int doc) {
      this.cursor = c;
      this.doc = doc;
      this.ranks = c.ranks.clone();
    }
  }

  /** True when entry {@code a} comes before entry {@code b}. */
  private static boolean before(Entry a, Entry b, boolean[] desc) {
    for (int key = 0; key < desc.length; key++) {
      int c = Cursor.compare(a.cursor, a.ranks, key, b.cursor, b.ranks);
      if (c != 0) {
        return desc[key] ? c > 0 : c < 0;
      }
    }
    if (a.cursor.partition != b.cursor.partition) {
      return a.cursor.partition < b.cursor.partition;
    }
    return a.doc < b.doc;
  }

  /** True when the cursor's current document {@code doc} comes before entry {@code b}. */
  private static boolean before(Cursor a, int doc, Entry b, boolean[] desc) {
    for (int key = 0; key < desc.length; key++) {
      int c = Cursor.compare(a, a.ranks, key, b.cursor, b.ranks);
      if (c != 0) {
        return desc[key] ? c > 0 : c < 0;
      }
    }
    if (a.partition != b.cursor.partition) {
      return a.partition < b.cursor.partition;
    }
    return doc < b.doc;
  }

  /** Max-heap by order: the worst kept entry on top. */
  private static void siftUp(Entry[] heap, int i, boolean[] desc) {
    Entry item = heap[i];
    while (i > 0) {
      int parent = (i - 1) >>> 1;
      if (!before(heap[parent], item, desc)) {
        break;
      }
      heap[i] = heap[parent];
      i = parent;
    }
    heap[i] = item;
  }

  private static void siftDownEntries(Entry[] heap, int i, int size, boolean[] desc) {
    Entry item = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && before(heap[child], heap[child + 1], desc)) {
        child++;
      }
      if (!before(item, heap[child], desc)) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = item;
  }

  private void merge(Plan plan, DocumentProcessor processor) {
    int k = plan.wanted();
    if (k <= BOUNDED_TOP) {
      boundedTop(plan, processor);
      return;
    }
    List<Cursor> cursors = new ArrayList<>();
    ensurePartitionsOpen();
    CompositeDictionary.Walk walk = walk(plan.condition);
    for (int i = walk.next(); i >= 0; i = walk.next()) {
      Cursor c = cursor(i, plan, k, walk.resolved);
      if (c != null) {
        cursors.add(c);
      }
    }
    mergeCursors(cursors, plan, processor);
  }

  /** K-way merge of the partitions' sorted candidates, honouring skip and limit. */
  private void mergeCursors(List<Cursor> cursors, Plan plan, DocumentProcessor processor) {
    mergeCursors(cursors, plan, (unit, doc, db) -> emit(unit, doc, db, processor));
  }

  /**
   * {@link #mergeCursors(List, Plan, DocumentProcessor)} giving each document's partition index.
   */
  private void mergeCursors(List<Cursor> cursors, Plan plan, HitProcessor processor) {
    for (Cursor c : cursors) {
      c.load();
    }
    Cursor[] heap = cursors.toArray(new Cursor[0]);
    int size = heap.length;
    boolean[] desc = plan.descending;
    for (int i = size / 2 - 1; i >= 0; i--) {
      siftDown(heap, i, size, desc);
    }
    long skip = plan.skip;
    long limit = plan.limit;
    while (size > 0 && limit > 0) {
      Cursor top = heap[0];
      int doc = top.docs[top.position];
      if (skip > 0) {
        skip--;
      } else {
        limit--;
        if (!processor.process(top.partition, doc, top.reader.database())) {
          return;
        }
      }
      top.position++;
      if (top.position == top.docs.length) {
        heap[0] = heap[--size];
        heap[size] = null;
      } else {
        top.load();
      }
      if (size > 0) {
        siftDown(heap, 0, size, desc);
      }
    }
  }

  private static void siftDown(Cursor[] heap, int i, int size, boolean[] desc) {
    Cursor item = heap[i];
    while (true) {
      int child = 2 * i + 1;
      if (child >= size) {
        break;
      }
      if (child + 1 < size && before(heap[child + 1], heap[child], desc)) {
        child++;
      }
      if (!before(heap[child], item, desc)) {
        break;
      }
      heap[i] = heap[child];
      i = child;
    }
    heap[i] = item;
  }

  /** True when {@code a}'s current document comes before {@code b}'s. */
  private static boolean before(Cursor a, Cursor b, boolean[] desc) {
    for (int key = 0; key < desc.length; key++) {
      int c = a.compare(key, b);
      if (c != 0) {
        return desc[key] ? c > 0 : c < 0;
      }
    }
    return a.partition < b.partition;
  }

  /** One partition's ordered documents and the sort values of the current one. */
  private static final class Cursor {
    /** The unit's index. */
    int partition;

    /** The unit, also what processors receive (a group window's documents are mapped back). */
    PartitionSearcher reader;

    int[] docs;
    final int[] orderFields;
    final FieldReader[] fields;
    final int[] ranks;

    int position;

    Cursor(int partition, PartitionSearcher reader, int[] docs, int[] orderFields) {
      this.orderFields = orderFields;
      this.fields = new FieldReader[orderFields.length];
      this.ranks = new int[orderFields.length];
      retarget(partition, reader, docs);
    }

    /** Points the cursor at another unit (for a probe that is never kept in a heap). */
    void retarget(int partition, PartitionSearcher reader, int[] docs) {
      this.partition = partition;
      this.reader = reader;
      this.docs = docs;
      this.position = 0;
      for (int i = 0; i < orderFields.length; i++) {
        fields[i] = reader.field(orderFields[i]);
      }
    }

    void load() {
      int doc = docs[position];
      for (int i = 0; i < fields.length; i++) {
        ranks[i] = fields[i].valueIndex(doc);
      }
    }

    int compare(int key, Cursor other) {
      return compare(this, ranks, key, other, other.ranks);
    }

    /** Compares key {@code key} of two documents given by their cursors and loaded ranks. */
    static int compare(Cursor ca, int[] ranksA, int key, Cursor cb, int[] ranksB) {
      FieldReader a = ca.fields[key];
      FieldReader b = cb.fields[key];
      int ra = ranksA[key];
      int rb = ranksB[key];
      if (a == b) {
        return Integer.compare(ra, rb);
      }
      switch (a.width) {
        case 8 -> {
          return Long.compareUnsigned(
              a.data.get(BIG_LONG, a.valueData + 8L * ra),
              b.data.get(BIG_LONG, b.valueData + 8L * rb));
        }
        case 4 -> {
          return Integer.compareUnsigned(
              a.data.get(BIG_INT, a.valueData + 4L * ra),
              b.data.get(BIG_INT, b.valueData + 4L * rb));
        }
        case 1 -> {
          return Integer.compare(
              a.data.get(ValueLayout.JAVA_BYTE, a.valueData + ra) & 0xFF,
              b.data.get(ValueLayout.JAVA_BYTE, b.valueData + rb) & 0xFF);
        }
        default -> {
          long oa = a.valueOffset(ra);
          long ob = b.valueOffset(rb);
          int la = a.valueLength(ra);
          int lb = b.valueLength(rb);
          long m = MemorySegment.mismatch(a.data, oa, oa + la, b.data, ob, ob + lb);
          if (m < 0) {
            return 0;
          }
          if (m == la) {
            return -1;
          }
          if (m == lb) {
            return 1;
          }
          return Integer.compare(
              a.data.get(ValueLayout.JAVA_BYTE, oa + m) & 0xFF,
              b.data.get(ValueLayout.JAVA_BYTE, ob + m) & 0xFF);
        }
      }
    }
  }
}
