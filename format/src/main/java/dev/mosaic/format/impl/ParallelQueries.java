package dev.mosaic.format.impl;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.DocumentProcessor;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Query;
import java.util.ArrayList;
import java.util.List;

/**
 * A composite's queries with the per-unit work run on an executor (see {@link
 * CompositeDatabase#count(Query, java.util.concurrent.Executor)}): units are split into at most
 * {@link #MAX_TASKS} contiguous ranges; merging and every processor call stay on the calling
 * thread.
 *
 * <p>Thread safety: immutable; safe for concurrent queries.
 */
final class ParallelQueries {
  private final Schema schema;
  private final CompositeUnits units;
  private final CompositeExecution execution;

  ParallelQueries(Schema schema, CompositeUnits units, CompositeExecution execution) {
    this.schema = schema;
    this.units = units;
    this.execution = execution;
  }

  /** Upper bound of tasks a parallel query is split into (contiguous ranges of partitions). */
  private static final int MAX_TASKS = 64;

  /**
   * Runs {@code work} for every partition index on the executor, in at most {@link #MAX_TASKS}
   * contiguous ranges, and returns the results by partition index. Exceptions are rethrown on the
   * calling thread.
   */
  private <T> List<T> perPartition(
      java.util.concurrent.Executor executor, java.util.function.IntFunction<T> work) {
    int n = units.searchers.length;
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

  /** See {@link CompositeDatabase#count(Query, java.util.concurrent.Executor)}. */
  long count(Query query, java.util.concurrent.Executor executor) {
    Plan.Node node = Plan.compile(schema, Query.where(query.condition())).condition;
    long total = 0;
    for (long c :
        perPartition(
            executor,
            i -> {
              units.searchers[i].ensureOpen();
              return units.count(i, node, null);
            })) {
      total += c;
    }
    return total;
  }

  /**
   * See {@link CompositeDatabase#execute(Query, DocumentProcessor, java.util.concurrent.Executor)}.
   */
  void execute(Query query, DocumentProcessor processor, java.util.concurrent.Executor executor) {
    Plan plan = Plan.compile(schema, query);
    if (plan.limit == 0) {
      return;
    }
    if (plan.ordered()) {
      int k = plan.wanted();
      List<SortCursor> cursors = new ArrayList<>();
      for (SortCursor c : perPartition(executor, i -> units.cursor(i, plan, k))) {
        if (c != null) {
          cursors.add(c);
        }
      }
      execution.mergeCursors(cursors, plan, processor);
      return;
    }
    // Unordered: evaluate and count every partition in parallel, then emit in partition order on
    // the calling thread.
    List<Matches> matches =
        perPartition(
            executor,
            i -> {
              units.searchers[i].ensureOpen();
              return units.evaluate(i, plan.condition, null);
            });
    InOrderEmission page = new InOrderEmission(plan.skip, plan.limit);
    for (int i = 0; i < units.searchers.length && !page.done(); i++) {
      page.emit(units, i, matches.get(i), processor);
    }
  }
}
