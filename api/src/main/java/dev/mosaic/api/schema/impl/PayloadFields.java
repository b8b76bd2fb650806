package dev.mosaic.api.schema.impl;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.mosaic.api.schema.FieldSource;
import dev.mosaic.format.Field;
import java.util.List;
import java.util.function.BiConsumer;

/**
 * Reads the indexed values of a payload message along the schema's {@link FieldSource} paths.
 *
 * <p>Presence. A multi-valued field takes every element of its repeated field. A single-valued
 * FILTERABLE field takes the value only when the payload has it: for proto3 fields without explicit
 * presence that means a non-default value (an empty string, a zero are absent; declare the field
 * {@code optional} to index zeros), and a path through an unset message gives no value. SORTABLE
 * and FULL fields take exactly one value, the default when unset (as Protobuf reads it).
 *
 * <p>Thread safety: stateless.
 */
public final class PayloadFields {
  private PayloadFields() {}

  /**
   * Calls {@code sink} with each value, as {@link ProtoFieldValues#javaValue} gives it, field by
   * field in source order.
   */
  public static void forEach(
      List<FieldSource> sources, Message payload, BiConsumer<Field, Object> sink) {
    for (FieldSource source : sources) {
      forEach(source, payload, sink);
    }
  }

  private static void forEach(FieldSource source, Message payload, BiConsumer<Field, Object> sink) {
    Field field = source.field();
    boolean required = field.role().isSortable();
    Message holder = payload;
    List<FieldDescriptor> steps = source.steps();
    for (int i = 0; i < steps.size() - 1; i++) {
      FieldDescriptor step = steps.get(i);
      if (!required && !holder.hasField(step)) {
        return;
      }
      holder = (Message) holder.getField(step);
    }
    FieldDescriptor leaf = source.leaf();
    if (leaf.isRepeated()) {
      int count = holder.getRepeatedFieldCount(leaf);
      for (int i = 0; i < count; i++) {
        sink.accept(
            field,
            ProtoFieldValues.javaValue(field.type(), leaf, holder.getRepeatedField(leaf, i)));
      }
    } else if (required || holder.hasField(leaf)) {
      sink.accept(field, ProtoFieldValues.javaValue(field.type(), leaf, holder.getField(leaf)));
    }
  }
}
