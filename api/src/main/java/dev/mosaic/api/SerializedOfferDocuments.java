package dev.mosaic.api;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.api.feed.FieldValue;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.feed.RealtyOffer;
import dev.mosaic.format.DatabaseUpdate;
import dev.mosaic.format.Document;
import dev.mosaic.format.Field;
import dev.mosaic.format.Schema;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;

/**
 * Maps a <em>serialized</em> {@link Offer} to its document, reading the fields straight from the
 * wire format: no {@code Offer}, {@code FieldValue} or payload message is built, and the payload's
 * bytes are taken as they stand instead of being parsed and serialized again. The result is always
 * the document {@code OfferDocuments.toDocument(schema, Offer.parseFrom(bytes))} gives, and so are
 * the errors: whatever the fast path does not cover exactly — an unknown schema field, a value of
 * the wrong kind, a repeated payload or oneof member, a payload whose bytes are not what
 * protobuf-java writes for it ({@link CanonicalMessage}), bytes that do not parse — goes through
 * that slow path, which throws the precise error.
 *
 * <p>Thread safety: stateless (a cache of the last schema's field names, replaced atomically); safe
 * from any thread.
 */
public final class SerializedOfferDocuments {
  private static final CanonicalMessage CAR = new CanonicalMessage(CarOffer.getDescriptor());
  private static final CanonicalMessage REALTY = new CanonicalMessage(RealtyOffer.getDescriptor());
  private static final String CAR_TYPE = CarOffer.getDescriptor().getFullName();
  private static final String REALTY_TYPE = RealtyOffer.getDescriptor().getFullName();

  /** The last schema's fields and their names' UTF-8 bytes. */
  private record Names(Schema schema, List<Field> fields, byte[][] utf8) {
    static Names of(Schema schema) {
      List<Field> fields = schema.fields();
      byte[][] utf8 = new byte[fields.size()][];
      for (int i = 0; i < utf8.length; i++) {
        utf8[i] = fields.get(i).name().getBytes(StandardCharsets.UTF_8);
      }
      return new Names(schema, fields, utf8);
    }

    /**
     * The index of the field named by {@code bytes[start, start + length)}, or -1. Tries {@code
     * hint} and the field after it first: an offer usually lists its fields in the schema's order,
     * so the previous value's field (a field of several values) or the one after it is likely.
     */
    int find(byte[] bytes, int start, int length, int hint) {
      for (int h = hint; h <= hint + 1; h++) {
        if (h >= 0 && h < utf8.length && named(h, bytes, start, length)) {
          return h;
        }
      }
      for (int i = 0; i < utf8.length; i++) {
        if (named(i, bytes, start, length)) {
          return i;
        }
      }
      return -1;
    }

    private boolean named(int i, byte[] bytes, int start, int length) {
      byte[] n = utf8[i];
      if (n.length != length) {
        return false;
      }
      // names are a few bytes long: a plain loop, cheaper than a vectorized compare's set-up
      for (int k = 0; k < length; k++) {
        if (n[k] != bytes[start + k]) {
          return false;
        }
      }
      return true;
    }
  }

  private static volatile Names names;

  private SerializedOfferDocuments() {}

  /** {@link #toDocument(Schema, byte[], int, int)} of the whole array. */
  public static Document toDocument(Schema schema, byte[] offer)
      throws InvalidProtocolBufferException {
    return toDocument(schema, offer, 0, offer.length);
  }

  /**
   * The document for the offer serialized in {@code bytes[offset, offset + length)}.
   *
   * @throws InvalidProtocolBufferException when the bytes are not an offer
   * @throws IllegalArgumentException when the offer does not fit the schema, with {@link
   *     OfferDocuments#toDocument}'s message
   */
  public static Document toDocument(Schema schema, byte[] bytes, int offset, int length)
      throws InvalidProtocolBufferException {
    Document.Builder document = Document.builder(schema);
    if (mapped(document, bytes, offset, length)) {
      try {
        return document.build();
      } catch (IllegalArgumentException e) {
        // a field without a value it needs: the slow path names it
      }
    }
    return slow(schema, bytes, offset, length);
  }

  /** {@link #addTo(DatabaseUpdate, Document.Builder, byte[], int, int)} of the whole array. */
  public static void addTo(DatabaseUpdate update, Document.Builder scratch, byte[] offer)
      throws InvalidProtocolBufferException {
    addTo(update, scratch, offer, 0, offer.length);
  }

