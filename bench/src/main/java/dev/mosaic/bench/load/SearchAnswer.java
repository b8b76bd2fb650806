package dev.mosaic.bench.load;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.util.Arrays;

/**
 * What the load tool checks in a {@code /search} or {@code /count} answer, read with a streaming
 * parser (no tree): the top-level {@code total}, the number of {@code hits}, and each hit's {@code
 * values.price} when present. Payloads and other fields are skipped without being built.
 *
 * <p>Thread safety: immutable; {@link #parse} is stateless.
 *
 * @param total the answer's {@code total}, or -1 when it has none
 * @param hits how many hits it carries (0 without {@code hits})
 * @param prices each hit's {@code values.price}, {@link Long#MIN_VALUE} where absent
 */
record SearchAnswer(long total, int hits, long[] prices) {
  private static final JsonFactory JSON = new JsonFactory();

  /**
   * Reads an answer.
   *
   * @throws IOException when it is not a JSON object
   */
  static SearchAnswer parse(byte[] body) throws IOException {
    long total = -1;
    int hits = 0;
    long[] prices = new long[16];
    try (JsonParser p = JSON.createParser(body)) {
      if (p.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException("answer is not a JSON object");
      }
      for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
        String name = p.currentName();
        JsonToken v = p.nextToken();
        if (name.equals("total") && v == JsonToken.VALUE_NUMBER_INT) {
          total = p.getLongValue();
        } else if (name.equals("hits") && v == JsonToken.START_ARRAY) {
          while (p.nextToken() == JsonToken.START_OBJECT) {
            if (hits == prices.length) {
              prices = Arrays.copyOf(prices, hits * 2);
            }
            prices[hits++] = priceOf(p);
          }
        } else {
          p.skipChildren();
        }
      }
    }
    return new SearchAnswer(total, hits, Arrays.copyOf(prices, hits));
  }

  /** Reads one hit object (the parser on its start) and returns its {@code values.price}. */
  private static long priceOf(JsonParser p) throws IOException {
    long price = Long.MIN_VALUE;
    for (JsonToken t = p.nextToken(); t == JsonToken.FIELD_NAME; t = p.nextToken()) {
      String name = p.currentName();
      JsonToken v = p.nextToken();
      if (name.equals("values") && v == JsonToken.START_OBJECT) {
        for (JsonToken f = p.nextToken(); f == JsonToken.FIELD_NAME; f = p.nextToken()) {
          String field = p.currentName();
          JsonToken fv = p.nextToken();
          if (field.equals("price") && fv.isNumeric()) {
            price = p.getLongValue();
          } else {
            p.skipChildren();
          }
        }
      } else {
        p.skipChildren();
      }
    }
    return price;
  }
}
