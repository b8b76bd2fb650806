package dev.mosaic.api.schema.impl;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumValueDescriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import dev.mosaic.format.FieldType;
import java.util.EnumSet;
import java.util.Set;

/**
 * Which Protobuf field types feed which schema field types, and the conversion of a Protobuf value
 * into the Java value {@link FieldType#encode} takes.
 *
 * <table>
 *   <caption>Accepted Protobuf types</caption>
 *   <tr><th>schema type</th><th>Protobuf field types</th></tr>
 *   <tr><td>INT</td><td>int32, sint32, sfixed32</td></tr>
 *   <tr><td>LONG</td><td>int64, sint64, sfixed64, and the 32-bit integers (uint32, fixed32
 *       unsigned)</td></tr>
 *   <tr><td>DOUBLE</td><td>double, float</td></tr>
 *   <tr><td>BOOLEAN</td><td>bool</td></tr>
 *   <tr><td>STRING</td><td>string, an enum (its value's name)</td></tr>
 *   <tr><td>TIMESTAMP</td><td>int64, sint64, sfixed64 (epoch milliseconds), {@code
 *       google.protobuf.Timestamp}</td></tr>
 *   <tr><td>BYTES</td><td>bytes</td></tr>
 * </table>
 *
 * <p>uint64 and fixed64 feed no type: they do not fit a signed long.
 *
 * <p>Thread safety: stateless.
 */
public final class ProtoFieldValues {
  private static final String TIMESTAMP = "google.protobuf.Timestamp";
  private static final Set<FieldDescriptor.Type> SIGNED_32 =
      EnumSet.of(
          FieldDescriptor.Type.INT32, FieldDescriptor.Type.SINT32, FieldDescriptor.Type.SFIXED32);
  private static final Set<FieldDescriptor.Type> UNSIGNED_32 =
      EnumSet.of(FieldDescriptor.Type.UINT32, FieldDescriptor.Type.FIXED32);
  private static final Set<FieldDescriptor.Type> SIGNED_64 =
      EnumSet.of(
          FieldDescriptor.Type.INT64, FieldDescriptor.Type.SINT64, FieldDescriptor.Type.SFIXED64);

  private ProtoFieldValues() {}

  /** True when values of that Protobuf field can feed a schema field of that type. */
  public static boolean accepts(FieldType type, FieldDescriptor proto) {
    FieldDescriptor.Type t = proto.getType();
    return switch (type) {
      case INT -> SIGNED_32.contains(t);
      case LONG -> SIGNED_64.contains(t) || SIGNED_32.contains(t) || UNSIGNED_32.contains(t);
      case DOUBLE -> t == FieldDescriptor.Type.DOUBLE || t == FieldDescriptor.Type.FLOAT;
      case BOOLEAN -> t == FieldDescriptor.Type.BOOL;
      case STRING -> t == FieldDescriptor.Type.STRING || t == FieldDescriptor.Type.ENUM;
      case TIMESTAMP ->
          SIGNED_64.contains(t)
              || (t == FieldDescriptor.Type.MESSAGE
                  && proto.getMessageType().getFullName().equals(TIMESTAMP));
      case BYTES -> t == FieldDescriptor.Type.BYTES;
    };
  }

  /** The Protobuf field's type as a schema file author knows it: {@code int32}, a message name. */
  public static String describe(FieldDescriptor proto) {
    return switch (proto.getType()) {
      case MESSAGE, GROUP -> proto.getMessageType().getFullName();
      case ENUM -> "enum " + proto.getEnumType().getFullName();
      default -> proto.getType().name().toLowerCase(java.util.Locale.ROOT);
    };
  }

  /**
   * The Java value of one Protobuf value (as {@link Message#getField} or {@link
   * Message#getRepeatedField} return it) of a field {@link #accepts} allowed for the type.
   */
  public static Object javaValue(FieldType type, FieldDescriptor proto, Object value) {
    return switch (type) {
      case INT, BOOLEAN -> value;
      case LONG ->
          UNSIGNED_32.contains(proto.getType())
              ? Integer.toUnsignedLong((Integer) value)
              : ((Number) value).longValue();
      case DOUBLE -> ((Number) value).doubleValue();
      case STRING -> value instanceof EnumValueDescriptor e ? e.getName() : value;
      case TIMESTAMP -> value instanceof Message m ? timestampMillis(m) : value;
      case BYTES -> ((ByteString) value).toByteArray();
    };
  }

  private static long timestampMillis(Message timestamp) {
    Descriptor d = timestamp.getDescriptorForType();
    long seconds = (Long) timestamp.getField(d.findFieldByName("seconds"));
    int nanos = (Integer) timestamp.getField(d.findFieldByName("nanos"));
    return Math.addExact(Math.multiplyExact(seconds, 1000L), nanos / 1_000_000);
  }
}