  /**
   * Adds the document of the offer serialized in {@code bytes[offset, offset + length)} to {@code
   * update}, as {@code update.add(toDocument(schema, bytes, offset, length))} does, but without a
   * {@link Document} when the fast path covers the offer: its values go through {@code scratch}
   * straight into the update ({@link DatabaseUpdate#add(Document.Builder)}). For bulk builds:
   * {@code scratch} is a builder of the update's schema, reused from offer to offer (cleared here
   * first; it keeps the last offer's values until the next call).
   *
   * @throws InvalidProtocolBufferException when the bytes are not an offer (nothing is added)
   * @throws IllegalArgumentException when the offer does not fit the schema (nothing is added), or
   *     the update is for another schema, with {@link #toDocument}'s messages
   */
  public static void addTo(
      DatabaseUpdate update, Document.Builder scratch, byte[] bytes, int offset, int length)
      throws InvalidProtocolBufferException {
    scratch.clear();
    if (mapped(scratch, bytes, offset, length)) {
      try {
        update.add(scratch);
        return;
      } catch (IllegalArgumentException e) {
        // nothing was added: the slow path's document meets the same refusal, with its message
      }
    }
    update.add(slow(scratch.schema(), bytes, offset, length));
  }

  /** Whether the fast path mapped the offer into {@code document}; else the slow path decides. */
  private static boolean mapped(Document.Builder document, byte[] bytes, int offset, int length) {
    try {
      return fast(document, bytes, offset, length);
    } catch (IOException | RuntimeException e) {
      return false; // not covered exactly: the slow path decides, and names the error
    }
  }

  private static Document slow(Schema schema, byte[] bytes, int offset, int length)
      throws InvalidProtocolBufferException {
    return OfferDocuments.toDocument(schema, Offer.parser().parseFrom(bytes, offset, length));
  }

