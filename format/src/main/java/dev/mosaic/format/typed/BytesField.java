package dev.mosaic.format.typed;

import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;

/** A handle on a BYTES field: values are {@code byte[]}. Immutable. */
public final class BytesField extends TypedField<byte[]> {
  private BytesField(Schema schema, String name) {
    super(schema, name, FieldType.BYTES, byte[].class);
  }

  /**
   * The handle of the schema's field {@code name}.
   *
   * @throws IllegalArgumentException when there is no such field or it is not BYTES
   */
  public static BytesField of(Schema schema, String name) {
    return new BytesField(schema, name);
  }
}
