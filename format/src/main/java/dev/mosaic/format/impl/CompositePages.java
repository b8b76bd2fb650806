package dev.mosaic.format.impl;

import dev.mosaic.format.Aggregation;
import dev.mosaic.format.Database;
import dev.mosaic.format.DocumentProcessor;
import dev.mosaic.format.Hit;
import dev.mosaic.format.Page;
import dev.mosaic.format.Schema;
import java.util.ArrayList;
import java.util.List;

/**
 * A composite's pages: the total, the aggregation and the page of a request, from as few
 * evaluations of the condition as the request allows.
 *
 * <p>Thread safety: immutable; safe for concurrent queries.
 */
final class CompositePages {
  private final Schema schema;
  private final CompositeUnits units;
  private final CompositeExecution execution;

  CompositePages(Schema schema, CompositeUnits units, CompositeExecution execution) {
    this.schema = schema;
    this.units = units;
    this.execution = execution;
  }

  /**
   * One evaluation of the condition per partition feeds the total, the aggregation and the page:
   * for an ordered query each partition's first {@code skip + limit} matches in order are merged;
   * otherwise matches are taken in partition order.
   */
  Page page(Plan plan) {
    if (plan.aggregation.isEmpty()) {
      // Nothing to aggregate: the total comes from the value dictionaries where they answer it,
      // and an ordered page skips the partitions that cannot beat the current k-th document;
      // evaluating every partition once for both would cost more than the two paths together.
      Page evaluatedOnce = orderedPageEvaluatedOnce(plan);
      if (evaluatedOnce != null) {
        return evaluatedOnce;
      }
      long total = units.count(plan);
      List<Hit> hits = new ArrayList<>();
      if (plan.limit > 0 && total > plan.skip) {
        java.util.Map<Database, Integer> index = units.partitionIndexes();
        execution.execute(
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
    List<SortCursor> cursors = new ArrayList<>();
    int k = plan.wanted();
    long skip = plan.skip;
    long limit = plan.limit;
    units.ensurePartitionsOpen();
    if (units.dictionary != null) {
      aggregator.useDictionaries(units.dictionary);
    }
    java.util.Map<Database, Integer> index = units.partitionIndexes();
    // documents reach it as their partition's (a group window's are mapped back by processorOf)
    DocumentProcessor collect =
        (doc, db) -> {
          hits.add(new Hit(index.get(db), doc, db));
          return true;
        };
    CompositeDictionary.Walk walk = units.walk(condition);
    for (int i = walk.next(); i >= 0; i = walk.next()) {
      PartitionSearcher r = units.searchers[i];
      r.ensureOpen();
      Matches m = units.evaluate(i, condition, walk.resolved);
      long c = aggregator.add(r, m, i);
      if (c == 0 || plan.limit == 0) {
        continue;
      }
      if (plan.ordered()) {
        int[] docs = Ordering.top(r, m, plan.orderFields, plan.descending, k);
        if (docs.length > 0) {
          cursors.add(new SortCursor(i, r, docs, plan.orderFields));
        }
      } else if (limit > 0) {
        if (skip >= c) {
          skip -= c;
          continue;
        }
        limit -= r.emitInDocumentOrder(m, skip, limit, units.processorOf(i, collect));
        skip = 0;
      }
    }
    if (!cursors.isEmpty()) {
      CursorMerge.merge(cursors, plan, (unit, doc, db) -> units.emit(unit, doc, db, collect));
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
    if (!plan.ordered() || plan.limit == 0 || plan.wanted() > CompositeExecution.BOUNDED_TOP) {
      return null;
    }
    units.ensurePartitionsOpen();
    if (units.dictionary != null
        && units.windowFrom == null
        && units.dictionary.count(plan.condition) >= 0) {
      return null; // a known total costs nothing: only the top needs evaluations
    }
    Matches[] evaluated = new Matches[units.searchers.length];
    long total = 0;
    CompositeDictionary.Walk walk = units.walk(plan.condition);
    for (int i = walk.next(); i >= 0; i = walk.next()) {
      PartitionSearcher r = units.searchers[i];
      r.ensureOpen();
      Matches m = units.evaluate(i, plan.condition, walk.resolved);
      if (m.kind == Matches.NONE) {
        continue;
      }
      long c = r.count(m);
      if (c > 0) {
        total += c;
        evaluated[i] = m;
      }
    }
    java.util.Map<Database, Integer> index = units.partitionIndexes();
    List<Hit> hits = new ArrayList<>();
    if (total > plan.skip) {
      execution.boundedTop(
          plan,
          evaluated,
          (doc, db) -> {
            hits.add(new Hit(index.get(db), doc, db));
            return true;
          });
    }
    return new Page(total, hits, new Aggregation(total, List.of(), List.of()));
  }
}
