package dev.mosaic.api.schema;

import com.google.protobuf.Descriptors.FieldDescriptor;
import dev.mosaic.format.Field;
import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Where one schema field's values come from in the payload message: a path of Protobuf fields, each
 * step but the last a singular message field, the last one holding the values.
 *
 * <p>Thread safety: immutable.
 *
 * @param field the schema field
 * @param multiValued true when the field takes 0..n values (then the last step is a repeated
 *     field); false when it takes at most one
 * @param steps the Protobuf fields from the payload message down to the one holding the values
 */
public record FieldSource(Field field, boolean multiValued, List<FieldDescriptor> steps) {
  public FieldSource {
    Objects.requireNonNull(field, "field");
    steps = List.copyOf(steps);
    if (steps.isEmpty()) {
      throw new IllegalArgumentException("field '" + field.name() + "' has an empty source path");
    }
  }

  /** The path as written in a schema file: field names joined by {@code '.'}. */
  public String path() {
    return steps.stream().map(FieldDescriptor::getName).collect(Collectors.joining("."));
  }

  /** The Protobuf field holding the values. */
  public FieldDescriptor leaf() {
    return steps.getLast();
  }
}
