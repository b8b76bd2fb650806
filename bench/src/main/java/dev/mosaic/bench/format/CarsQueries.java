package dev.mosaic.bench.format;

import static dev.mosaic.format.query.Condition.and;
import static dev.mosaic.format.query.Condition.between;
import static dev.mosaic.format.query.Condition.eq;
import static dev.mosaic.format.query.Condition.in;

import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopFieldDocs;
import org.apache.lucene.util.BytesRef;

/**
 * The cars query mix, modeled on the YoctoDB paper's examples, in our DSL and as the equivalent
 * Lucene query and sort:
 *
 * <ul>
 *   <li>{@code COUNT_REGION}: count offers in a region;
 *   <li>{@code TOP_PUBLISHED}: region + mark + price range, top 10 by publication time, newest
 *       first;
 *   <li>{@code BY_PRICE}: mark + model sorted by price ascending, a page of 10 among the first 3;
 *   <li>{@code MARKS_YEARS}: {@code in} on 3 marks with a 5-year range, top 10 by year desc then
 *       price asc.
 * </ul>
 *
 * Listing queries fetch the payload of every hit (a copy into a {@code byte[]}), as serving a
 * result page does; counts fetch nothing. Query values are drawn from randomly chosen offers of the
 * data set (seeded), so popular values are queried more often, as in real traffic.
 */
final class CarsQueries {
  enum Kind {
    COUNT_REGION,
    TOP_PUBLISHED,
    BY_PRICE,
    MARKS_YEARS
  }

  /** One query's parameters. */
  record Spec(
      Kind kind,
      String region,
      String mark,
      String model,
      long priceFrom,
      long priceTo,
      List<String> marks,
      int yearFrom,
      int yearTo,
      int skip) {}

  static final int PAGE = 10;

  private CarsQueries() {}

