package dev.mosaic.format.impl;

import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Query;

/**
 * Explains a query on one partition: each step of its condition evaluated and timed on its own
 * (with what the Bloom filters reject), then the execution honouring order, skip and limit.
 *
 * <p>Thread safety: immutable; one per call.
 */
final class PartitionExplainer {
  private final PartitionSearcher db;
  private final Schema schema;
  private final BloomFilter[] blooms;

  PartitionExplainer(PartitionSearcher db, Schema schema, BloomFilter[] blooms) {
    this.db = db;
    this.schema = schema;
    this.blooms = blooms;
  }

  dev.mosaic.format.Explanation explain(Plan plan, String name) {
    Query query = plan.query;
    long start = System.nanoTime();
    dev.mosaic.format.Explanation condition = explain(plan.condition);
    long executeStart = System.nanoTime();
    long[] emitted = {0};
    db.execute(
        plan,
        (doc, db) -> {
          emitted[0]++;
          return true;
        });
    long end = System.nanoTime();
    return new dev.mosaic.format.Explanation(
        name,
        emitted[0],
        end - start,
        java.util.List.of(
            condition,
            new dev.mosaic.format.Explanation(
                "execute(orderBy="
                    + query.orders()
                    + ", skip="
                    + query.skip()
                    + ", limit="
                    + query.limit()
                    + ")",
                emitted[0],
                end - executeStart,
                java.util.List.of())));
  }

  /** One step per plan node, each evaluated (and timed) on its own. */
  dev.mosaic.format.Explanation explain(Plan.Node node) {
    java.util.List<dev.mosaic.format.Explanation> children = new java.util.ArrayList<>();
    switch (node) {
      case Plan.And and -> {
        for (Plan.Node c : and.children()) {
          children.add(explain(c));
        }
      }
      case Plan.Or or -> {
        for (Plan.Node c : or.children()) {
          children.add(explain(c));
        }
      }
      case Plan.Not not -> children.add(explain(not.child()));
      default -> {}
    }
    long start = System.nanoTime();
    long matches = db.count(node);
    long nanos = System.nanoTime() - start;
    return new dev.mosaic.format.Explanation(describe(node), matches, nanos, children);
  }

  private String describe(Plan.Node node) {
    return switch (node) {
      case Plan.All a -> "all";
      case Plan.Eq eq ->
          "eq("
              + fieldName(eq.field())
              + " = "
              + value(eq.field(), eq.key())
              + bloomNote(eq.field(), java.util.List.of(eq.key()))
              + ")";
      case Plan.In in -> {
        StringBuilder b = new StringBuilder("in(").append(fieldName(in.field())).append(" in [");
        for (int i = 0; i < in.keys().length; i++) {
          b.append(i == 0 ? "" : ", ").append(value(in.field(), in.keys()[i]));
        }
        yield b.append(']')
            .append(bloomNote(in.field(), java.util.List.of(in.keys())))
            .append(')')
            .toString();
      }
      case Plan.Range r ->
          "range("
              + fieldName(r.field())
              + " in "
              + (r.from() == null
                  ? "(-inf"
                  : (r.fromInclusive() ? "[" : "(") + value(r.field(), r.from()))
              + ", "
              + (r.to() == null
                  ? "+inf)"
                  : value(r.field(), r.to()) + (r.toInclusive() ? "]" : ")"))
              + ")";
      case Plan.And and -> "and";
      case Plan.Or or -> "or";
      case Plan.Not not -> "not";
    };
  }

  private String fieldName(int field) {
    return schema.fields().get(field).name();
  }

  private String value(int field, Key key) {
    Object v = schema.fields().get(field).type().decode(key.bytes());
    return v instanceof String str
        ? '"' + str + '"'
        : v instanceof byte[] b ? java.util.HexFormat.of().formatHex(b) : String.valueOf(v);
  }

  private String bloomNote(int field, java.util.List<Key> keys) {
    BloomFilter bloom = blooms[field];
    if (bloom == null) {
      return "";
    }
    int rejected = 0;
    for (Key k : keys) {
      if (!bloom.mightContain(k.hash())) {
        rejected++;
      }
    }
    return "; bloom filter rejects " + rejected + " of " + keys.size();
  }
}
