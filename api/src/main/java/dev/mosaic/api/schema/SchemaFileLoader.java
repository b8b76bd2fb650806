package dev.mosaic.api.schema;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.typesafe.config.Config;
import com.typesafe.config.ConfigException;
import com.typesafe.config.ConfigFactory;
import com.typesafe.config.ConfigObject;
import com.typesafe.config.ConfigParseOptions;
import com.typesafe.config.ConfigSyntax;
import com.typesafe.config.ConfigValue;
import dev.mosaic.api.schema.impl.ProtoFieldValues;
import dev.mosaic.format.Field;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Reads schema files: the schema of one index as configuration, its payload type resolved in a
 * descriptor set ({@link ProtoTypes}).
 *
 * <p>A schema file is JSON (a {@code .json} name, parsed strictly) or HOCON (any other name, which
 * also allows comments):
 *
 * <pre>{@code
 * {
 *   "name": "cars",                          // the index name
 *   "version": 1,                            // the schema version, >= 0
 *   "payload": "mosaic.feed.v1.CarOffer",    // full name of the payload message
 *   "fields": [
 *     {"name": "region", "type": "STRING", "role": "FILTERABLE", "from": "region"},
 *     {"name": "options", "type": "STRING", "role": "FILTERABLE", "multiValued": true,
 *      "from": "options"},
 *     {"name": "price", "type": "LONG", "role": "FULL", "from": "price_rub"}
 *   ]
 * }
 * }</pre>
 *
 * <p>{@code type} is a {@link FieldType}, {@code role} a {@link FieldRole} (either case). {@code
 * from} is a path of Protobuf field names in the payload message, dots between steps; every step
 * but the last is a singular message field. {@code multiValued} (default false) says the field
 * takes 0..n values: the last step must then be a repeated field and the role FILTERABLE; a
 * repeated last step needs {@code multiValued: true}. Which Protobuf types feed which schema types
 * is in {@link ProtoFieldValues}; presence rules in {@link
 * dev.mosaic.api.schema.impl.DynamicOfferDocumentMapper}.
 *
 * <p>Errors are {@link IllegalArgumentException}s naming the file, the line and the field: a
 * missing or unknown key, an unknown type or role, an unknown payload type, a path step that names
 * no field, a type mismatch between a schema field and its Protobuf field, a duplicate field name.
 *
 * <p>Thread safety: stateless, safe from any thread.
 */
public final class SchemaFileLoader {
  private static final Set<String> TOP_KEYS = Set.of("name", "version", "payload", "fields");
  private static final Set<String> FIELD_KEYS =
      Set.of("name", "type", "role", "multiValued", "from");
  private static final int MAX_FIELD_NAME_BYTES = 255;

  private SchemaFileLoader() {}

  /**
   * Reads a schema file and the descriptor set its payload type is in.
   *
   * @throws IOException if a file cannot be read
   * @throws IllegalArgumentException naming the file and line of what is wrong
   */
  public static IndexSchema load(Path schemaFile, Path descriptorSet) throws IOException {
    return load(schemaFile, ProtoTypes.load(descriptorSet));
  }

  /** Reads a schema file whose payload type is in {@code types}. */
  public static IndexSchema load(Path schemaFile, ProtoTypes types) throws IOException {
    return parse(
        Files.readString(schemaFile, StandardCharsets.UTF_8), schemaFile.toString(), types);
  }

