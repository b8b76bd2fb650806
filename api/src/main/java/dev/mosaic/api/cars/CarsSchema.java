package dev.mosaic.api.cars;

import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;

/**
 * The canonical schema of car offer partitions (schema version {@value #VERSION}); every payload is
 * a serialized {@link CarOffer}.
 *
 * <p>Field choice. Fields people filter on by equality or {@code in} (region, mark, model, body
 * type, color, partner, equipment options) are FILTERABLE strings: their value sets are small and
 * {@code eq}/{@code in} on them is a dictionary look-up. Numbers people both filter on by range and
 * sort by (year, price, mileage, published) are FULL: one value per document, usable in ranges and
 * in {@code orderBy}. {@code offer_id} and {@code dedup_key} are FILTERABLE so one offer, or all
 * copies of one car listed by several partners, can be found by key; they are high-cardinality,
 * which costs about one dictionary entry per document. {@code options} is the one multi-valued
 * field (zero or more values per offer).
 *
 * <table>
 *   <caption>Fields</caption>
 *   <tr><th>name</th><th>type</th><th>role</th><th>from {@link CarOffer}</th></tr>
 *   <tr><td>region</td><td>STRING</td><td>FILTERABLE</td><td>region</td></tr>
 *   <tr><td>mark</td><td>STRING</td><td>FILTERABLE</td><td>mark</td></tr>
 *   <tr><td>model</td><td>STRING</td><td>FILTERABLE</td><td>model</td></tr>
 *   <tr><td>body_type</td><td>STRING</td><td>FILTERABLE</td><td>body_type</td></tr>
 *   <tr><td>color</td><td>STRING</td><td>FILTERABLE</td><td>color</td></tr>
 *   <tr><td>partner</td><td>STRING</td><td>FILTERABLE</td><td>partner_id</td></tr>
 *   <tr><td>offer_id</td><td>STRING</td><td>FILTERABLE</td><td>offer_id</td></tr>
 *   <tr><td>dedup_key</td><td>STRING</td><td>FILTERABLE</td><td>dedup_key</td></tr>
 *   <tr><td>options</td><td>STRING</td><td>FILTERABLE, 0..n</td><td>options</td></tr>
 *   <tr><td>year</td><td>INT</td><td>FULL</td><td>year</td></tr>
 *   <tr><td>price</td><td>LONG</td><td>FULL</td><td>price_rub</td></tr>
 *   <tr><td>mileage</td><td>INT</td><td>FULL</td><td>mileage_km</td></tr>
 *   <tr><td>published</td><td>TIMESTAMP</td><td>FULL</td><td>published_at_millis</td></tr>
 * </table>
 *
 * <p>Thread safety: stateless; {@link #SCHEMA} is immutable.
 */
public final class CarsSchema {
  /** The schema version written to every car partition file. */
  public static final int VERSION = 1;

  /** The payload type: the full Protobuf name of {@link CarOffer}. */
  public static final String PAYLOAD_TYPE = CarOffer.getDescriptor().getFullName();

  public static final String REGION = "region";
  public static final String MARK = "mark";
  public static final String MODEL = "model";
  public static final String BODY_TYPE = "body_type";
  public static final String COLOR = "color";
  public static final String PARTNER = "partner";
  public static final String OFFER_ID = "offer_id";
  public static final String DEDUP_KEY = "dedup_key";
  public static final String OPTIONS = "options";
  public static final String YEAR = "year";
  public static final String PRICE = "price";
  public static final String MILEAGE = "mileage";
  public static final String PUBLISHED = "published";

  /** The schema of car offer partitions. */
  public static final Schema SCHEMA =
      Schema.builder()
          .version(VERSION)
          .payloadType(PAYLOAD_TYPE)
          .field(REGION, FieldType.STRING, FieldRole.FILTERABLE)
          .field(MARK, FieldType.STRING, FieldRole.FILTERABLE)
          .field(MODEL, FieldType.STRING, FieldRole.FILTERABLE)
          .field(BODY_TYPE, FieldType.STRING, FieldRole.FILTERABLE)
          .field(COLOR, FieldType.STRING, FieldRole.FILTERABLE)
          .field(PARTNER, FieldType.STRING, FieldRole.FILTERABLE)
          .field(OFFER_ID, FieldType.STRING, FieldRole.FILTERABLE)
          .field(DEDUP_KEY, FieldType.STRING, FieldRole.FILTERABLE)
          .field(OPTIONS, FieldType.STRING, FieldRole.FILTERABLE)
          .field(YEAR, FieldType.INT, FieldRole.FULL)
          .field(PRICE, FieldType.LONG, FieldRole.FULL)
          .field(MILEAGE, FieldType.INT, FieldRole.FULL)
          .field(PUBLISHED, FieldType.TIMESTAMP, FieldRole.FULL)
          .build();

  private CarsSchema() {}
}
