package dev.mosaic.format.typed;

import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;

/** A handle on a DOUBLE field: values are {@link Double}. Immutable. */
public final class DoubleField extends TypedField<Double> {
  private DoubleField(Schema schema, String name) {
    super(schema, name, FieldType.DOUBLE, Double.class);
  }

  /**
   * The handle of the schema's field {@code name}.
   *
   * @throws IllegalArgumentException when there is no such field or it is not DOUBLE
   */
  public static DoubleField of(Schema schema, String name) {
    return new DoubleField(schema, name);
  }
}
