package dev.mosaic.api.schema;

import com.google.protobuf.DescriptorProtos.DescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumDescriptorProto;
import com.google.protobuf.DescriptorProtos.EnumValueDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Label;
import com.google.protobuf.DescriptorProtos.FieldDescriptorProto.Type;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;

/**
 * A descriptor set for loader tests, as protoc would write it for:
 *
 * <pre>{@code
 * syntax = "proto3";
 * package test.v1;
 * import "google/protobuf/timestamp.proto";
 * enum Color { COLOR_UNSPECIFIED = 0; RED = 1; }
 * message Inner { int32 level = 1; repeated string tags = 2; google.protobuf.Timestamp at = 3; }
 * message Item {
 *   string title = 1; uint32 count = 2; uint64 big = 3; Color color = 4; Inner inner = 5;
 *   repeated Inner inners = 6; google.protobuf.Timestamp created = 7; float score = 8;
 *   bytes raw = 9; int64 at_millis = 10;
 * }
 * }</pre>
 *
 * The well-known timestamp.proto is left out, as without {@code --include_imports}.
 */
final class TestTypes {
  private TestTypes() {}

  static byte[] descriptorSet() {
    FileDescriptorProto file =
        FileDescriptorProto.newBuilder()
            .setName("test/v1/item.proto")
            .setPackage("test.v1")
            .setSyntax("proto3")
            .addDependency("google/protobuf/timestamp.proto")
            .addEnumType(
                EnumDescriptorProto.newBuilder()
                    .setName("Color")
                    .addValue(value("COLOR_UNSPECIFIED", 0))
                    .addValue(value("RED", 1)))
            .addMessageType(
                DescriptorProto.newBuilder()
                    .setName("Inner")
                    .addField(field("level", 1, Type.TYPE_INT32))
                    .addField(field("tags", 2, Type.TYPE_STRING).setLabel(Label.LABEL_REPEATED))
                    .addField(message("at", 3, ".google.protobuf.Timestamp")))
            .addMessageType(
                DescriptorProto.newBuilder()
                    .setName("Item")
                    .addField(field("title", 1, Type.TYPE_STRING))
                    .addField(field("count", 2, Type.TYPE_UINT32))
                    .addField(field("big", 3, Type.TYPE_UINT64))
                    .addField(field("color", 4, Type.TYPE_ENUM).setTypeName(".test.v1.Color"))
                    .addField(message("inner", 5, ".test.v1.Inner"))
                    .addField(message("inners", 6, ".test.v1.Inner").setLabel(Label.LABEL_REPEATED))
                    .addField(message("created", 7, ".google.protobuf.Timestamp"))
                    .addField(field("score", 8, Type.TYPE_FLOAT))
                    .addField(field("raw", 9, Type.TYPE_BYTES))
                    .addField(field("at_millis", 10, Type.TYPE_INT64)))
            .build();
    return FileDescriptorSet.newBuilder().addFile(file).build().toByteArray();
  }

  private static EnumValueDescriptorProto value(String name, int number) {
    return EnumValueDescriptorProto.newBuilder().setName(name).setNumber(number).build();
  }

  private static FieldDescriptorProto.Builder field(String name, int number, Type type) {
    return FieldDescriptorProto.newBuilder()
        .setName(name)
        .setNumber(number)
        .setType(type)
        .setLabel(Label.LABEL_OPTIONAL)
        .setJsonName(name);
  }

  private static FieldDescriptorProto.Builder message(String name, int number, String type) {
    return field(name, number, Type.TYPE_MESSAGE).setTypeName(type);
  }
}
