package dev.mosaic.bench.freshness;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.mosaic.api.OfferPartitioning;
import dev.mosaic.api.feed.CarOffer;
import java.util.ArrayList;
import java.util.List;
import java.util.function.IntPredicate;

/** Changed offers and searcher answers for the freshness tests. */
final class Offers {
  static final ObjectMapper JSON = new ObjectMapper();

  private Offers() {}

  /** {@code n} offers with distinct ids and dedup keys, price and mileage from the index. */
  static List<CarOffer> changed(int n) {
    List<CarOffer> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(
          CarOffer.newBuilder()
              .setOfferId("partner-001-" + i)
              .setPartnerId("partner-001")
              .setDedupKey("car-" + i)
              .setPriceRub(1_000_000L + i * 1000L)
              .setMileageKm(20_000 + i)
              .build());
    }
    return out;
  }

  /**
   * A searcher's answer to a search of these offers: the new content of those in a partition {@code
   * fresh} accepts, the old one (lower mileage) of the others.
   */
  static JsonNode answer(List<CarOffer> asked, int partitions, IntPredicate fresh) {
    ObjectNode answer = JSON.createObjectNode();
    answer.put("total", asked.size());
    ArrayNode hits = answer.putArray("hits");
    for (CarOffer o : asked) {
      int p = OfferPartitioning.partitionOf(o.getDedupKey(), partitions);
      ObjectNode hit = hits.addObject();
      hit.put("partition", p);
      hit.put("document", 0);
      ObjectNode values = hit.putObject("values");
      values.put("price", o.getPriceRub());
      values.put("mileage", fresh.test(p) ? o.getMileageKm() : o.getMileageKm() - 100);
    }
    return answer;
  }

  /** The offer ids a search body asks for. */
  static List<String> idsOf(JsonNode body) {
    List<String> ids = new ArrayList<>();
    body.path("filter").path("in").path("offer_id").forEach(n -> ids.add(n.asText()));
    return ids;
  }
}