  /**
   * Maps the offer into {@code document} (an empty builder); false when the slow path must decide.
   */
  private static boolean fast(Document.Builder document, byte[] bytes, int offset, int length)
      throws IOException {
    Schema schema = document.schema();
    Names n = names;
    if (n == null || n.schema() != schema) {
      n = Names.of(schema);
      names = n;
    }
    CodedInputStream in = CodedInputStream.newInstance(bytes, offset, length);
    int lastField = -1; // the field index of the last value added
    int payloadField = 0;
    int payloadStart = 0;
    int payloadLength = 0;
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        break;
      }
      int number = WireFormat.getTagFieldNumber(tag);
      int wireType = WireFormat.getTagWireType(tag);
      switch (number) {
        case Offer.PARTNER_ID_FIELD_NUMBER,
            Offer.OFFER_ID_FIELD_NUMBER,
            Offer.DEDUP_KEY_FIELD_NUMBER -> {
          if (wireType != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
            return false;
          }
          int size = in.readRawVarint32();
          int start = offset + in.getTotalBytesRead();
          in.skipRawBytes(size);
          if (!CanonicalMessage.validUtf8(bytes, start, size)) {
            return false;
          }
        }
        case Offer.FIELDS_FIELD_NUMBER -> {
          if (wireType != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
            return false;
          }
          int size = in.readRawVarint32();
          int start = offset + in.getTotalBytesRead();
          in.skipRawBytes(size);
          lastField = addValue(n, document, bytes, start, size, lastField);
          if (lastField < 0) {
            return false;
          }
        }
        case Offer.CAR_FIELD_NUMBER, Offer.REALTY_FIELD_NUMBER, Offer.OTHER_FIELD_NUMBER -> {
          if (wireType != WireFormat.WIRETYPE_LENGTH_DELIMITED || payloadField != 0) {
            return false; // a second payload merges or replaces: the parser knows how
          }
          payloadField = number;
          payloadLength = in.readRawVarint32();
          payloadStart = offset + in.getTotalBytesRead();
          in.skipRawBytes(payloadLength);
        }
        case Offer.OBSERVED_AT_MILLIS_FIELD_NUMBER -> {
          if (wireType != WireFormat.WIRETYPE_VARINT) {
            return false;
          }
          in.readRawVarint64();
        }
        default -> in.skipField(tag); // unknown fields do not change the document
      }
    }
    return payload(schema, document, payloadField, bytes, payloadStart, payloadLength);
  }

  /**
   * Adds one serialized {@link FieldValue}; returns its field's index, or -1 when the slow path
   * must decide. {@code hint}: the field of the previous value (see {@link Names#find}). The value
   * is read as a number or a span of the message, not as an object, and added through the builder's
   * typed methods.
   */
  private static int addValue(
      Names names, Document.Builder document, byte[] bytes, int start, int size, int hint) {
    WireCursor in = new WireCursor(bytes, start, start + size);
    int index = -1;
    int valueCase = 0; // the oneof member's field number, 0 before one was read
    long number = 0; // a varint member's value, or a double's bits
    int at = 0; // a string or bytes member's span
    int length = 0;
    while (!in.atEnd()) {
      long tag = in.varint();
      if (tag <= 0 || tag > Integer.MAX_VALUE || tag >>> 3 == 0) {
        return -1; // an invalid tag: the parser's error
      }
      int field = (int) (tag >>> 3);
      int wireType = (int) tag & 7;
      if (field == FieldValue.NAME_FIELD_NUMBER) {
        if (wireType != WireFormat.WIRETYPE_LENGTH_DELIMITED || index >= 0) {
          return -1;
        }
        int nameLength = in.length();
        if (nameLength < 0) {
          return -1;
        }
        index = names.find(bytes, in.skip(nameLength), nameLength, hint);
        if (index < 0) {
          return -1; // unknown field (or invalid UTF-8): the slow path's error
        }
        continue;
      }
      if (valueCase != 0) {
        return -1; // a second value: the last one wins, the parser knows which
      }
      switch (field) {
        case FieldValue.INT_VALUE_FIELD_NUMBER,
            FieldValue.LONG_VALUE_FIELD_NUMBER,
            FieldValue.BOOL_VALUE_FIELD_NUMBER,
            FieldValue.TIMESTAMP_MILLIS_FIELD_NUMBER -> {
          if (wireType != WireFormat.WIRETYPE_VARINT) {
            return -1;
          }
          int before = in.position();
          number = in.varint();
          if (in.position() == before) {
            return -1; // no whole varint
          }
        }
        case FieldValue.DOUBLE_VALUE_FIELD_NUMBER -> {
          if (wireType != WireFormat.WIRETYPE_FIXED64 || in.remaining() < Long.BYTES) {
            return -1;
          }
          number = in.fixed64();
        }
        case FieldValue.STRING_VALUE_FIELD_NUMBER, FieldValue.BYTES_VALUE_FIELD_NUMBER -> {
          if (wireType != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
            return -1;
          }
          length = in.length();
          if (length < 0) {
            return -1;
          }
          at = in.skip(length);
          // a string is not decoded: the document takes its UTF-8 bytes as they are
          if (field == FieldValue.STRING_VALUE_FIELD_NUMBER
              && !CanonicalMessage.validUtf8(bytes, at, length)) {
            return -1;
          }
        }
        default -> {
          return -1; // a member this path does not read
        }
      }
      valueCase = field;
    }
    if (index < 0
        || valueCase == 0
        || valueCase != OfferDocuments.kindOf(names.fields().get(index).type()).getNumber()) {
      return -1;
    }
    switch (valueCase) {
      case FieldValue.INT_VALUE_FIELD_NUMBER -> document.addInt(index, (int) number);
      case FieldValue.LONG_VALUE_FIELD_NUMBER, FieldValue.TIMESTAMP_MILLIS_FIELD_NUMBER ->
          document.addLong(index, number);
      case FieldValue.BOOL_VALUE_FIELD_NUMBER -> document.addBoolean(index, number != 0);
      case FieldValue.DOUBLE_VALUE_FIELD_NUMBER ->
          document.addDouble(index, Double.longBitsToDouble(number));
      case FieldValue.STRING_VALUE_FIELD_NUMBER -> document.addUtf8(index, bytes, at, length);
      default -> document.add(index, Arrays.copyOfRange(bytes, at, at + length));
    }
    return index;
  }

  /**
   * Sets the document's payload to the bytes the slow path gives it (copying them once); false when
   * the slow path must decide.
   */
  private static boolean payload(
      Schema schema, Document.Builder document, int field, byte[] bytes, int start, int length)
      throws IOException {
    String expected = schema.payloadType();
    switch (field) {
      case 0 -> {
        return expected.isEmpty(); // the builder's payload is empty until set
      }
      case Offer.CAR_FIELD_NUMBER, Offer.REALTY_FIELD_NUMBER -> {
        boolean car = field == Offer.CAR_FIELD_NUMBER;
        if (!expected.isEmpty() && !expected.equals(car ? CAR_TYPE : REALTY_TYPE)) {
          return false;
        }
        if (!(car ? CAR : REALTY).isCanonical(bytes, start, length)) {
          return false;
        }
        document.payload(bytes, start, length);
        return true;
      }
      default -> {
        byte[] value = anyValue(expected, bytes, start, length);
        if (value == null) {
          return false;
        }
        document.payload(value, 0, value.length);
        return true;
      }
    }
  }

  /** The value of a serialized {@code google.protobuf.Any} of the expected type, or null. */
  private static byte[] anyValue(String expected, byte[] bytes, int start, int length)
      throws IOException {
    CodedInputStream in = CodedInputStream.newInstance(bytes, start, length);
    String typeUrl = null;
    byte[] value = null;
    while (true) {
      int tag = in.readTag();
      if (tag == 0) {
        break;
      }
      if (WireFormat.getTagWireType(tag) != WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        return null;
      }
      int number = WireFormat.getTagFieldNumber(tag);
      if (number == 1 && typeUrl == null) {
        int size = in.readRawVarint32();
        int at = start + in.getTotalBytesRead();
        in.skipRawBytes(size);
        if (!CanonicalMessage.validUtf8(bytes, at, size)) {
          return null;
        }
        typeUrl = new String(bytes, at, size, StandardCharsets.UTF_8);
      } else if (number == 2 && value == null) {
        value = in.readByteArray();
      } else {
        return null;
      }
    }
    String type = OfferPayload.typeNameOf(typeUrl == null ? "" : typeUrl);
    if (!expected.isEmpty() && !expected.equals(type)) {
      return null;
    }
    return value == null ? new byte[0] : value;
  }
}
