package dev.mosaic.bench.load;

import dev.mosaic.api.cars.CarOfferGenerator;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;

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

  record Request(String path, String body) {}

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
      return search(
          "{\"filter\":{\"eq\":{\"mark\":\"%s\"}},\"orderBy\":[\"price\"],\"limit\":10}"
              .formatted(pick(MARKS)));
    }
    if (r < 45) {
      String mark = pick(MARKS);
      List<String> models = CarOfferGenerator.models(mark);
      int from = 2005 + random.nextInt(15);
      return search(
          ("{\"filter\":{\"and\":[{\"eq\":{\"mark\":\"%s\"}},{\"eq\":{\"model\":\"%s\"}},"
                  + "{\"between\":{\"year\":[%d,%d]}}]},\"orderBy\":[\"-published\"],\"limit\":20}")
              .formatted(mark, pick(models), from, from + 5));
    }
    if (r < 60) {
      long low = 300_000L + random.nextInt(20) * 100_000L;
      return search(
          ("{\"filter\":{\"and\":[{\"eq\":{\"region\":\"%s\"}},{\"between\":{\"price\":[%d,%d]}}]},"
                  + "\"orderBy\":[\"price\"],\"skip\":20,\"limit\":10}")
              .formatted(pick(REGIONS), low, low * 2));
    }
    if (r < 75) {
      return new Request(
          "/count",
          "{\"filter\":{\"and\":[{\"in\":{\"mark\":[\"%s\",\"%s\",\"%s\"]}},{\"eq\":{\"body_type\":\"%s\"}}]}}"
              .formatted(pick(MARKS), pick(MARKS), pick(MARKS), pick(BODY_TYPES)));
    }
    if (r < 90) {
      return search(
          String.format(
              Locale.ROOT,
              "{\"filter\":{\"and\":[{\"eq\":{\"region\":\"%s\"}},{\"eq\":{\"options\":\"%s\"}},"
                  + "{\"lt\":{\"mileage\":%d}}]},\"orderBy\":[\"-published\"],\"limit\":10}",
              pick(REGIONS),
              pick(OPTIONS),
              20_000 + random.nextInt(150_000)));
    }
    return search("{\"orderBy\":[\"-published\"],\"limit\":10}");
  }

  private static Request search(String body) {
    return new Request("/search", body);
  }
}
