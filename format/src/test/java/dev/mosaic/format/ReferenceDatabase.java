package dev.mosaic.format;

import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * A plain in-memory implementation of the query semantics, the oracle for randomized tests: linear
 * scans over the documents' comparable bytes, a stable sort, no cleverness.
 */
final class ReferenceDatabase {
  /** One document of one partition. */
  record Hit(int partition, int document) {}

  private final Schema schema;
  private final List<List<Document>> partitions;

  ReferenceDatabase(Schema schema, List<List<Document>> partitions) {
    this.schema = schema;
    this.partitions = partitions;
  }

  long count(Query query) {
    long n = 0;
    for (List<Document> p : partitions) {
      for (Document d : p) {
        if (matches(d, query.condition())) {
          n++;
        }
      }
    }
    return n;
  }

  List<Hit> execute(Query query) {
    List<Hit> hits = new ArrayList<>();
    for (int p = 0; p < partitions.size(); p++) {
      List<Document> docs = partitions.get(p);
      for (int d = 0; d < docs.size(); d++) {
        if (matches(docs.get(d), query.condition())) {
          hits.add(new Hit(p, d));
        }
      }
    }
    Comparator<Hit> order = (a, b) -> 0;
    for (Order o : query.orders()) {
      Comparator<Hit> key =
          (a, b) -> Arrays.compareUnsigned(sortValue(a, o.field()), sortValue(b, o.field()));
      order = order.thenComparing(o.descending() ? key.reversed() : key);
    }
    hits.sort(order); // stable: partition order, then document id
    int from = (int) Math.min(hits.size(), query.skip());
    int to = (int) Math.min(hits.size(), (long) from + query.limit());
    return new ArrayList<>(hits.subList(from, to));
  }

  byte[] sortValue(Hit h, String field) {
    return partitions.get(h.partition()).get(h.document()).values(field).get(0);
  }

  Document document(Hit h) {
    return partitions.get(h.partition()).get(h.document());
  }

  private boolean matches(Document d, Condition c) {
    return switch (c) {
      case Condition.All a -> true;
      case Condition.Eq eq -> {
        byte[] key = type(eq.field()).encode(eq.value());
        yield d.values(eq.field()).stream().anyMatch(v -> Arrays.equals(v, key));
      }
      case Condition.In in -> {
        List<byte[]> keys = in.values().stream().map(v -> type(in.field()).encode(v)).toList();
        yield d.values(in.field()).stream()
            .anyMatch(v -> keys.stream().anyMatch(k -> Arrays.equals(k, v)));
      }
      case Condition.Range r -> {
        byte[] from = r.from() == null ? null : type(r.field()).encode(r.from());
        byte[] to = r.to() == null ? null : type(r.field()).encode(r.to());
        yield d.values(r.field()).stream()
            .anyMatch(
                v -> {
                  if (from != null) {
                    int cf = Arrays.compareUnsigned(v, from);
                    if (cf < 0 || (cf == 0 && !r.fromInclusive())) {
                      return false;
                    }
                  }
                  if (to != null) {
                    int ct = Arrays.compareUnsigned(v, to);
                    return ct < 0 || (ct == 0 && r.toInclusive());
                  }
                  return true;
                });
      }
      case Condition.And and -> and.conditions().stream().allMatch(x -> matches(d, x));
      case Condition.Or or -> or.conditions().stream().anyMatch(x -> matches(d, x));
      case Condition.Not not -> !matches(d, not.condition());
    };
  }

  private FieldType type(String field) {
    return schema.field(field).type();
  }
}
