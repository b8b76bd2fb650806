package dev.mosaic.bench.freshness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mosaic.api.OfferPartitioning;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The offers one cycle changed, as a searcher must answer them: grouped by index partition (the
 * indexer rebuilds a partition as a whole, so its changed offers become visible together), each
 * group the sorted (price, mileage) pairs of its offers' new content.
 *
 * <p>A searcher answers a group with its new content when a search for the group's offer ids
 * returns, from that partition, exactly those pairs. Mileage only grows when an offer changes, so
 * an offer still at its old content never matches its own new pair; a stale offer could pass only
 * by carrying another changed offer's exact new pair while that offer is missing, which the exact
 * comparison of the group's whole multiset rules out.
 *
 * <p>Immutable; thread safe.
 */
final class ChangedOffers {
  /** Offer ids per search: below the searcher's {@code max-in-values} and {@code max-limit}. */
  static final int IDS_PER_SEARCH = 1000;

  /** One partition's changed offers. */
  record Group(int partition, List<String> offerIds, List<Content> contents) {
    Group {
      offerIds = List.copyOf(offerIds);
      contents = contents.stream().sorted().toList();
    }
  }

  /** The searchable content the check compares. */
  record Content(long price, long mileage) implements Comparable<Content> {
    @Override
    public int compareTo(Content o) {
      int c = Long.compare(price, o.price);
      return c != 0 ? c : Long.compare(mileage, o.mileage);
    }
  }

  private final SortedMap<Integer, Group> groups;
  private final int offers;

  private ChangedOffers(SortedMap<Integer, Group> groups, int offers) {
    this.groups = groups;
    this.offers = offers;
  }

  /**
   * The changed offers (their new content) grouped by index partition.
   *
   * @throws IllegalArgumentException if an offer id appears twice, a partition has more changed
   *     offers than one search checks, or {@code partitions < 1}
   */
  static ChangedOffers of(Collection<CarOffer> changed, int partitions) {
    Map<Integer, List<String>> ids = new HashMap<>();
    Map<Integer, List<Content>> contents = new HashMap<>();
    Set<String> seen = new HashSet<>();
    for (CarOffer o : changed) {
      if (!seen.add(o.getOfferId())) {
        throw new IllegalArgumentException("offer id '" + o.getOfferId() + "' changed twice");
      }
      int p = OfferPartitioning.partitionOf(o.getDedupKey(), partitions);
      ids.computeIfAbsent(p, k -> new ArrayList<>()).add(o.getOfferId());
      contents
          .computeIfAbsent(p, k -> new ArrayList<>())
          .add(new Content(o.getPriceRub(), o.getMileageKm()));
    }
    SortedMap<Integer, Group> groups = new TreeMap<>();
    for (int p : ids.keySet()) {
      if (ids.get(p).size() > IDS_PER_SEARCH) {
        throw new IllegalArgumentException(
            "partition "
                + p
                + " has "
                + ids.get(p).size()
                + " changed offers, more than the "
                + IDS_PER_SEARCH
                + " one search can check: use more partitions or a smaller change fraction");
      }
      groups.put(p, new Group(p, ids.get(p), contents.get(p)));
    }
    return new ChangedOffers(Collections.unmodifiableSortedMap(groups), seen.size());
  }

  /** Changed offers. */
  int offers() {
    return offers;
  }

  /** The partitions holding changed offers. */
  Set<Integer> partitions() {
    return groups.keySet();
  }

  /** One {@code /search} body and the partitions whose offers it asks for. */
  record Search(List<Integer> partitions, ObjectNode body) {
    Search {
      partitions = List.copyOf(partitions);
    }
  }

  /**
   * The searches that ask for the offers of these partitions: whole groups, at most {@link
   * #IDS_PER_SEARCH} ids per body (a larger group gets a body of its own), asking for the price and
   * mileage of every match and no payload.
   *
   * @throws IllegalArgumentException naming a partition without changed offers
   */
  List<Search> searches(Collection<Integer> pending, ObjectMapper json) {
    List<Search> out = new ArrayList<>();
    List<String> batch = new ArrayList<>();
    List<Integer> covered = new ArrayList<>();
    for (int p : new TreeSet<>(pending)) {
      List<String> ids = group(p).offerIds();
      if (!batch.isEmpty() && batch.size() + ids.size() > IDS_PER_SEARCH) {
        out.add(new Search(covered, body(batch, json)));
        batch = new ArrayList<>();
        covered = new ArrayList<>();
      }
      batch.addAll(ids);
      covered.add(p);
    }
    if (!batch.isEmpty()) {
      out.add(new Search(covered, body(batch, json)));
    }
    return out;
  }

  private static ObjectNode body(List<String> ids, ObjectMapper json) {
    ObjectNode body = json.createObjectNode();
    ArrayNode values = body.putObject("filter").putObject("in").putArray(CarsSchema.OFFER_ID);
    ids.forEach(values::add);
    body.put("limit", ids.size());
    body.putArray("fields").add(CarsSchema.PRICE).add(CarsSchema.MILEAGE);
    body.put("payload", false);
    return body;
  }

  /**
   * The partitions of a search whose changed offers the searcher's answer shows with exactly their
   * new content.
   */
  Set<Integer> answered(Search search, JsonNode answer) {
    Map<Integer, List<Content>> found = new HashMap<>();
    for (JsonNode hit : answer.path("hits")) {
      JsonNode v = hit.path("values");
      found
          .computeIfAbsent(hit.path("partition").asInt(-1), k -> new ArrayList<>())
          .add(
              new Content(
                  v.path(CarsSchema.PRICE).asLong(Long.MIN_VALUE),
                  v.path(CarsSchema.MILEAGE).asLong(Long.MIN_VALUE)));
    }
    Set<Integer> out = new TreeSet<>();
    for (int p : search.partitions()) {
      List<Content> got = found.getOrDefault(p, List.of()).stream().sorted().toList();
      if (got.equals(group(p).contents())) {
        out.add(p);
      }
    }
    return out;
  }

  private Group group(int partition) {
    Group g = groups.get(partition);
    if (g == null) {
      throw new IllegalArgumentException("partition " + partition + " has no changed offer");
    }
    return g;
  }
}
