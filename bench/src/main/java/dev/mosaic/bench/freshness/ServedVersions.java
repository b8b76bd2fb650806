package dev.mosaic.bench.freshness;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.HashMap;
import java.util.Map;

/**
 * A searcher's answer to {@code GET /partitions/served}, {@code {"generation": g, "served":
 * {"<partition>": version, ...}}}, read with a streaming parser: it names every partition and the
 * watch reads it whenever the generation moved, several times a second per searcher.
 *
 * @param generation the generation the searcher serves
 * @param versions the version of each partition in it (unmodifiable)
 */
record ServedVersions(long generation, Map<Integer, Long> versions) {
  private static final JsonFactory JSON = new JsonFactory();

  /**
   * Reads an answer of {@code searcher}.
   *
   * @throws IOException when it is not such an object, or names no generation (none served yet)
   */
  static ServedVersions parse(String searcher, byte[] body) throws IOException {
    long generation = Long.MIN_VALUE;
    Map<Integer, Long> versions = new HashMap<>();
    try (JsonParser in = JSON.createParser(body)) {
      if (in.nextToken() != JsonToken.START_OBJECT) {
        throw new IOException(searcher + " /partitions/served is not a JSON object: " + text(body));
      }
      while (in.nextToken() == JsonToken.FIELD_NAME) {
        String field = in.currentName();
        JsonToken value = in.nextToken();
        if (field.equals("generation") && value == JsonToken.VALUE_NUMBER_INT) {
          generation = in.getLongValue();
        } else if (field.equals("served") && value == JsonToken.START_OBJECT) {
          while (in.nextToken() == JsonToken.FIELD_NAME) {
            int partition = Integer.parseInt(in.currentName());
            if (in.nextToken() != JsonToken.VALUE_NUMBER_INT) {
              throw new IOException(
                  searcher + " /partitions/served: partition " + partition + " has no version");
            }
            versions.put(partition, in.getLongValue());
          }
        } else {
          in.skipChildren();
        }
      }
    }
    if (generation == Long.MIN_VALUE) {
      throw new IOException(searcher + " serves no generation yet: " + text(body));
    }
    return new ServedVersions(generation, Collections.unmodifiableMap(versions));
  }

  private static String text(byte[] body) {
    String s = new String(body, StandardCharsets.UTF_8);
    return s.length() > 200 ? s.substring(0, 200) + "..." : s;
  }
}
