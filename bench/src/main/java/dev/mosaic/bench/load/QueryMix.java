package dev.mosaic.bench.load;

import dev.mosaic.api.cars.CarOfferGenerator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * The searcher's benchmark query mix over the cars data set: what a classifieds front end asks.
 * Most requests are filtered, sorted first pages with payloads; some are counts (facet-like
 * badges).
 *
 * <ul>
 *   <li>25%: mark, sorted by price ascending, first page of 10
 *   <li>20%: mark and model, year range, newest first, 20 hits
 *   <li>15%: region and price range, by price, page 3 of 10
 *   <li>15%: count of several marks with one body type
 *   <li>15%: region, an equipment option, mileage below a bound, newest first, 10 hits
 *   <li>10%: everything, newest first, 10 hits (the front page)
 * </ul>
 *
 * <p>Thread safety: not thread safe; one per load thread.
 */
final class QueryMix {
  private static final List<String> MARKS = CarOfferGenerator.marks();
  private static final List<String> REGIONS = CarOfferGenerator.regions();
  private static final List<String> BODY_TYPES = CarOfferGenerator.bodyTypes();
  private static final List<String> OPTIONS = CarOfferGenerator.options();

  private final SplittableRandom random;

  /**
   * One request and what its answer must satisfy.
   *
   * @param path {@code /search} or {@code /count}
   * @param body the JSON query
   * @param expect the total the reference expects
   * @param skip the search's skip (0 for a count)
   * @param limit the search's limit (-1 for a count, which has no hits)
   * @param byPrice whether hits must come by ascending price
   */
  record Request(
      String path,
      String body,
      ReferenceCounts.Expectation expect,
      int skip,
      int limit,
      boolean byPrice) {}

  QueryMix(long seed) {
    this.random = new SplittableRandom(seed);
  }

  /** Popular values more often: the head of each list (most popular first) is picked most. */
  private String pick(List<String> values) {
    double u = random.nextDouble();
    return values.get((int) (u * u * values.size()));
  }

  Request next() {
    int r = random.nextInt(100);
    if (r < 25) {
      String mark = pick(MARKS);
      return new Request(
          "/search",
          "{\"filter\":{\"eq\":{\"mark\":\"%s\"}},\"orderBy\":[\"price\"],\"limit\":10}"
              .formatted(mark),
          new ReferenceCounts.MarkTotal(mark),
          0,
          10,
          true);
    }
    if (r < 45) {
      String mark = pick(MARKS);
      List<String> models = CarOfferGenerator.models(mark);
      int from = 2005 + random.nextInt(15);
      return search(
          ("{\"filter\":{\"and\":[{\"eq\":{\"mark\":\"%s\"}},{\"eq\":{\"model\":\"%s\"}},"
                  + "{\"between\":{\"year\":[%d,%d]}}]},\"orderBy\":[\"-published\"],\"limit\":20}")
              .formatted(mark, pick(models), from, from + 5),
          0,
          20);
    }
    if (r < 60) {
      long low = 300_000L + random.nextInt(20) * 100_000L;
      return new Request(
          "/search",
          ("{\"filter\":{\"and\":[{\"eq\":{\"region\":\"%s\"}},{\"between\":{\"price\":[%d,%d]}}]},"
                  + "\"orderBy\":[\"price\"],\"skip\":20,\"limit\":10}")
              .formatted(pick(REGIONS), low, low * 2),
          new ReferenceCounts.Unchecked(),
          20,
          10,
          true);
    }
    if (r < 75) {
      String a = pick(MARKS);
      String b = pick(MARKS);
      String c = pick(MARKS);
      String body = pick(BODY_TYPES);
      return new Request(
          "/count",
          "{\"filter\":{\"and\":[{\"in\":{\"mark\":[\"%s\",\"%s\",\"%s\"]}},{\"eq\":{\"body_type\":\"%s\"}}]}}"
              .formatted(a, b, c, body),
          new ReferenceCounts.MarksBodyTotal(Stream.of(a, b, c).collect(Collectors.toSet()), body),
          0,
          -1,
          false);
    }
    if (r < 90) {
      return search(
          String.format(
              Locale.ROOT,
              "{\"filter\":{\"and\":[{\"eq\":{\"region\":\"%s\"}},{\"eq\":{\"options\":\"%s\"}},"
                  + "{\"lt\":{\"mileage\":%d}}]},\"orderBy\":[\"-published\"],\"limit\":10}",
              pick(REGIONS),
              pick(OPTIONS),
              20_000 + random.nextInt(150_000)),
          0,
          10);
    }
    return new Request(
        "/search",
        "{\"orderBy\":[\"-published\"],\"limit\":10}",
        new ReferenceCounts.AllTotal(),
        0,
        10,
        false);
  }

  /** A search whose total the reference does not know (range filters): hits are still checked. */
  private static Request search(String body, int skip, int limit) {
    return new Request("/search", body, new ReferenceCounts.Unchecked(), skip, limit, false);
  }
}
