package dev.mosaic.format.impl;

import dev.mosaic.format.Database;
import dev.mosaic.format.DocumentProcessor;
import dev.mosaic.format.query.Query;

/**
 * Searches one partition: evaluates compiled conditions over its {@link DatabaseReader} (through a
 * {@link ConditionEvaluator}) and counts, emits, pages, aggregates and explains the matches. Every
 * document it hands to a processor comes with the partition's public {@link Database}.
 *
 * <p>Thread safety: immutable; any number of threads may query concurrently. Each query allocates
 * its own scratch, sized to this partition.
 */
public final class PartitionSearcher {
  /**
   * The format's {@link Database}: it holds the searcher of its partition (every {@link Database}
   * does, the type being sealed).
   */
  public interface Holder {
    /** The searcher of this partition. */
    PartitionSearcher searcher();
  }

  private final DatabaseReader reader;
  private final Database database;
  private final int documents;
  private final ConditionEvaluator evaluator;

  /** A searcher of {@code reader}, handing {@code database} (its public face) to processors. */
  public PartitionSearcher(DatabaseReader reader, Database database) {
    this.reader = reader;
    this.database = database;
    this.documents = reader.documents();
    this.evaluator = new ConditionEvaluator(reader::field, documents, reader.blooms());
  }

  /** The searcher of a database the format opened (every {@link Database}). */
  public static PartitionSearcher of(Database database) {
    return ((Holder) database).searcher();
  }

  /** The partition's reader. */
  public DatabaseReader reader() {
    return reader;
  }

  /** The partition's public face. */
  Database database() {
    return database;
  }

  /** Number of documents of the partition. */
  int documents() {
    return documents;
  }

  /** The partition's field {@code index}. */
  FieldReader field(int index) {
    return reader.field(index);
  }

  /** Throws {@link IllegalStateException} when the partition is closed. */
  void ensureOpen() {
    reader.ensureOpen();
  }

  public dev.mosaic.format.CompiledQuery compile(
      Query query,
      java.util.List<dev.mosaic.format.query.Facet> facets,
      java.util.List<dev.mosaic.format.query.Stats> stats) {
    return Plan.compile(reader.schema(), query, facets, stats);
  }

  public long count(dev.mosaic.format.CompiledQuery query) {
    Plan plan = Plan.of(query, reader.schema());
    reader.ensureOpen();
    return count(plan.condition);
  }

  public void execute(dev.mosaic.format.CompiledQuery query, DocumentProcessor processor) {
    Plan plan = Plan.of(query, reader.schema());
    reader.ensureOpen();
    execute(plan, processor);
  }

  public dev.mosaic.format.Aggregation aggregate(dev.mosaic.format.CompiledQuery query) {
    Aggregator aggregator = new Aggregator(reader.schema(), Plan.of(query, reader.schema()));
    aggregator.add(this);
    return aggregator.result();
  }

  /** The total, aggregation and page from one evaluation of the condition. */
  public dev.mosaic.format.Page page(dev.mosaic.format.CompiledQuery query) {
    Plan plan = Plan.of(query, reader.schema());
    Aggregator aggregator = new Aggregator(reader.schema(), plan);
    reader.ensureOpen();
    Matches m = evaluate(plan.condition);
    long total = aggregator.add(this, m, -1);
    java.util.List<dev.mosaic.format.Hit> hits = new java.util.ArrayList<>();
    if (total > 0 && plan.limit > 0) {
      emit(plan, m, (doc, db) -> hits.add(new dev.mosaic.format.Hit(0, doc, database)));
    }
    dev.mosaic.format.Aggregation aggregation = aggregator.result();
    return new dev.mosaic.format.Page(aggregation.count(), hits, aggregation);
  }

  public dev.mosaic.format.Explanation explain(dev.mosaic.format.CompiledQuery query) {
    Plan plan = Plan.of(query, reader.schema());
    reader.ensureOpen();
    return explain(plan, "partition " + reader.source());
  }

