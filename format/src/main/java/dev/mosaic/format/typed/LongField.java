package dev.mosaic.format.typed;

import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;

/** A handle on a LONG field: values are {@link Long}. Immutable. */
public final class LongField extends TypedField<Long> {
  private LongField(Schema schema, String name) {
    super(schema, name, FieldType.LONG, Long.class);
  }

  /**
   * The handle of the schema's field {@code name}.
   *
   * @throws IllegalArgumentException when there is no such field or it is not LONG
   */
  public static LongField of(Schema schema, String name) {
    return new LongField(schema, name);
  }
}
