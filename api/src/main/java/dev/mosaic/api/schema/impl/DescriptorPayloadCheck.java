package dev.mosaic.api.schema.impl;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import dev.mosaic.api.OfferDocuments;
import dev.mosaic.api.OfferPayload;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.schema.IndexSchema;
import dev.mosaic.api.schema.PayloadCheck;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A {@link PayloadCheck} against the payload message type an index's schema file names, resolved in
 * its descriptor set. In order, the first failure is the reason:
 *
 * <ol>
 *   <li>the offer carries a payload of the schema's payload type ({@link
 *       OfferDocuments#checkedPayload});
 *   <li>its bytes parse as that type (this includes UTF-8 of proto3 strings);
 *   <li>no field of it, at any depth, is unknown to the descriptor: a field number the type does
 *       not declare, or a declared number in another wire type than its declared type's (Protobuf
 *       would keep either silently as an unknown field, and the index would never see it);
 *   <li>its required fields (proto2) are set;
 *   <li>the schema's indexed values can be read from it ({@link IndexSchema#documentMapper()}).
 * </ol>
 *
 * <p>Thread safety: immutable, safe from any thread.
 */
public final class DescriptorPayloadCheck implements PayloadCheck {
  private final IndexSchema index;
  private final Descriptor type;
  private final DynamicOfferDocumentMapper mapper;

  /** A check against that index's payload type. */
  public DescriptorPayloadCheck(IndexSchema index) {
    this.index = Objects.requireNonNull(index, "index");
    this.type = index.payloadType();
    this.mapper = new DynamicOfferDocumentMapper(index);
  }

  @Override
  public String problem(Offer offer) {
    OfferPayload payload;
    try {
      payload = OfferDocuments.checkedPayload(index.schema(), offer).orElseThrow();
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    String where = OfferDocuments.describe(offer) + ": payload " + type.getFullName();
    DynamicMessage message;
    try {
      message = DynamicMessage.parseFrom(type, payload.bytes());
    } catch (InvalidProtocolBufferException e) {
      return where + " does not parse: " + e.getMessage();
    }
    String unknown = unknownField(message, "");
    if (unknown != null) {
      return where + ": " + unknown;
    }
    List<String> missing = message.findInitializationErrors();
    if (!missing.isEmpty()) {
      return where + ": required fields not set: " + String.join(", ", missing);
    }
    try {
      mapper.toDocument(offer, payload, message); // the message parsed above, not again
    } catch (IllegalArgumentException e) {
      return e.getMessage();
    }
    return null;
  }

  /** The first field of the message (or a message inside it) its descriptor does not declare. */
  private static String unknownField(Message message, String path) {
    Descriptor d = message.getDescriptorForType();
    for (Map.Entry<Integer, UnknownFieldSet.Field> e :
        message.getUnknownFields().asMap().entrySet()) {
      int number = e.getKey();
      String at = path.isEmpty() ? "" : " of " + path;
      FieldDescriptor declared = d.findFieldByNumber(number);
      if (declared == null) {
        return "field number "
            + number
            + at
            + " ("
            + wireTypes(e.getValue())
            + ") is not declared in "
            + d.getFullName()
            + " (the descriptor set may be older than the feed)";
      }
      return "field "
          + (path.isEmpty() ? "" : path + ".")
          + declared.getName()
          + " (number "
          + number
          + ", "
          + typeName(declared)
          + ") arrived as "
          + wireTypes(e.getValue())
          + ", expected "
          + wireTypeName(declared.getLiteType().getWireType());
    }
    for (Map.Entry<FieldDescriptor, Object> f : message.getAllFields().entrySet()) {
      FieldDescriptor field = f.getKey();
      if (field.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      String child = path.isEmpty() ? field.getName() : path + "." + field.getName();
      List<?> values = field.isRepeated() ? (List<?>) f.getValue() : List.of(f.getValue());
      for (int i = 0; i < values.size(); i++) {
        String found =
            unknownField(
                (Message) values.get(i), field.isRepeated() ? child + "[" + i + "]" : child);
        if (found != null) {
          return found;
        }
      }
    }
    return null;
  }

  private static String typeName(FieldDescriptor field) {
    return switch (field.getJavaType()) {
      case MESSAGE -> field.getMessageType().getFullName();
      case ENUM -> field.getEnumType().getFullName();
      default -> field.getType().name().toLowerCase(Locale.ROOT);
    };
  }

  private static String wireTypes(UnknownFieldSet.Field field) {
    List<String> kinds = new ArrayList<>();
    if (!field.getVarintList().isEmpty()) {
      kinds.add("varint");
    }
    if (!field.getFixed64List().isEmpty()) {
      kinds.add("fixed64");
    }
    if (!field.getLengthDelimitedList().isEmpty()) {
      kinds.add("length-delimited");
    }
    if (!field.getGroupList().isEmpty()) {
      kinds.add("group");
    }
    if (!field.getFixed32List().isEmpty()) {
      kinds.add("fixed32");
    }
    return String.join(" and ", kinds);
  }

  private static String wireTypeName(int wireType) {
    return switch (wireType) {
      case 0 -> "varint";
      case 1 -> "fixed64";
      case 2 -> "length-delimited";
      case 3 -> "group";
      case 5 -> "fixed32";
      default -> "wire type " + wireType;
    };
  }
}
