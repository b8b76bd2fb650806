package dev.mosaic.api.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.Timestamp;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SchemaFileLoaderTest {
  private static final ProtoTypes TYPES = ProtoTypes.parse(TestTypes.descriptorSet(), "item.desc");

  /** A JSON schema file of payload test.v1.Item whose fields are the given JSON objects. */
  private static String schemaJson(String... fields) {
    return "{\n  \"name\": \"items\",\n  \"version\": 4,\n  \"payload\": \"test.v1.Item\",\n"
        + "  \"fields\": [\n    "
        + String.join(",\n    ", fields)
        + "\n  ]\n}\n";
  }

  private static IndexSchema parse(String... fields) {
    return SchemaFileLoader.parse(schemaJson(fields), "items.schema.json", TYPES);
  }

  @Test
  void everyAcceptedProtobufTypeFeedsItsFieldAlongNestedPaths() throws Exception {
    IndexSchema items =
        parse(
            "{\"name\": \"title\", \"type\": \"STRING\", \"role\": \"FILTERABLE\", \"from\": \"title\"}",
            "{\"name\": \"color\", \"type\": \"string\", \"role\": \"filterable\", \"from\": \"color\"}",
            "{\"name\": \"count\", \"type\": \"LONG\", \"role\": \"FULL\", \"from\": \"count\"}",
            "{\"name\": \"level\", \"type\": \"INT\", \"role\": \"SORTABLE\", \"from\": \"inner.level\"}",
            "{\"name\": \"tags\", \"type\": \"STRING\", \"role\": \"FILTERABLE\", \"multiValued\": true,"
                + " \"from\": \"inner.tags\"}",
            "{\"name\": \"inner_at\", \"type\": \"TIMESTAMP\", \"role\": \"FILTERABLE\","
                + " \"from\": \"inner.at\"}",
            "{\"name\": \"created\", \"type\": \"TIMESTAMP\", \"role\": \"FULL\", \"from\": \"created\"}",
            "{\"name\": \"at\", \"type\": \"TIMESTAMP\", \"role\": \"FULL\", \"from\": \"at_millis\"}",
            "{\"name\": \"score\", \"type\": \"DOUBLE\", \"role\": \"FULL\", \"from\": \"score\"}",
            "{\"name\": \"raw\", \"type\": \"BYTES\", \"role\": \"FILTERABLE\", \"from\": \"raw\"}");
    assertThat(items.schema())
        .isEqualTo(
            Schema.builder()
                .version(4)
                .payloadType("test.v1.Item")
                .field("title", FieldType.STRING, FieldRole.FILTERABLE)
                .field("color", FieldType.STRING, FieldRole.FILTERABLE)
                .field("count", FieldType.LONG, FieldRole.FULL)
                .field("level", FieldType.INT, FieldRole.SORTABLE)
                .field("tags", FieldType.STRING, FieldRole.FILTERABLE)
                .field("inner_at", FieldType.TIMESTAMP, FieldRole.FILTERABLE)
                .field("created", FieldType.TIMESTAMP, FieldRole.FULL)
                .field("at", FieldType.TIMESTAMP, FieldRole.FULL)
                .field("score", FieldType.DOUBLE, FieldRole.FULL)
                .field("raw", FieldType.BYTES, FieldRole.FILTERABLE)
                .build());

    Descriptor item = TYPES.message("test.v1.Item");
    Descriptor inner = TYPES.message("test.v1.Inner");
    Descriptor timestamp = TYPES.message("google.protobuf.Timestamp");
    DynamicMessage full =
        DynamicMessage.newBuilder(item)
            .setField(item.findFieldByName("title"), "flat")
            .setField(item.findFieldByName("count"), -1) // uint32 4294967295
            .setField(
                item.findFieldByName("color"),
                item.findFieldByName("color").getEnumType().findValueByName("RED"))
            .setField(
                item.findFieldByName("inner"),
                DynamicMessage.newBuilder(inner)
                    .setField(inner.findFieldByName("level"), 7)
                    .addRepeatedField(inner.findFieldByName("tags"), "a")
                    .addRepeatedField(inner.findFieldByName("tags"), "b")
                    .build())
            .setField(
                item.findFieldByName("created"),
                DynamicMessage.newBuilder(timestamp)
                    .mergeFrom(
                        Timestamp.newBuilder()
                            .setSeconds(1_700_000_000)
                            .setNanos(123_999_999)
                            .build()
                            .toByteString())
                    .build())
            .setField(item.findFieldByName("at_millis"), 42L)
            .setField(item.findFieldByName("score"), 2.5f)
            .setField(item.findFieldByName("raw"), ByteString.copyFrom(new byte[] {1, 2}))
            .build();
    Document d = items.documentMapper().toDocument(offer(full));
    Document expected =
        Document.builder(items.schema())
            .add("title", "flat")
            .add("color", "RED")
            .add("count", 4_294_967_295L)
            .add("level", 7)
            .add("tags", "a")
            .add("tags", "b")
            .add("created", 1_700_000_000_123L)
            .add("at", 42L)
            .add("score", 2.5)
            .add("raw", new byte[] {1, 2})
            .payload(full.toByteArray())
            .build();
    Documents.assertSame(d, expected, "full item");

    // Unset: FILTERABLE fields (and paths through an unset message) are absent, the others take
    // the Protobuf default.
    DynamicMessage empty = DynamicMessage.getDefaultInstance(item);
    Document e = items.documentMapper().toDocument(offer(empty));
    Document expectedEmpty =
        Document.builder(items.schema())
            .add("count", 0L)
            .add("level", 0)
            .add("created", 0L)
            .add("at", 0L)
            .add("score", 0.0)
            .build();
    Documents.assertSame(e, expectedEmpty, "empty item");
  }

  private static Offer offer(DynamicMessage payload) {
    return Offer.newBuilder().setPartnerId("p").setOfferId("o").setOther(Any.pack(payload)).build();
  }

  @Test
  void anUnknownFieldTypeIsNamedWithItsLine() {
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"title\", \"type\": \"STRING\", \"role\": \"FILTERABLE\", \"from\": \"title\"}",
                    "{\"name\": \"count\", \"type\": \"LONGG\", \"role\": \"FULL\", \"from\": \"count\"}"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage(
            "items.schema.json: line 7: field 'count': unknown type 'LONGG'; one of [INT, LONG,"
                + " DOUBLE, BOOLEAN, STRING, TIMESTAMP, BYTES]");
  }

  @Test
  void anUnknownRoleIsNamed() {
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"t\", \"type\": \"STRING\", \"role\": \"SEARCHABLE\", \"from\": \"title\"}"))
        .hasMessage(
            "items.schema.json: line 6: field 't': unknown role 'SEARCHABLE'; one of [FILTERABLE,"
                + " SORTABLE, FULL]");
  }

  @Test
  void anUnknownPayloadTypeListsTheKnownOnes() {
    String text =
        schemaJson(
                "{\"name\": \"t\", \"type\": \"STRING\", \"role\": \"FULL\", \"from\": \"title\"}")
            .replace("test.v1.Item", "test.v1.Itm");
    assertThatThrownBy(() -> SchemaFileLoader.parse(text, "items.schema.json", TYPES))
        .hasMessage(
            "items.schema.json: line 4: unknown message type 'test.v1.Itm'; item.desc has"
                + " [test.v1.Inner, test.v1.Item] (full names, package included)");
  }

  @Test
  void aPathStepNamingNoFieldListsTheMessagesFields() {
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"lvl\", \"type\": \"INT\", \"role\": \"FULL\", \"from\": \"inner.levl\"}"))
        .hasMessage(
            "items.schema.json: line 6: field 'lvl': from 'inner.levl': test.v1.Inner has no field"
                + " 'levl'; it has [level, tags, at]");
  }

  @Test
  void aPathCannotGoThroughAScalarOrARepeatedMessage() {
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"x\", \"type\": \"INT\", \"role\": \"FULL\", \"from\": \"title.level\"}"))
        .hasMessageEndingWith(
            "from 'title.level': 'title' is a string, not a message, so the path cannot go on to"
                + " 'level'");
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"x\", \"type\": \"INT\", \"role\": \"FULL\", \"from\": \"inners.level\"}"))
        .hasMessageEndingWith(
            "from 'inners.level': 'inners' is repeated; only the last step of a path may be");
  }

  @Test
  void aTypeMismatchNamesBothTypes() {
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"price\", \"type\": \"LONG\", \"role\": \"FULL\", \"from\": \"title\"}"))
        .hasMessage(
            "items.schema.json: line 6: field 'price': from 'title': 'title' is a string, which"
                + " does not feed a LONG field (see ProtoFieldValues)");
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"n\", \"type\": \"INT\", \"role\": \"FULL\", \"from\": \"count\"}"))
        .hasMessageEndingWith(
            "'count' is a uint32, which does not feed a INT field (see ProtoFieldValues)");
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"n\", \"type\": \"LONG\", \"role\": \"FULL\", \"from\": \"big\"}"))
        .hasMessageEndingWith(
            "'big' is a uint64, which does not feed a LONG field (see ProtoFieldValues)");
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"n\", \"type\": \"STRING\", \"role\": \"FULL\", \"from\": \"inner\"}"))
        .hasMessageEndingWith(
            "'inner' is a test.v1.Inner, which does not feed a STRING field (see ProtoFieldValues)");
  }

  @Test
  void aDuplicateFieldNameNamesBothLines() {
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"title\", \"type\": \"STRING\", \"role\": \"FILTERABLE\", \"from\": \"title\"}",
                    "{\"name\": \"score\", \"type\": \"DOUBLE\", \"role\": \"FULL\", \"from\": \"score\"}",
                    "{\"name\": \"title\", \"type\": \"STRING\", \"role\": \"FILTERABLE\", \"from\": \"color\"}"))
        .hasMessage("items.schema.json: line 8: field 'title' is declared twice (first at line 6)");
  }

  @Test
  void multiValuedFieldsAndRepeatedProtobufFieldsGoTogether() {
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"tags\", \"type\": \"STRING\", \"role\": \"FILTERABLE\", \"from\": \"inner.tags\"}"))
        .hasMessageEndingWith("'tags' is repeated; declare the field \"multiValued\": true");
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"t\", \"type\": \"STRING\", \"role\": \"FILTERABLE\", \"multiValued\": true,"
                        + " \"from\": \"title\"}"))
        .hasMessageEndingWith("the field is multi-valued but 'title' is not repeated");
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"tags\", \"type\": \"STRING\", \"role\": \"FULL\", \"multiValued\": true,"
                        + " \"from\": \"inner.tags\"}"))
        .hasMessage(
            "items.schema.json: line 6: field 'tags': multi-valued fields must be FILTERABLE"
                + " (SORTABLE and FULL take exactly one value), got FULL");
  }

  @Test
  void unknownAndMissingKeysAreNamed() {
    assertThatThrownBy(
            () ->
                parse(
                    "{\"name\": \"t\", \"type\": \"STRING\", \"role\": \"FULL\", \"form\": \"title\"}"))
        .hasMessage(
            "items.schema.json: line 6: fields[0]: unknown key 'form'; known keys are [from,"
                + " multiValued, name, role, type]");
    assertThatThrownBy(() -> parse("{\"name\": \"t\", \"type\": \"STRING\", \"role\": \"FULL\"}"))
        .hasMessageContaining("items.schema.json")
        .hasMessageContaining("line 6")
        .hasMessageContaining("'from'");
    assertThatThrownBy(() -> SchemaFileLoader.parse("{\"name\": \"x\",", "bad.json", TYPES))
        .hasMessageContaining("bad.json");
  }

  @Test
  void aHoconFileWithCommentsLoadsWithItsDescriptorSetFile(@TempDir Path dir) throws Exception {
    Path descriptors = dir.resolve("item.desc");
    Files.write(descriptors, TestTypes.descriptorSet());
    Path file = dir.resolve("items.conf");
    Files.writeString(
        file,
        """
        # The items index.
        name = items
        version = 2
        payload = test.v1.Item
        fields = [
          { name = title, type = STRING, role = FILTERABLE, from = title }  // its heading
        ]
        """);
    IndexSchema items = SchemaFileLoader.load(file, descriptors);
    assertThat(items.name()).isEqualTo("items");
    assertThat(items.schema().version()).isEqualTo(2);
    assertThat(items.sources()).extracting(FieldSource::path).isEqualTo(List.of("title"));
  }

  @Test
  void aDescriptorSetMissingAnImportOrNotADescriptorSetIsRefused() throws Exception {
    com.google.protobuf.DescriptorProtos.FileDescriptorSet set =
        com.google.protobuf.DescriptorProtos.FileDescriptorSet.parseFrom(TestTypes.descriptorSet());
    byte[] missing =
        set.toBuilder()
            .setFile(0, set.getFile(0).toBuilder().addDependency("test/v1/other.proto"))
            .build()
            .toByteArray();
    assertThatThrownBy(() -> ProtoTypes.parse(missing, "x.desc"))
        .hasMessage(
            "x.desc: test/v1/item.proto imports test/v1/other.proto, which the set does not hold"
                + " (write the set with protoc --include_imports)");
    assertThatThrownBy(() -> ProtoTypes.parse(new byte[] {0x0a, 0x7f}, "y.desc"))
        .hasMessageStartingWith("y.desc: not a serialized google.protobuf.FileDescriptorSet");
  }
}