  /**
   * The trace of a query on this partition, named {@code name} (see {@link PartitionExplainer}).
   */
  dev.mosaic.format.Explanation explain(Plan plan, String name) {
    return new PartitionExplainer(this, reader.schema(), reader.blooms()).explain(plan, name);
  }

  // ----- execution -----------------------------------------------------------------------------

  long count(Plan.Node node) {
    return count(node, null);
  }

  /** Number of matches, with leaf ranks resolved as in {@link #evaluate(Plan.Node, int[])}. */
  long count(Plan.Node node, int[] resolved) {
    if (node instanceof Plan.Not not) {
      return documents - count(not.child(), resolved);
    }
    return count(evaluate(node, resolved));
  }

  void execute(Plan plan, DocumentProcessor processor) {
    if (plan.limit == 0) {
      return;
    }
    emit(plan, evaluate(plan.condition), processor);
  }

  /** Emits the plan's page of matches {@code m} of its condition. */
  private void emit(Plan plan, Matches m, DocumentProcessor processor) {
    if (m.kind == Matches.NONE) {
      return;
    }
    if (!plan.ordered()) {
      emitInDocumentOrder(m, plan.skip, plan.limit, processor);
      return;
    }
    int[] docs = Ordering.top(this, m, plan.orderFields, plan.descending, plan.wanted());
    for (int i = plan.skip; i < docs.length; i++) {
      if (!processor.process(docs[i], database)) {
        return;
      }
    }
  }

  /**
   * Emits matches in document order after skipping {@code skip}, at most {@code limit}.
   *
   * @return the number of matches skipped (when fewer than skip matched) as a negative number, or
   *     the count emitted; -1L << 62 when the processor stopped
   */
  long emitInDocumentOrder(Matches m, long skip, long limit, DocumentProcessor processor) {
    long seen = 0;
    long end = skip + limit;
    if (m.kind == Matches.ALL) {
      for (int doc = (int) Math.min(skip, documents); doc < documents && doc < end; doc++) {
        if (!processor.process(doc, database)) {
          return STOPPED;
        }
      }
      return Math.max(0, Math.min(end, documents) - skip);
    }
    if (m.kind == Matches.IDS) {
      int count = m.from;
      for (int i = (int) Math.min(skip, count); i < count && i < end; i++) {
        if (!processor.process(m.ids[i], database)) {
          return STOPPED;
        }
      }
      return Math.max(0, Math.min(end, count) - skip);
    }
    if (m.singleValue() && m.field.isListAt(m.from)) {
      FieldReader f = m.field;
      int count = f.count(m.from);
      long at = f.postingsOf(m.from);
      for (int i = (int) Math.min(skip, count); i < count && i < end; i++) {
        if (!processor.process(f.id(at, i), database)) {
          return STOPPED;
        }
      }
      return Math.max(0, Math.min(end, count) - skip);
    }
    long[] bits = materialize(m);
    for (int w = 0; w < bits.length; w++) {
      long word = bits[w];
      while (word != 0) {
        int doc = (w << 6) + Long.numberOfTrailingZeros(word);
        word &= word - 1;
        if (seen >= skip) {
          if (!processor.process(doc, database)) {
            return STOPPED;
          }
        }
        seen++;
        if (seen >= end) {
          return seen - skip;
        }
      }
    }
    return Math.max(0, seen - skip);
  }

  static final long STOPPED = -1L << 62;

  /** A slot of a resolved-ranks array whose value was not looked up: search the value set. */
  static final int UNRESOLVED = Integer.MIN_VALUE;

  Matches evaluate(Plan.Node node) {
    return evaluator.evaluate(node, null);
  }

  /** See {@link ConditionEvaluator#evaluate(Plan.Node, int[])}. */
  Matches evaluate(Plan.Node node, int[] resolved) {
    return evaluator.evaluate(node, resolved);
  }

  long count(Matches m) {
    return evaluator.count(m);
  }

  /** A fresh bit set of the matches (per-query scratch). */
  long[] materialize(Matches m) {
    return evaluator.materialize(m);
  }

  /** The matching documents, ascending (a fresh array, or the matches' own ids). */
  int[] documentIds(Matches m) {
    return evaluator.documentIds(m);
  }
}
