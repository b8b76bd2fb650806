package dev.mosaic.format.impl;

import dev.mosaic.format.CompiledQuery;
import dev.mosaic.format.Field;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.query.Stats;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A request compiled against a schema: the query's field names resolved to indexes, values encoded
 * to comparable bytes once (not once per partition), every role checked, and its facets and stats
 * compiled ({@link AggregationPlan}). The one compiled form of a request: {@link
 * dev.mosaic.format.Searchable#compile} returns it, and count, execute, aggregate, page and explain
 * all run from it. Immutable and thread safe.
 */
final class Plan implements CompiledQuery {
  /** Compilations so far on each thread: a test hook proving that a request compiles once. */
  private static final ThreadLocal<long[]> COMPILATIONS =
      ThreadLocal.withInitial(() -> new long[1]);

  final Schema schema;
  final Query query;
  final AggregationPlan aggregation;
  final Node condition;
  final int[] orderFields;
  final boolean[] descending;
  final int skip;
  final int limit;

  /** Number of leaf slots of the condition (see {@link Eq#slot()}). */
  final int slots;

  private Plan(
      Schema schema,
      Query query,
      AggregationPlan aggregation,
      Node condition,
      int[] orderFields,
      boolean[] descending,
      int skip,
      int limit) {
    this.schema = schema;
    this.query = query;
    this.aggregation = aggregation;
    this.condition = condition;
    this.slots = slotCount(condition);
    this.orderFields = orderFields;
    this.descending = descending;
    this.skip = skip;
    this.limit = limit;
  }

  /** Number of documents to produce per partition: skip + limit, saturated. */
  int wanted() {
    long k = (long) skip + limit;
    return (int) Math.min(Integer.MAX_VALUE, k);
  }

  boolean ordered() {
    return orderFields.length > 0;
  }

  @Override
  public Schema schema() {
    return schema;
  }

  @Override
  public Query query() {
    return query;
  }

  @Override
  public List<Facet> facets() {
    return aggregation.facets;
  }

  @Override
  public List<Stats> stats() {
    return aggregation.stats;
  }

  @Override
  public String toString() {
    return "CompiledQuery{" + query + ", facets=" + facets() + ", stats=" + stats() + "}";
  }

  /** Number of requests compiled so far on the calling thread (a test hook). */
  static long compilationsOnThisThread() {
    return COMPILATIONS.get()[0];
  }

  /**
   * The plan a compiled query is, checked to be one of ours compiled against {@code schema}.
   *
   * @throws IllegalArgumentException for another implementation or another schema
   */
  static Plan of(CompiledQuery compiled, Schema schema) {
    if (!(compiled instanceof Plan plan)) {
      throw new IllegalArgumentException(
          "not a query compiled by Searchable.compile: "
              + (compiled == null ? "null" : compiled.getClass().getName()));
    }
    if (plan.schema != schema && !plan.schema.equals(schema)) {
      throw new IllegalArgumentException(
          "query compiled for schema " + plan.schema + ", not for this one's " + schema);
    }
    return plan;
  }

  /**
   * One past the largest slot of the condition's {@code eq} and {@code in} leaves: the size of an
   * array of per-partition resolved value ranks indexed by slot.
   */
  static int slotCount(Node node) {
    return switch (node) {
      case Eq eq -> eq.slot() + 1;
      case In in -> in.slot() + in.keys().length;
      case And and -> maxSlot(and.children());
      case Or or -> maxSlot(or.children());
      case Not not -> slotCount(not.child());
      default -> 0;
    };
  }

  private static int maxSlot(Node[] children) {
    int max = 0;
    for (Node c : children) {
      max = Math.max(max, slotCount(c));
    }
    return max;
  }

  /** Compiles a query without facets or stats. */
  static Plan compile(Schema schema, Query query) {
    return compile(schema, query, List.of(), List.of());
  }

  /**
   * Compiles a whole request: the query's condition and sort keys, then its facets and stats.
   *
   * @throws IllegalArgumentException naming the field of the first problem
   */
  static Plan compile(Schema schema, Query query, List<Facet> facets, List<Stats> stats) {
    COMPILATIONS.get()[0]++;
    Node node = compile(schema, query.condition(), new int[1]);
    List<Order> orders = query.orders();
    int[] fields = new int[orders.size()];
    boolean[] desc = new boolean[orders.size()];
    for (int i = 0; i < fields.length; i++) {
      Order o = orders.get(i);
      int index = indexOf(schema, o.field());
      Field f = schema.fields().get(index);
      if (!f.role().isSortable()) {
        throw new IllegalArgumentException(
            "field '" + o.field() + "' is " + f.role() + ", not sortable: cannot order by it");
      }
      fields[i] = index;
      desc[i] = o.descending();
    }
    AggregationPlan aggregation = AggregationPlan.compile(schema, facets, stats);
    return new Plan(schema, query, aggregation, node, fields, desc, query.skip(), query.limit());
  }

  static int indexOf(Schema schema, String name) {
    List<Field> fields = schema.fields();
    for (int i = 0; i < fields.size(); i++) {
      if (fields.get(i).name().equals(name)) {
        return i;
      }
    }
    schema.field(name); // throws the precise unknown-field error
    throw new IllegalArgumentException("unknown field '" + name + "'");
  }

  private static int filterable(Schema schema, String name) {
    int index = indexOf(schema, name);
    Field f = schema.fields().get(index);
    if (!f.role().isFilterable()) {
      throw new IllegalArgumentException(
          "field '" + name + "' is " + f.role() + ", not filterable: cannot use it in a condition");
    }
    return index;
  }

  private static Key key(Schema schema, int field, Object value) {
    Field f = schema.fields().get(field);
    try {
      return Key.of(f.type().encode(value));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("field '" + f.name() + "': " + e.getMessage(), e);
    }
  }

  /** {@code slots[0]} is the next free leaf slot. */
  private static Node compile(Schema schema, Condition c, int[] slots) {
    return switch (c) {
      case Condition.All a -> All.INSTANCE;
      case Condition.Eq eq -> {
        int f = filterable(schema, eq.field());
        yield new Eq(f, key(schema, f, eq.value()), slots[0]++);
      }
      case Condition.In in -> {
        int f = filterable(schema, in.field());
        List<byte[]> keys = new ArrayList<>();
        for (Object v : in.values()) {
          keys.add(key(schema, f, v).bytes());
        }
        keys.sort(Arrays::compareUnsigned);
        List<Key> unique = new ArrayList<>();
        byte[] last = null;
        for (byte[] k : keys) {
          if (last == null || !Arrays.equals(last, k)) {
            unique.add(Key.of(k));
          }
          last = k;
        }
        In node = new In(f, unique.toArray(new Key[0]), slots[0]);
        slots[0] += unique.size();
        yield node;
      }
      case Condition.Range r -> {
        int f = filterable(schema, r.field());
        yield new Range(
            f,
            r.from() == null ? null : key(schema, f, r.from()),
            r.fromInclusive(),
            r.to() == null ? null : key(schema, f, r.to()),
            r.toInclusive());
      }
      case Condition.And and -> {
        Node[] children = new Node[and.conditions().size()];
        for (int i = 0; i < children.length; i++) {
          children[i] = compile(schema, and.conditions().get(i), slots);
        }
        // Leaves first: they decide emptiness without allocating.
        Node[] ordered = new Node[children.length];
        int n = 0;
        for (Node child : children) {
          if (child.isLeaf()) {
            ordered[n++] = child;
          }
        }
        for (Node child : children) {
          if (!child.isLeaf()) {
            ordered[n++] = child;
          }
        }
        yield new And(ordered);
      }
      case Condition.Or or -> {
        Node[] children = new Node[or.conditions().size()];
        for (int i = 0; i < children.length; i++) {
          children[i] = compile(schema, or.conditions().get(i), slots);
        }
        yield new Or(children);
      }
      case Condition.Not not -> new Not(compile(schema, not.condition(), slots));
    };
  }

  /** A compiled condition. */
  sealed interface Node permits All, Eq, In, Range, And, Or, Not {
    default boolean isLeaf() {
      return !(this instanceof And || this instanceof Or || this instanceof Not);
    }
  }

  enum All implements Node {
    INSTANCE
  }

  /**
   * {@code slot}: this leaf's index in a per-partition array of resolved value ranks (see {@link
   * DatabaseReader#evaluate(Node, int[])}), unique within one compiled condition; -1 for none.
   */
  record Eq(int field, Key key, int slot) implements Node {
    Eq(int field, Key key) {
      this(field, key, -1);
    }
  }

  /**
   * Keys sorted and distinct. Key {@code i} has slot {@code slot + i} (see {@link Eq#slot()}); -1
   * for none.
   */
  record In(int field, Key[] keys, int slot) implements Node {
    In(int field, Key[] keys) {
      this(field, keys, -1);
    }
  }

  /** A null bound is open. */
  record Range(int field, Key from, boolean fromInclusive, Key to, boolean toInclusive)
      implements Node {}

  record And(Node[] children) implements Node {}

  record Or(Node[] children) implements Node {}

  record Not(Node child) implements Node {}
}