  /**
   * Reads a schema file from the class path (the built-in ones live under {@code mosaic/schemas/}).
   *
   * @throws IllegalArgumentException if there is no such resource, or it is not a valid schema
   */
  public static IndexSchema resource(String name, ProtoTypes types) {
    try (InputStream in = SchemaFileLoader.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalArgumentException("no class path resource " + name);
      }
      return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8), name, types);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read class path resource " + name + ": " + e, e);
    }
  }

  /**
   * Parses the text of a schema file.
   *
   * @param origin the file name: JSON syntax when it ends in {@code .json}, else HOCON; it starts
   *     every error message
   */
  public static IndexSchema parse(String text, String origin, ProtoTypes types) {
    ConfigSyntax syntax =
        origin.toLowerCase(Locale.ROOT).endsWith(".json") ? ConfigSyntax.JSON : ConfigSyntax.CONF;
    Config config;
    try {
      config =
          ConfigFactory.parseString(
              text, ConfigParseOptions.defaults().setSyntax(syntax).setOriginDescription(origin));
    } catch (ConfigException e) {
      throw configError(e);
    }
    try {
      return read(config, origin, types);
    } catch (ConfigException e) {
      // Missing keys and wrong value kinds: Typesafe Config names the origin, line and key.
      throw configError(e);
    }
  }

  private static IndexSchema read(Config config, String origin, ProtoTypes types) {
    checkKeys(config.root(), TOP_KEYS, origin + ": line " + line(config.root()) + ": schema");
    String name = config.getString("name");
    if (name.isBlank()) {
      throw new IllegalArgumentException(at(config.getValue("name")) + "name must not be blank");
    }
    int version = config.getInt("version");
    if (version < 0) {
      throw new IllegalArgumentException(
          at(config.getValue("version")) + "version must be >= 0, got " + version);
    }
    String payloadName = config.getString("payload");
    Descriptor payload;
    try {
      payload = types.message(payloadName);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(at(config.getValue("payload")) + e.getMessage(), e);
    }
    List<? extends ConfigObject> fieldObjects = config.getObjectList("fields");
    if (fieldObjects.isEmpty()) {
      throw new IllegalArgumentException(at(config.getValue("fields")) + "no fields");
    }
    Schema.Builder schema = Schema.builder().version(version).payloadType(payloadName);
    List<FieldSource> sources = new ArrayList<>();
    Map<String, Integer> lineOfName = new HashMap<>();
    for (int i = 0; i < fieldObjects.size(); i++) {
      ConfigObject object = fieldObjects.get(i);
      FieldSource source = field(object, i, payload);
      Integer previous = lineOfName.putIfAbsent(source.field().name(), line(object));
      if (previous != null) {
        throw new IllegalArgumentException(
            at(object)
                + "field '"
                + source.field().name()
                + "' is declared twice (first at line "
                + previous
                + ")");
      }
      Field f = source.field();
      schema.field(f.name(), f.type(), f.role());
      sources.add(source);
    }
    return new IndexSchema(name, schema.build(), payload, sources, types);
  }

  private static FieldSource field(ConfigObject object, int index, Descriptor payload) {
    Config c = object.toConfig();
    String where = "fields[" + index + "]";
    checkKeys(object, FIELD_KEYS, origin(object) + ": line " + line(object) + ": " + where);
    String name = c.getString("name");
    if (name.isEmpty()) {
      throw new IllegalArgumentException(at(object) + where + ": name must not be empty");
    }
    if (name.getBytes(StandardCharsets.UTF_8).length > MAX_FIELD_NAME_BYTES) {
      throw new IllegalArgumentException(
          at(object) + where + ": name is over " + MAX_FIELD_NAME_BYTES + " UTF-8 bytes");
    }
    String prefix = "field '" + name + "': ";
    FieldType type = enumValue(FieldType.class, c, "type", prefix);
    FieldRole role = enumValue(FieldRole.class, c, "role", prefix);
    boolean multi = c.hasPath("multiValued") && c.getBoolean("multiValued");
    if (multi && role != FieldRole.FILTERABLE) {
      throw new IllegalArgumentException(
          at(c.getValue("multiValued"))
              + prefix
              + "multi-valued fields must be FILTERABLE (SORTABLE and FULL take exactly one value),"
              + " got "
              + role);
    }
    String path = c.getString("from");
    List<FieldDescriptor> steps;
    try {
      steps = resolve(path, payload, type, multi);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          at(c.getValue("from")) + prefix + "from '" + path + "': " + e.getMessage(), e);
    }
    return new FieldSource(new Field(name, type, role), multi, steps);
  }

  private static List<FieldDescriptor> resolve(
      String path, Descriptor payload, FieldType type, boolean multi) {
    if (path.isEmpty()) {
      throw new IllegalArgumentException("the path is empty");
    }
    String[] names = path.split("\\.", -1);
    List<FieldDescriptor> steps = new ArrayList<>(names.length);
    Descriptor message = payload;
    for (int i = 0; i < names.length; i++) {
      FieldDescriptor step = message.findFieldByName(names[i]);
      if (step == null) {
        throw new IllegalArgumentException(
            message.getFullName()
                + " has no field '"
                + names[i]
                + "'; it has "
                + message.getFields().stream().map(FieldDescriptor::getName).toList());
      }
      steps.add(step);
      boolean last = i == names.length - 1;
      if (!last) {
        if (step.isRepeated()) {
          throw new IllegalArgumentException(
              "'" + names[i] + "' is repeated; only the last step of a path may be");
        }
        if (step.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
          throw new IllegalArgumentException(
              "'"
                  + names[i]
                  + "' is a "
                  + ProtoFieldValues.describe(step)
                  + ", not a message, so the path cannot go on to '"
                  + names[i + 1]
                  + "'");
        }
        message = step.getMessageType();
      }
    }
    FieldDescriptor leaf = steps.getLast();
    if (leaf.isMapField()) {
      throw new IllegalArgumentException("'" + leaf.getName() + "' is a map, which feeds no field");
    }
    if (!ProtoFieldValues.accepts(type, leaf)) {
      throw new IllegalArgumentException(
          "'"
              + leaf.getName()
              + "' is "
              + (leaf.isRepeated() ? "a repeated " : "a ")
              + ProtoFieldValues.describe(leaf)
              + ", which does not feed a "
              + type
              + " field (see ProtoFieldValues)");
    }
    if (leaf.isRepeated() && !multi) {
      throw new IllegalArgumentException(
          "'" + leaf.getName() + "' is repeated; declare the field \"multiValued\": true");
    }
    if (!leaf.isRepeated() && multi) {
      throw new IllegalArgumentException(
          "the field is multi-valued but '" + leaf.getName() + "' is not repeated");
    }
    return steps;
  }

  private static <E extends Enum<E>> E enumValue(
      Class<E> kind, Config c, String key, String prefix) {
    String text = c.getString(key);
    try {
      return Enum.valueOf(kind, text.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException(
          at(c.getValue(key))
              + prefix
              + "unknown "
              + key
              + " '"
              + text
              + "'; one of "
              + Arrays.toString(kind.getEnumConstants()),
          e);
    }
  }

  private static void checkKeys(ConfigObject object, Set<String> known, String where) {
    for (String key : object.keySet()) {
      if (!known.contains(key)) {
        throw new IllegalArgumentException(
            where
                + ": unknown key '"
                + key
                + "'; known keys are "
                + known.stream().sorted().toList());
      }
    }
  }

  /** Typesafe Config's "file: 6: message" as "file: line 6: message", like the loader's own. */
  private static IllegalArgumentException configError(ConfigException e) {
    return new IllegalArgumentException(
        e.getMessage().replaceFirst("^(.*?): (\\d+): ", "$1: line $2: "), e);
  }

  private static String at(ConfigValue value) {
    return origin(value) + ": line " + line(value) + ": ";
  }

  private static String origin(ConfigValue value) {
    String description = value.origin().filename();
    return description != null
        ? description
        : value.origin().description().replaceAll(": \\d+$", "");
  }

  private static int line(ConfigValue value) {
    return value.origin().lineNumber();
  }
}
