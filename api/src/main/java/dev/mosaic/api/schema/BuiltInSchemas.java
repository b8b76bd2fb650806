package dev.mosaic.api.schema;

/**
 * The schema files shipped in the api module, read with its own descriptor set ({@link
 * ProtoTypes#builtIn()}): {@value #CARS_RESOURCE} (equal to {@link
 * dev.mosaic.api.cars.CarsSchema#SCHEMA}) and {@value #REALTY_RESOURCE}.
 *
 * <p>Thread safety: stateless; the schemas are immutable.
 */
public final class BuiltInSchemas {
  /** The class path resource of the cars schema file. */
  public static final String CARS_RESOURCE = "mosaic/schemas/cars.schema.json";

  /** The class path resource of the realty schema file. */
  public static final String REALTY_RESOURCE = "mosaic/schemas/realty.schema.json";

  private BuiltInSchemas() {}

  /** The cars index schema. */
  public static IndexSchema cars() {
    return Holder.CARS;
  }

  /** The realty index schema. */
  public static IndexSchema realty() {
    return Holder.REALTY;
  }

  private static final class Holder {
    static final IndexSchema CARS = SchemaFileLoader.resource(CARS_RESOURCE, ProtoTypes.builtIn());
    static final IndexSchema REALTY =
        SchemaFileLoader.resource(REALTY_RESOURCE, ProtoTypes.builtIn());
  }
}
