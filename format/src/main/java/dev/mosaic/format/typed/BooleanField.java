package dev.mosaic.format.typed;

import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;

/** A handle on a BOOLEAN field: values are {@link Boolean}. Immutable. */
public final class BooleanField extends TypedField<Boolean> {
  private BooleanField(Schema schema, String name) {
    super(schema, name, FieldType.BOOLEAN, Boolean.class);
  }

  /**
   * The handle of the schema's field {@code name}.
   *
   * @throws IllegalArgumentException when there is no such field or it is not BOOLEAN
   */
  public static BooleanField of(Schema schema, String name) {
    return new BooleanField(schema, name);
  }
}
