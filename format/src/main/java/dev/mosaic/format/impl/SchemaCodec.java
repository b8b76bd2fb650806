package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.*;

import dev.mosaic.format.CorruptDatabaseException;
import dev.mosaic.format.Field;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;

/**
 * The schema segment's codec: {@link #encode} for the writers, {@link #decode} for the reader, one
 * layout (version, payload type, then per field its name, type code and role code).
 */
final class SchemaCodec {
  private SchemaCodec() {}

  /** The schema segment's bytes. */
  static ByteSink encode(Schema schema) {
    ByteSink sink = new ByteSink(64);
    sink.putInt(schema.version());
    byte[] payloadType = schema.payloadType().getBytes(StandardCharsets.UTF_8);
    checkShortString("payload type", payloadType);
    sink.putShort(payloadType.length).putBytes(payloadType);
    sink.putInt(schema.fields().size());
    for (Field f : schema.fields()) {
      byte[] name = f.name().getBytes(StandardCharsets.UTF_8);
      checkShortString("field name", name);
      sink.putShort(name.length)
          .putBytes(name)
          .putByte(typeCode(f.type()))
          .putByte(roleCode(f.role()));
    }
    return sink;
  }

  private static void checkShortString(String what, byte[] utf8) {
    if (utf8.length > 0xFFFF) {
      throw new IllegalArgumentException(what + " longer than 65535 UTF-8 bytes");
    }
  }

  /**
   * Decoded schemas by their encoded bytes, so that the many partitions of one schema share one
   * {@link Schema} instance (a few hundred bytes each otherwise). Bounded: cleared when full.
   */
  private static final java.util.concurrent.ConcurrentHashMap<java.nio.ByteBuffer, Schema> CACHE =
      new java.util.concurrent.ConcurrentHashMap<>();

  private static final int CACHE_LIMIT = 64;

  static Schema decode(MemorySegment data, long base, long length, String source)
      throws CorruptDatabaseException {
    if (length > 1 << 20) {
      return parse(data, base, length, source);
    }
    java.nio.ByteBuffer key =
        java.nio.ByteBuffer.wrap(data.asSlice(base, length).toArray(ValueLayout.JAVA_BYTE));
    Schema cached = CACHE.get(key);
    if (cached != null) {
      return cached;
    }
    Schema schema = parse(data, base, length, source);
    if (CACHE.size() >= CACHE_LIMIT) {
      CACHE.clear();
    }
    Schema raced = CACHE.putIfAbsent(key, schema);
    return raced != null ? raced : schema;
  }

  private static Schema parse(MemorySegment data, long base, long length, String source)
      throws CorruptDatabaseException {
    long end = base + length;
    long at = base;
    try {
      int version = data.get(INT, at);
      at += 4;
      int len = data.get(SHORT, at) & 0xFFFF;
      at += 2;
      String payloadType = string(data, at, len, end);
      at += len;
      int count = data.get(INT, at);
      at += 4;
      if (count < 0 || count > length) {
        throw new CorruptDatabaseException(source, "schema", at - 4, "bad field count " + count);
      }
      Schema.Builder b = Schema.builder().version(version).payloadType(payloadType);
      for (int i = 0; i < count; i++) {
        len = data.get(SHORT, at) & 0xFFFF;
        at += 2;
        String name = string(data, at, len, end);
        at += len;
        FieldType type = typeOf(data.get(ValueLayout.JAVA_BYTE, at));
        FieldRole role = roleOf(data.get(ValueLayout.JAVA_BYTE, at + 1));
        if (type == null || role == null) {
          throw new CorruptDatabaseException(
              source, "schema", at, "unknown type or role of field '" + name + "'");
        }
        at += 2;
        b.field(name, type, role);
      }
      if (at > end) {
        throw new CorruptDatabaseException(source, "schema", end, "schema exceeds its segment");
      }
      return b.build();
    } catch (IndexOutOfBoundsException | IllegalArgumentException e) {
      throw new CorruptDatabaseException(
          source, "schema", at, "unreadable schema: " + e.getMessage());
    }
  }

  private static String string(MemorySegment data, long at, int len, long end) {
    if (at + len > end) {
      throw new IndexOutOfBoundsException("string of " + len + " bytes exceeds the schema segment");
    }
    byte[] b = new byte[len];
    MemorySegment.copy(data, ValueLayout.JAVA_BYTE, at, b, 0, len);
    return new String(b, StandardCharsets.UTF_8);
  }
}
