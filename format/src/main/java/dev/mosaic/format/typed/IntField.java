package dev.mosaic.format.typed;

import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;

/** A handle on a INT field: values are {@link Integer}. Immutable. */
public final class IntField extends TypedField<Integer> {
  private IntField(Schema schema, String name) {
    super(schema, name, FieldType.INT, Integer.class);
  }

  /**
   * The handle of the schema's field {@code name}.
   *
   * @throws IllegalArgumentException when there is no such field or it is not INT
   */
  public static IntField of(Schema schema, String name) {
    return new IntField(schema, name);
  }
}
