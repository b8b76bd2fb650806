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
    int from = Math.min(hits.size(), query.skip());
    int to = (int) Math.min(hits.size(), (long) from + query.limit());
    return new ArrayList<>(hits.subList(from, to));
  }

  /** Facet entries as "hex(value)=count", in the order the engine must return them. */
  List<String> facet(dev.mosaic.format.query.Condition condition, dev.mosaic.format.query.Facet f) {
    FieldType type = type(f.field());
    java.util.TreeMap<byte[], Long> counts = new java.util.TreeMap<>(Arrays::compareUnsigned);
    for (List<Document> p : partitions) {
      for (Document d : p) {
        if (matches(d, condition)) {
          java.util.TreeSet<byte[]> distinct = new java.util.TreeSet<>(Arrays::compareUnsigned);
          distinct.addAll(d.values(f.field()));
          for (byte[] v : distinct) {
            counts.merge(v, 1L, Long::sum);
          }
        }
      }
    }
    List<String> out = new ArrayList<>();
    switch (f.kind()) {
      case VALUES -> {
        for (Object v : f.values()) {
          byte[] key = type.encode(v);
          out.add(hex(key) + "=" + counts.getOrDefault(key, 0L));
        }
      }
      case ALL -> counts.forEach((k, v) -> out.add(hex(k) + "=" + v));
      case TOP -> {
        List<java.util.Map.Entry<byte[], Long>> entries = new ArrayList<>(counts.entrySet());
        entries.sort(
            Comparator.<java.util.Map.Entry<byte[], Long>>comparingLong(e -> -e.getValue())
                .thenComparing((a, b) -> Arrays.compareUnsigned(a.getKey(), b.getKey())));
        entries.stream().limit(f.top()).forEach(e -> out.add(hex(e.getKey()) + "=" + e.getValue()));
      }
    }
    return out;
  }

  /** Stats as "count min max [buckets]" with values in hex. */
  String stats(dev.mosaic.format.query.Condition condition, dev.mosaic.format.query.Stats s) {
    FieldType type = type(s.field());
    List<byte[]> bounds = s.bounds().stream().map(type::encode).toList();
    long count = 0;
    byte[] min = null;
    byte[] max = null;
    long[] buckets = new long[bounds.isEmpty() ? 0 : bounds.size() + 1];
    for (List<Document> p : partitions) {
      for (Document d : p) {
        if (matches(d, condition)) {
          byte[] v = d.values(s.field()).get(0);
          count++;
          if (min == null || Arrays.compareUnsigned(v, min) < 0) {
            min = v;
          }
          if (max == null || Arrays.compareUnsigned(v, max) > 0) {
            max = v;
          }
          if (buckets.length > 0) {
            int b = 0;
            while (b < bounds.size() && Arrays.compareUnsigned(v, bounds.get(b)) >= 0) {
              b++;
            }
            buckets[b]++;
          }
        }
      }
    }
    return count + " " + hex(min) + " " + hex(max) + " " + Arrays.toString(buckets);
  }

  static String hex(byte[] b) {
    return b == null ? "null" : java.util.HexFormat.of().formatHex(b);
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
