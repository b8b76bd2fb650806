package dev.mosaic.api;

import com.google.protobuf.CodedOutputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.UnsafeByteOperations;
import com.google.protobuf.WireFormat;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * Tells whether serialized bytes of a flat proto3 message are exactly what protobuf-java writes for
 * the message they parse to: then the bytes can stand for {@code parse(bytes).toByteString()}
 * without parsing and serializing again. Canonical means: every field known, of its declared wire
 * type, in ascending field-number order (a repeated field's elements together), no singular field
 * at its default (zero, empty, false, +0.0), varints (tags, lengths, values) in their shortest
 * form, {@code int32} negatives sign-extended to ten bytes, booleans as 1, strings valid UTF-8.
 *
 * <p>Only messages whose fields are all singular or repeated scalars, strings or bytes, without
 * oneofs or explicit presence, are checked; {@link #supports} is false for any other (a nested
 * message, an enum, a map, a packed repeated number), and such bytes are never canonical here.
 *
 * <p>Thread safety: immutable after construction, safe from any thread.
 */
final class CanonicalMessage {
  private static final VarHandle LONGS =
      MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);

  /** The high bit of each of a long's eight bytes: set in no ASCII byte. */
  private static final long HIGH_BITS = 0x8080_8080_8080_8080L;

  /**
   * By field number: its type (null for a number the message does not declare) and whether it is
   * repeated, read from the descriptor once, not per value.
   */
  private final FieldDescriptor.Type[] types;

  private final boolean[] repeated;

  private final boolean supported;

  CanonicalMessage(Descriptor type) {
    int max = 0;
    boolean ok = true;
    for (FieldDescriptor f : type.getFields()) {
      max = Math.max(max, f.getNumber());
      ok &= supported(f);
    }
    this.supported = ok && max <= 1024;
    this.types = new FieldDescriptor.Type[supported ? max + 1 : 0];
    this.repeated = new boolean[types.length];
    if (supported) {
      for (FieldDescriptor f : type.getFields()) {
        types[f.getNumber()] = f.getType();
        repeated[f.getNumber()] = f.isRepeated();
      }
    }
  }

  private static boolean supported(FieldDescriptor f) {
    if (f.getContainingOneof() != null || f.hasPresence() && !f.isRepeated()) {
      return false;
    }
    return switch (f.getType()) {
      case STRING, BYTES -> true;
      case INT32, INT64, BOOL, DOUBLE -> !f.isRepeated(); // repeated numbers are packed
      default -> false;
    };
  }

  /** Whether messages of this type are checked at all. */
  boolean supports() {
    return supported;
  }

  /** Whether {@code bytes[offset, offset + length)} is the canonical encoding of its message. */
  boolean isCanonical(byte[] bytes, int offset, int length) {
    if (!supported) {
      return false;
    }
    WireCursor in = new WireCursor(bytes, offset, offset + length);
    int last = 0;
    while (!in.atEnd()) {
      int before = in.position();
      long tag = in.varint();
      if (tag <= 0 || tag > Integer.MAX_VALUE) {
        return false; // cut, zero or wider than a tag
      }
      if (in.position() - before != CodedOutputStream.computeUInt32SizeNoTag((int) tag)) {
        return false;
      }
      int number = (int) (tag >>> 3);
      FieldDescriptor.Type type = number < types.length ? types[number] : null;
      if (type == null || number < last || (number == last && !repeated[number])) {
        return false;
      }
      last = number;
      if (!canonicalValue(type, repeated[number], (int) tag & 7, in, bytes)) {
        return false;
      }
    }
    return true;
  }

  private static boolean canonicalValue(
      FieldDescriptor.Type type, boolean repeated, int wireType, WireCursor in, byte[] bytes) {
    switch (type) {
      case STRING, BYTES -> {
        if (wireType != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
          return false;
        }
        int before = in.position();
        int length = in.length();
        if (length < 0
            || in.position() - before != CodedOutputStream.computeUInt32SizeNoTag(length)
            || (length == 0 && !repeated)) {
          return false;
        }
        int start = in.skip(length);
        return type != FieldDescriptor.Type.STRING || validUtf8(bytes, start, length);
      }
      case INT32, INT64, BOOL -> {
        if (wireType != WireFormat.WIRETYPE_VARINT) {
          return false;
        }
        int before = in.position();
        long value = in.varint(); // without a whole varint: -1, not moving, so the size differs
        if (value == 0
            || in.position() - before != CodedOutputStream.computeUInt64SizeNoTag(value)) {
          return false;
        }
        return switch (type) {
          case INT32 -> value == (int) value; // negatives sign-extended
          case BOOL -> value == 1;
          default -> true;
        };
      }
      case DOUBLE -> {
        return wireType == WireFormat.WIRETYPE_FIXED64
            && in.remaining() >= Long.BYTES
            && in.fixed64() != 0;
      }
      default -> {
        return false;
      }
    }
  }

  /** Whether the bytes are valid UTF-8 as protobuf checks a string field (no copy). */
  static boolean validUtf8(byte[] bytes, int start, int length) {
    int end = start + length;
    int i = start;
    // eight bytes at a time while they are all ASCII (a payload's text is mostly that)
    while (i <= end - Long.BYTES && ((long) LONGS.get(bytes, i) & HIGH_BITS) == 0) {
      i += Long.BYTES;
    }
    for (; i < end; i++) {
      if (bytes[i] < 0) {
        // the ASCII before it is valid, and a sequence starts here: Protobuf checks the rest
        return UnsafeByteOperations.unsafeWrap(bytes, i, end - i).isValidUtf8();
      }
    }
    return true; // ASCII, as most field values are: no wrapper, no state machine
  }
}
