package dev.mosaic.api.realty;

import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.api.schema.BuiltInSchemas;
import dev.mosaic.format.Schema;

/**
 * The schema of realty offer partitions, as the schema file {@value BuiltInSchemas#REALTY_RESOURCE}
 * declares it; every payload is a serialized {@link RealtyOffer}. The constants name its fields for
 * queries.
 *
 * <p>Field choice, as for cars: what people pick from a list (deal type, property type, city,
 * district, metro station, partner, features) is a FILTERABLE string; what people filter by range
 * and sort by (rooms, area, price, building year, published) is FULL. {@code floor} is FILTERABLE,
 * so houses, which have no floor of their own ({@code floor} 0 in the payload), have no value.
 *
 * <p>Thread safety: stateless; {@link #SCHEMA} is immutable.
 */
public final class RealtySchema {
  /** The schema version written to every realty partition file. */
  public static final int VERSION = 1;

  public static final String DEAL_TYPE = "deal_type";
  public static final String PROPERTY_TYPE = "property_type";
  public static final String CITY = "city";
  public static final String DISTRICT = "district";
  public static final String METRO_STATION = "metro_station";
  public static final String PARTNER = "partner";
  public static final String OFFER_ID = "offer_id";
  public static final String DEDUP_KEY = "dedup_key";
  public static final String FEATURES = "features";
  public static final String FLOOR = "floor";
  public static final String ROOMS = "rooms";
  public static final String AREA = "area";
  public static final String PRICE = "price";
  public static final String BUILDING_YEAR = "building_year";
  public static final String PUBLISHED = "published";

  /** The schema of realty offer partitions. */
  public static final Schema SCHEMA = BuiltInSchemas.realty().schema();

  private RealtySchema() {}
}
