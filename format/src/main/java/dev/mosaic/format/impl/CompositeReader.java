package dev.mosaic.format.impl;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.DocumentProcessor;
import dev.mosaic.format.HitProcessor;
import dev.mosaic.format.Page;
import dev.mosaic.format.PartitionGroup;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Query;
import java.util.List;

/**
 * Runs queries over many partitions. The query is compiled once (fields resolved, values encoded);
 * each partition then evaluates it lazily, so a partition whose condition cannot match (an {@code
 * eq} value absent from its value set, say) is dropped after a binary search, without allocating.
 * Counts sum. Unordered queries walk partitions in order, skipping whole partitions by their count.
 * Ordered queries take each partition's first {@code skip + limit} documents and merge them,
 * comparing sort values as bytes, ties broken by partition order then document id.
 *
 * <p>Layout: the units and their per-unit steps are {@link CompositeUnits}; emitting in query order
 * is {@link CompositeExecution} (with {@link TopCollector} and {@link CursorMerge}); pages are
 * {@link CompositePages}; the executor variants are {@link ParallelQueries}. This class holds them
 * together and answers counts, aggregations and explanations.
 *
 * <p>Thread safety: immutable; safe for concurrent queries. NOTE: does not own its partitions.
 * Every partition (and group) is read directly ({@link Database} is sealed: every one is a database
 * the format opened).
 */
public final class CompositeReader implements CompositeDatabase {
  private final Schema schema;
  private final List<Database> partitions;
  private final List<PartitionGroup> groups;
  private final long dictionaryBudgetBytes;
  private final CompositeUnits units;
  private final CompositeExecution execution;
  private final CompositePages pages;
  private final ParallelQueries parallel;

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
    this.dictionaryBudgetBytes = dictionaryBudgetBytes;
    this.units =
        new CompositeUnits(
            schema,
            this.partitions,
            this.groups,
            dictionaryBudgetBytes,
            predecessor == null ? null : predecessor.units);
    this.execution = new CompositeExecution(schema, units);
    this.pages = new CompositePages(schema, units, execution);
    this.parallel = new ParallelQueries(schema, units, execution);
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
    return units.size();
  }

  /** Field dictionaries this composite derived by patching its predecessor's, 0 when none. */
  int dictionaryPatches() {
    return units.dictionaryPatches();
  }

  /** Heap bytes of the value dictionaries built so far (an estimate), 0 when none. */
  long dictionaryHeapBytes() {
    return units.dictionaryHeapBytes();
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
    return units.documentCount;
  }

  @Override
  public String toString() {
    return "CompositeDatabase{"
        + partitions.size()
        + " partitions"
        + (groups.isEmpty() ? "" : " in " + units.size() + " units")
        + ", "
        + units.documentCount
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
    return units.count(Plan.of(query, schema));
  }

  @Override
  public dev.mosaic.format.Explanation explain(dev.mosaic.format.CompiledQuery query) {
    Plan plan = Plan.of(query, schema);
    if (units.windowFrom != null) {
      return explainWhole(plan); // no per-unit trace of a partial window
    }
    long start = System.nanoTime();
    List<dev.mosaic.format.Explanation> children = new java.util.ArrayList<>();
    long total = 0;
    for (int i = 0; i < units.searchers.length; i++) {
      units.searchers[i].ensureOpen();
      dev.mosaic.format.Explanation e =
          units.searchers[i].explain(
              plan, "partition " + i + " (" + units.searchers[i].reader().source() + ")");
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
        "composite of " + units.searchers.length + " partitions; condition matches " + total,
        emitted,
        end - start,
        children);
  }

  /** The trace of a query as two steps: the whole count, then the whole execution. */
  private dev.mosaic.format.Explanation explainWhole(Plan plan) {
    long start = System.nanoTime();
    long count = units.count(plan);
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
    execution.execute(
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
    if (units.dictionary != null) {
      // only the partitions that can match, their leaves resolved without a per-partition search
      units.ensurePartitionsOpen();
      aggregator.useDictionaries(units.dictionary);
      CompositeDictionary.Walk walk = units.dictionary.walk(aggregator.condition());
      for (int i = walk.next(); i >= 0; i = walk.next()) {
        if (units.windowFrom == null) {
          aggregator.add(units.searchers[i], walk.resolved, i);
        } else {
          units.searchers[i].ensureOpen();
          aggregator.add(
              units.searchers[i], units.evaluate(i, aggregator.condition(), walk.resolved), i);
        }
      }
      return aggregator.result();
    }
    for (int i = 0; i < units.searchers.length; i++) {
      if (units.windowFrom == null) {
        aggregator.add(units.searchers[i]);
      } else {
        units.searchers[i].ensureOpen();
        aggregator.addMatches(units.searchers[i], units.evaluate(i, aggregator.condition(), null));
      }
    }
    return aggregator.result();
  }

  @Override
  public long count(Query query, java.util.concurrent.Executor executor) {
    return parallel.count(query, executor);
  }

  @Override
  public void execute(
      Query query, DocumentProcessor processor, java.util.concurrent.Executor executor) {
    parallel.execute(query, processor, executor);
  }

  @Override
  public void execute(dev.mosaic.format.CompiledQuery query, HitProcessor processor) {
    java.util.Map<Database, Integer> index = units.partitionIndexes();
    execution.execute(
        Plan.of(query, schema), (doc, db) -> processor.process(index.get(db), doc, db));
  }

  @Override
  public Page page(dev.mosaic.format.CompiledQuery query) {
    return pages.page(Plan.of(query, schema));
  }

  @Override
  public void execute(dev.mosaic.format.CompiledQuery query, DocumentProcessor processor) {
    execution.execute(Plan.of(query, schema), processor);
  }
}