  /**
   * {@code count} specs; kinds cycle COUNT_REGION, TOP_PUBLISHED, BY_PRICE, MARKS_YEARS when {@code
   * only} is null, else all of kind {@code only}.
   */
  static List<Spec> generate(Path offersDirectory, int count, long seed, Kind only)
      throws IOException {
    SplittableRandom random = new SplittableRandom(seed);
    Map<Integer, List<CarOffer>> partitions = new HashMap<>();
    List<Spec> specs = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      Kind kind = only != null ? only : Kind.values()[i % Kind.values().length];
      CarOffer o = sample(offersDirectory, partitions, random);
      specs.add(
          switch (kind) {
            case COUNT_REGION -> new Spec(kind, o.getRegion(), null, null, 0, 0, null, 0, 0, 0);
            case TOP_PUBLISHED -> {
              long from = roundDown(o.getPriceRub() * 6 / 10);
              long to = roundDown(o.getPriceRub() * 14 / 10);
              yield new Spec(kind, o.getRegion(), o.getMark(), null, from, to, null, 0, 0, 0);
            }
            case BY_PRICE ->
                new Spec(
                    kind,
                    null,
                    o.getMark(),
                    o.getModel(),
                    0,
                    0,
                    null,
                    0,
                    0,
                    PAGE * random.nextInt(3));
            case MARKS_YEARS -> {
              Set<String> marks = new LinkedHashSet<>();
              marks.add(o.getMark());
              while (marks.size() < 3) {
                marks.add(sample(offersDirectory, partitions, random).getMark());
              }
              yield new Spec(
                  kind,
                  null,
                  null,
                  null,
                  0,
                  0,
                  List.copyOf(marks),
                  o.getYear() - 2,
                  o.getYear() + 2,
                  0);
            }
          });
    }
    return specs;
  }

  private static CarOffer sample(
      Path offersDirectory, Map<Integer, List<CarOffer>> cache, SplittableRandom random)
      throws IOException {
    int p = random.nextInt(CarsData.OFFER_FILES);
    List<CarOffer> offers = cache.get(p);
    if (offers == null) {
      offers = CarsData.readOffers(offersDirectory, p);
      cache.put(p, offers);
    }
    return offers.isEmpty()
        ? sample(offersDirectory, cache, random)
        : offers.get(random.nextInt(offers.size()));
  }

  private static long roundDown(long price) {
    return price / 50_000 * 50_000;
  }

  // ---- ours

  /** Our query for a spec. */
  static Query ours(Spec s) {
    return switch (s.kind()) {
      case COUNT_REGION -> Query.where(eq(CarsSchema.REGION, s.region()));
      case TOP_PUBLISHED ->
          Query.where(
                  and(
                      eq(CarsSchema.REGION, s.region()),
                      eq(CarsSchema.MARK, s.mark()),
                      between(CarsSchema.PRICE, s.priceFrom(), true, s.priceTo(), true)))
              .orderBy(Order.desc(CarsSchema.PUBLISHED))
              .limit(PAGE);
      case BY_PRICE ->
          Query.where(and(eq(CarsSchema.MARK, s.mark()), eq(CarsSchema.MODEL, s.model())))
              .orderBy(Order.asc(CarsSchema.PRICE))
              .skip(s.skip())
              .limit(PAGE);
      case MARKS_YEARS ->
          Query.where(
                  and(
                      in(CarsSchema.MARK, s.marks()),
                      between(CarsSchema.YEAR, s.yearFrom(), true, s.yearTo(), true)))
              .orderBy(Order.desc(CarsSchema.YEAR), Order.asc(CarsSchema.PRICE))
              .limit(PAGE);
    };
  }

  /** Runs one query on ours: the count, or the total payload bytes of the hits fetched. */
  static long runOurs(CompositeDatabase db, Spec s, Query q) {
    if (s.kind() == Kind.COUNT_REGION) {
      return db.count(q);
    }
    long[] bytes = {0};
    db.execute(
        q,
        (doc, partition) -> {
          bytes[0] += partition.payloadBytes(doc).length; // one copy, as Lucene's stored field
          return true;
        });
    return bytes[0];
  }

  // ---- Lucene

  /** A Lucene query with its sort (null for counts). */
  record LuceneQuery(org.apache.lucene.search.Query query, Sort sort, int skip) {}

  static LuceneQuery lucene(Spec s) {
    return switch (s.kind()) {
      case COUNT_REGION ->
          new LuceneQuery(new TermQuery(new Term(CarsSchema.REGION, s.region())), null, 0);
      case TOP_PUBLISHED ->
          new LuceneQuery(
              new BooleanQuery.Builder()
                  .add(
                      new TermQuery(new Term(CarsSchema.REGION, s.region())),
                      BooleanClause.Occur.FILTER)
                  .add(
                      new TermQuery(new Term(CarsSchema.MARK, s.mark())),
                      BooleanClause.Occur.FILTER)
                  .add(
                      LongPoint.newRangeQuery(CarsSchema.PRICE, s.priceFrom(), s.priceTo()),
                      BooleanClause.Occur.FILTER)
                  .build(),
              new Sort(new SortField(CarsSchema.PUBLISHED, SortField.Type.LONG, true)),
              0);
      case BY_PRICE ->
          new LuceneQuery(
              new BooleanQuery.Builder()
                  .add(
                      new TermQuery(new Term(CarsSchema.MARK, s.mark())),
                      BooleanClause.Occur.FILTER)
                  .add(
                      new TermQuery(new Term(CarsSchema.MODEL, s.model())),
                      BooleanClause.Occur.FILTER)
                  .build(),
              new Sort(new SortField(CarsSchema.PRICE, SortField.Type.LONG)),
              s.skip());
      case MARKS_YEARS ->
          new LuceneQuery(
              new BooleanQuery.Builder()
                  .add(
                      new TermInSetQuery(
                          CarsSchema.MARK, s.marks().stream().map(BytesRef::new).toList()),
                      BooleanClause.Occur.FILTER)
                  .add(
                      IntPoint.newRangeQuery(CarsSchema.YEAR, s.yearFrom(), s.yearTo()),
                      BooleanClause.Occur.FILTER)
                  .build(),
              new Sort(
                  new SortField(CarsSchema.YEAR, SortField.Type.INT, true),
                  new SortField(CarsSchema.PRICE, SortField.Type.LONG)),
              0);
    };
  }

  /** Runs one query on Lucene: the count, or the total payload bytes of the hits fetched. */
  static long runLucene(IndexSearcher searcher, LuceneQuery q) throws IOException {
    if (q.sort() == null) {
      return searcher.count(q.query());
    }
    TopFieldDocs top = searcher.search(q.query(), q.skip() + PAGE, q.sort());
    StoredFields stored = searcher.storedFields();
    long bytes = 0;
    for (int i = q.skip(); i < top.scoreDocs.length; i++) {
      bytes += stored.document(top.scoreDocs[i].doc).getBinaryValue(CarsData.PAYLOAD).length;
    }
    return bytes;
  }

  // ---- agreement check

  /**
   * Compares both engines on a spec: the counts of the condition, the sort keys of the page, and
   * the documents themselves (their payload bytes, which hold the offer id) wherever the sort keys
   * determine them: every group of equal sort keys whose extent is known on both sides (an untied
   * position is a group of one) must hold the same documents. To see the extent of the groups at
   * the page's edges, both sides fetch one hit before the page (when it skips) and one after.
   * Returns null when they agree, else a description of the difference.
   */
  static String disagreement(CompositeDatabase ours, IndexSearcher lucene, Spec s)
      throws IOException {
    Query q = ours(s);
    LuceneQuery lq = lucene(s);
    long oursCount = ours.count(q);
    long luceneCount = lucene.count(lq.query());
    if (oursCount != luceneCount) {
      return s + ": count ours=" + oursCount + " lucene=" + luceneCount;
    }
    if (lq.sort() == null) {
      return null;
    }
    int start = Math.max(0, lq.skip() - 1);
    int want = lq.skip() + PAGE + 1 - start;
    List<Hit> oursHits = new ArrayList<>();
    ours.execute(
        q.skip(start).limit(want),
        (doc, partition) -> {
          oursHits.add(new Hit(sortKeys(partition, doc, q.orders()), partition.payloadBytes(doc)));
          return true;
        });
    List<Hit> luceneHits = new ArrayList<>();
    ScoreDoc[] hits = lucene.search(lq.query(), start + want, lq.sort()).scoreDocs;
    StoredFields stored = lucene.storedFields();
    for (int i = start; i < hits.length; i++) {
      List<Long> keys = new ArrayList<>();
      for (Object v : ((FieldDoc) hits[i]).fields) {
        keys.add(((Number) v).longValue());
      }
      luceneHits.add(
          new Hit(
              keys, stored.document(hits[i].doc).getBinaryValue(CarsData.PAYLOAD).bytes.clone()));
    }
    List<List<Long>> oursKeys = oursHits.stream().map(Hit::keys).toList();
    List<List<Long>> luceneKeys = luceneHits.stream().map(Hit::keys).toList();
    if (!oursKeys.equals(luceneKeys)) {
      return s + ": sort keys ours=" + oursKeys + " lucene=" + luceneKeys;
    }
    int n = oursHits.size();
    for (int a = 0; a < n; ) {
      int b = a;
      while (b + 1 < n && oursKeys.get(b + 1).equals(oursKeys.get(a))) {
        b++;
      }
      boolean known = (a > 0 || start == 0) && (b < n - 1 || n < want);
      if (known && !samePayloads(oursHits.subList(a, b + 1), luceneHits.subList(a, b + 1))) {
        return s
            + ": documents at "
            + (start + a)
            + ".."
            + (start + b)
            + " ours="
            + offerIds(oursHits.subList(a, b + 1))
            + " lucene="
            + offerIds(luceneHits.subList(a, b + 1));
      }
      a = b + 1;
    }
    return null;
  }

  /** One hit of a listing: its sort keys and its payload bytes. */
  private record Hit(List<Long> keys, byte[] payload) {}

  /** True when both groups hold the same payloads, byte for byte, in any order. */
  private static boolean samePayloads(List<Hit> a, List<Hit> b) {
    List<byte[]> x = new ArrayList<>(a.stream().map(Hit::payload).toList());
    List<byte[]> y = new ArrayList<>(b.stream().map(Hit::payload).toList());
    x.sort(Arrays::compare);
    y.sort(Arrays::compare);
    for (int i = 0; i < x.size(); i++) {
      if (!Arrays.equals(x.get(i), y.get(i))) {
        return false;
      }
    }
    return x.size() == y.size();
  }

  /** The offer ids of the hits' payloads, sorted (a group of equal keys has no inner order). */
  private static List<String> offerIds(List<Hit> hits) {
    List<String> ids = new ArrayList<>(hits.size());
    for (Hit h : hits) {
      try {
        CarOffer o = CarOffer.parseFrom(h.payload());
        ids.add(o.getPartnerId() + "/" + o.getOfferId());
      } catch (com.google.protobuf.InvalidProtocolBufferException e) {
        ids.add("unparseable payload of " + h.payload().length + " bytes");
      }
    }
    ids.sort(null);
    return ids;
  }

  private static List<Long> sortKeys(Database partition, int doc, List<Order> orders) {
    List<Long> keys = new ArrayList<>(orders.size());
    for (Order o : orders) {
      Object v = partition.sortableValue(doc, o.field());
      keys.add(v instanceof Instant t ? t.toEpochMilli() : ((Number) v).longValue());
    }
    return keys;
  }
}
