package dev.mosaic.format;

import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** Order-preserving conversions between typed values and comparable bytes. */
final class ComparableBytes {
  private ComparableBytes() {}

  static byte[] encode(FieldType type, Object value) {
    if (value == null) {
      throw new IllegalArgumentException("null is not a " + type + " value");
    }
    return switch (type) {
      case INT -> {
        if (!(value instanceof Integer i)) {
          throw wrongType(type, value);
        }
        yield ofInt(i);
      }
      case LONG -> {
        if (value instanceof Long l) {
          yield ofLong(l);
        } else if (value instanceof Integer i) {
          yield ofLong(i.longValue());
        }
        throw wrongType(type, value);
      }
      case DOUBLE -> {
        double d;
        if (value instanceof Double x) {
          d = x;
        } else if (value instanceof Float x) {
          d = x;
        } else if (value instanceof Integer x) {
          d = x;
        } else if (value instanceof Long x) {
          d = x;
        } else {
          throw wrongType(type, value);
        }
        yield ofDouble(d);
      }
      case BOOLEAN -> {
        if (!(value instanceof Boolean b)) {
          throw wrongType(type, value);
        }
        yield ofBoolean(b);
      }
      case STRING -> {
        if (!(value instanceof String s)) {
          throw wrongType(type, value);
        }
        yield s.getBytes(StandardCharsets.UTF_8);
      }
      case TIMESTAMP -> {
        long millis;
        if (value instanceof Instant t) {
          millis = t.toEpochMilli();
        } else if (value instanceof Long l) {
          millis = l;
        } else {
          throw wrongType(type, value);
        }
        yield ofLong(millis);
      }
      case BYTES -> {
        if (!(value instanceof byte[] b)) {
          throw wrongType(type, value);
        }
        yield b.clone();
      }
    };
  }

  static Object decode(FieldType type, byte[] b) {
    return switch (type) {
      case INT -> {
        checkLength(type, b, 4);
        yield readInt(b) ^ Integer.MIN_VALUE;
      }
      case LONG -> {
        checkLength(type, b, 8);
        yield readLong(b) ^ Long.MIN_VALUE;
      }
      case DOUBLE -> {
        checkLength(type, b, 8);
        long bits = readLong(b);
        bits = bits < 0 ? bits ^ Long.MIN_VALUE : ~bits;
        yield Double.longBitsToDouble(bits);
      }
      case BOOLEAN -> {
        checkLength(type, b, 1);
        yield b[0] != 0;
      }
      case STRING -> new String(b, StandardCharsets.UTF_8);
      case TIMESTAMP -> {
        checkLength(type, b, 8);
        yield Instant.ofEpochMilli(readLong(b) ^ Long.MIN_VALUE);
      }
      case BYTES -> b.clone();
    };
  }

  /** Fixed width of a type's encoding, or -1 when variable (STRING, BYTES). */
  static int fixedWidth(FieldType type) {
    return switch (type) {
      case INT -> 4;
      case LONG, DOUBLE, TIMESTAMP -> 8;
      case BOOLEAN -> 1;
      case STRING, BYTES -> -1;
    };
  }

  private static IllegalArgumentException wrongType(FieldType type, Object value) {
    return new IllegalArgumentException(
        "expected a "
            + type
            + " value but got "
            + value.getClass().getSimpleName()
            + " ("
            + value
            + ")");
  }

  private static void checkLength(FieldType type, byte[] b, int len) {
    if (b.length != len) {
      throw new IllegalArgumentException(
          type + " value must be " + len + " bytes, got " + b.length);
    }
  }

  /** An INT value's comparable bytes. */
  static byte[] ofInt(int value) {
    return intBytes(value ^ Integer.MIN_VALUE);
  }

  /** A LONG value's (or a TIMESTAMP's epoch milliseconds') comparable bytes. */
  static byte[] ofLong(long value) {
    return longBytes(value ^ Long.MIN_VALUE);
  }

  /** A DOUBLE value's comparable bytes. */
  static byte[] ofDouble(double value) {
    long bits = Double.doubleToLongBits(value);
    return longBytes(bits < 0 ? ~bits : bits ^ Long.MIN_VALUE);
  }

  /** A BOOLEAN value's comparable bytes. */
  static byte[] ofBoolean(boolean value) {
    return new byte[] {(byte) (value ? 1 : 0)};
  }

  private static byte[] intBytes(int v) {
    return new byte[] {(byte) (v >>> 24), (byte) (v >>> 16), (byte) (v >>> 8), (byte) v};
  }

  private static byte[] longBytes(long v) {
    byte[] b = new byte[8];
    for (int i = 7; i >= 0; i--) {
      b[i] = (byte) v;
      v >>>= 8;
    }
    return b;
  }

  private static int readInt(byte[] b) {
    return (b[0] & 0xff) << 24 | (b[1] & 0xff) << 16 | (b[2] & 0xff) << 8 | (b[3] & 0xff);
  }

  private static long readLong(byte[] b) {
    long v = 0;
    for (int i = 0; i < 8; i++) {
      v = v << 8 | (b[i] & 0xff);
    }
    return v;
  }
}
