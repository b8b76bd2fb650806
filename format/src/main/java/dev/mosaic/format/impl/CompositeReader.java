package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.BIG_INT;
import static dev.mosaic.format.impl.FileFormat.BIG_LONG;

import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.DocumentProcessor;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Query;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
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
 * Partitions opened through {@link Database} are read directly; other {@link Database}
 * implementations (wrappers, say) are queried through their public methods, which is slower.
 */
public final class CompositeReader implements CompositeDatabase {
  private final Schema schema;
  private final List<Database> partitions;
  private final DatabaseReader[] readers;
  private final long documentCount;

  public CompositeReader(Schema schema, List<? extends Database> partitions) {
    this.schema = java.util.Objects.requireNonNull(schema, "schema");
    this.partitions = List.copyOf(partitions);
    this.readers = new DatabaseReader[this.partitions.size()];
    long n = 0;
    for (int i = 0; i < readers.length; i++) {
      Database d = this.partitions.get(i);
      if (d.schema() != schema && !d.schema().equals(schema)) {
        throw new IllegalArgumentException(
            "partition " + i + " (" + d + ") has schema " + d.schema() + ", expected " + schema);
      }
      readers[i] = d instanceof DatabaseReader r ? r : null;
      n += d.documentCount();
    }
    this.documentCount = n;
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
    return "CompositeDatabase{" + readers.length + " partitions, " + documentCount + " documents}";
  }

  @Override
  public long count(Query query) {
    Plan.Node node = Plan.compileCondition(schema, query.condition());
    long total = 0;
    for (int i = 0; i < readers.length; i++) {
      DatabaseReader r = readers[i];
      if (r != null) {
        r.ensureOpen();
        total += r.count(node);
      } else {
        total += partitions.get(i).count(query);
      }
    }
    return total;
  }

  @Override
  public dev.mosaic.format.Aggregation aggregate(
      dev.mosaic.format.query.Condition condition,
      List<dev.mosaic.format.query.Facet> facets,
      List<dev.mosaic.format.query.Stats> stats) {
    Aggregator aggregator = new Aggregator(schema, condition, facets, stats);
    for (int i = 0; i < readers.length; i++) {
      if (readers[i] != null) {
        aggregator.add(readers[i]);
      } else {
        aggregator.addForeign(partitions.get(i), condition);
      }
    }
    return aggregator.result();
  }

  @Override
  public void execute(Query query, DocumentProcessor processor) {
    Plan plan = Plan.compile(schema, query);
    if (plan.limit == 0) {
      return;
    }
    if (plan.ordered()) {
      merge(query, plan, processor);
    } else {
      inPartitionOrder(query, plan, processor);
    }
  }

  private void inPartitionOrder(Query query, Plan plan, DocumentProcessor processor) {
    long skip = plan.skip;
    long limit = plan.limit;
    for (int i = 0; i < readers.length && limit > 0; i++) {
      DatabaseReader r = readers[i];
      if (r == null) {
        Database d = partitions.get(i);
        long c = d.count(query);
        if (skip >= c) {
          skip -= c;
          continue;
        }
        long[] emitted = {0};
        boolean[] stopped = {false};
        d.execute(
            query.skip((int) skip).limit((int) Math.min(Integer.MAX_VALUE, limit)),
            (doc, db) -> {
              emitted[0]++;
              if (!processor.process(doc, d)) {
                stopped[0] = true;
                return false;
              }
              return true;
            });
        if (stopped[0]) {
          return;
        }
        limit -= emitted[0];
        skip = 0;
        continue;
      }
      r.ensureOpen();
      Matches m = r.evaluate(plan.condition);
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
      long emitted = r.emitInDocumentOrder(m, skip, limit, processor);
      if (emitted == DatabaseReader.STOPPED) {
        return;
      }
      limit -= emitted;
      skip = 0;
    }
  }

  private void merge(Query query, Plan plan, DocumentProcessor processor) {
    int k = plan.wanted();
    List<Cursor> cursors = new ArrayList<>();
    for (int i = 0; i < readers.length; i++) {
      DatabaseReader r = readers[i];
      Cursor c;
      if (r != null) {
        r.ensureOpen();
        Matches m = r.evaluate(plan.condition);
        if (m.kind == Matches.NONE) {
          continue;
        }
        int[] docs = Ordering.top(r, m, plan.orderFields, plan.descending, k);
        if (docs.length == 0) {
          continue;
        }
        c = new Cursor(i, r, null, docs, plan.orderFields);
      } else {
        Database d = partitions.get(i);
        int[] docs = collect(d, query.skip(0).limit(k));
        if (docs.length == 0) {
          continue;
        }
        c = new Cursor(i, null, d, docs, plan.orderFields);
      }
      c.load();
      cursors.add(c);
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
        if (!processor.process(doc, top.database())) {
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

  private static int[] collect(Database d, Query query) {
    int[] docs = new int[16];
    int[] n = {0};
    int[][] holder = {docs};
    d.execute(
        query,
        (doc, db) -> {
          if (n[0] == holder[0].length) {
            holder[0] = Arrays.copyOf(holder[0], holder[0].length * 2);
          }
          holder[0][n[0]++] = doc;
          return true;
        });
    return Arrays.copyOf(holder[0], n[0]);
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
    final int partition;
    final DatabaseReader reader;
    final Database foreign;
    final int[] docs;
    final int[] orderFields;
    final FieldReader[] fields;
    final int[] ranks;
    final byte[][] bytes;
    int position;

    Cursor(int partition, DatabaseReader reader, Database foreign, int[] docs, int[] orderFields) {
      this.partition = partition;
      this.reader = reader;
      this.foreign = foreign;
      this.docs = docs;
      this.orderFields = orderFields;
      this.fields = new FieldReader[orderFields.length];
      this.ranks = new int[orderFields.length];
      this.bytes = reader == null ? new byte[orderFields.length][] : null;
      if (reader != null) {
        for (int i = 0; i < orderFields.length; i++) {
          fields[i] = reader.field(orderFields[i]);
        }
      }
    }

    Database database() {
      return reader != null ? reader : foreign;
    }

    void load() {
      int doc = docs[position];
      if (reader != null) {
        for (int i = 0; i < fields.length; i++) {
          ranks[i] = fields[i].valueIndex(doc);
        }
      } else {
        for (int i = 0; i < orderFields.length; i++) {
          bytes[i] =
              foreign.sortableBytes(doc, foreign.schema().fields().get(orderFields[i]).name());
        }
      }
    }

    byte[] keyBytes(int key) {
      return reader != null ? fields[key].valueBytes(ranks[key]) : bytes[key];
    }

    int compare(int key, Cursor other) {
      if (reader == null || other.reader == null) {
        return Arrays.compareUnsigned(keyBytes(key), other.keyBytes(key));
      }
      FieldReader a = fields[key];
      FieldReader b = other.fields[key];
      int ra = ranks[key];
      int rb = other.ranks[key];
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
