package dev.mosaic.api.schema;

import com.google.protobuf.AnyProto;
import com.google.protobuf.ApiProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.DescriptorValidationException;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DurationProto;
import com.google.protobuf.EmptyProto;
import com.google.protobuf.FieldMaskProto;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.SourceContextProto;
import com.google.protobuf.StructProto;
import com.google.protobuf.TimestampProto;
import com.google.protobuf.TypeProto;
import com.google.protobuf.WrappersProto;
import com.google.protobuf.util.JsonFormat;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Collections;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The Protobuf message types of a descriptor set file: a serialized {@code
 * google.protobuf.FileDescriptorSet}, as {@code protoc --include_imports --descriptor_set_out=FILE}
 * writes it. Payload types of schema files are looked up here by full name.
 *
 * <p>The files of the set may come in any order. An import the set does not hold is an error,
 * except for the well-known types ({@code google/protobuf/any.proto}, {@code timestamp.proto} and
 * the others shipped with protobuf-java), which are taken from the Protobuf runtime.
 *
 * <p>The api module's own messages are in the class path resource {@value #BUILT_IN_RESOURCE},
 * written by the build: {@link #builtIn()}.
 *
 * <p>Thread safety: immutable.
 */
public final class ProtoTypes {
  /** The class path resource holding the descriptor set of {@code mosaic/feed/v1/offers.proto}. */
  public static final String BUILT_IN_RESOURCE = "mosaic/feed/v1/offers.desc";

  private static final List<FileDescriptor> WELL_KNOWN =
      List.of(
          AnyProto.getDescriptor(),
          ApiProto.getDescriptor(),
          DurationProto.getDescriptor(),
          EmptyProto.getDescriptor(),
          FieldMaskProto.getDescriptor(),
          SourceContextProto.getDescriptor(),
          StructProto.getDescriptor(),
          TimestampProto.getDescriptor(),
          TypeProto.getDescriptor(),
          WrappersProto.getDescriptor());

  private final String origin;
  private final Map<String, Descriptor> messages;
  private final JsonFormat.TypeRegistry typeRegistry;

  private ProtoTypes(String origin, Map<String, Descriptor> messages) {
    this.origin = origin;
    this.messages = Collections.unmodifiableMap(messages);
    JsonFormat.TypeRegistry.Builder registry = JsonFormat.TypeRegistry.newBuilder();
    messages.values().forEach(registry::add);
    this.typeRegistry = registry.build();
  }

  /**
   * Reads a descriptor set file.
   *
   * @throws IOException if the file cannot be read
   * @throws IllegalArgumentException naming the file when it is not a valid descriptor set
   */
  public static ProtoTypes load(Path file) throws IOException {
    return parse(Files.readAllBytes(file), file.toString());
  }

  /** The api module's own messages ({@code mosaic.feed.v1.*}), from {@value #BUILT_IN_RESOURCE}. */
  public static ProtoTypes builtIn() {
    return Holder.BUILT_IN;
  }

  /**
   * Reads a descriptor set from a class path resource.
   *
   * @throws IllegalArgumentException naming the resource when it is absent or not a descriptor set
   */
  public static ProtoTypes resource(String name) {
    try (InputStream in = ProtoTypes.class.getClassLoader().getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalArgumentException("no class path resource " + name);
      }
      return parse(in.readAllBytes(), "resource " + name);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read class path resource " + name + ": " + e, e);
    }
  }

  /**
   * Parses a serialized {@code FileDescriptorSet}.
   *
   * @param origin names the bytes in error messages (a file name)
   * @throws IllegalArgumentException starting with {@code origin} when the bytes are not a
   *     descriptor set, a file imports one the set does not hold, or a file does not validate
   */
  public static ProtoTypes parse(byte[] bytes, String origin) {
    Objects.requireNonNull(origin, "origin");
    FileDescriptorSet set;
    try {
      set = FileDescriptorSet.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException(
          origin + ": not a serialized google.protobuf.FileDescriptorSet: " + e.getMessage(), e);
    }
    Map<String, FileDescriptorProto> protos = new LinkedHashMap<>();
    for (FileDescriptorProto file : set.getFileList()) {
      if (protos.put(file.getName(), file) != null) {
        throw new IllegalArgumentException(origin + ": file " + file.getName() + " appears twice");
      }
    }
    Map<String, FileDescriptor> built = new LinkedHashMap<>();
    for (String name : protos.keySet()) {
      build(name, protos, built, new ArrayDeque<>(), origin);
    }
    Map<String, Descriptor> messages = new TreeMap<>();
    for (FileDescriptor file : built.values()) {
      file.getMessageTypes().forEach(m -> collect(m, messages));
    }
    return new ProtoTypes(origin, messages);
  }

  /** Where the types came from (a file name or resource), for messages. */
  public String origin() {
    return origin;
  }

  /** Full names of every message type, nested ones included, in name order. */
  public Set<String> messageNames() {
    return messages.keySet();
  }

  /**
   * The message type of that full name (e.g. {@code mosaic.feed.v1.CarOffer}).
   *
   * @throws IllegalArgumentException naming the type and listing the known ones, when absent
   */
  public Descriptor message(String fullName) {
    Descriptor d = messages.get(fullName);
    if (d == null) {
      throw new IllegalArgumentException(
          "unknown message type '"
              + fullName
              + "'; "
              + origin
              + " has "
              + messages.keySet().stream().filter(n -> !n.startsWith("google.protobuf.")).toList()
              + " (full names, package included)");
    }
    return d;
  }

  /** Every message type, for {@code JsonFormat} (payloads that hold {@code Any}). */
  public JsonFormat.TypeRegistry typeRegistry() {
    return typeRegistry;
  }

  private static FileDescriptor build(
      String name,
      Map<String, FileDescriptorProto> protos,
      Map<String, FileDescriptor> built,
      Deque<String> path,
      String origin) {
    FileDescriptor done = built.get(name);
    if (done != null) {
      return done;
    }
    FileDescriptorProto proto = protos.get(name);
    if (proto == null) {
      FileDescriptor wellKnown =
          WELL_KNOWN.stream().filter(f -> f.getName().equals(name)).findFirst().orElse(null);
      if (wellKnown == null) {
        throw new IllegalArgumentException(
            origin
                + ": "
                + path.peekLast()
                + " imports "
                + name
                + ", which the set does not hold (write the set with protoc --include_imports)");
      }
      built.put(name, wellKnown);
      return wellKnown;
    }
    if (path.contains(name)) {
      throw new IllegalArgumentException(
          origin + ": import cycle " + String.join(" -> ", path) + " -> " + name);
    }
    path.addLast(name);
    FileDescriptor[] deps =
        proto.getDependencyList().stream()
            .map(dep -> build(dep, protos, built, path, origin))
            .toArray(FileDescriptor[]::new);
    path.removeLast();
    try {
      FileDescriptor file = FileDescriptor.buildFrom(proto, deps);
      built.put(name, file);
      return file;
    } catch (DescriptorValidationException e) {
      throw new IllegalArgumentException(
          origin + ": file " + name + " does not validate: " + e.getMessage(), e);
    }
  }

  private static void collect(Descriptor message, Map<String, Descriptor> into) {
    into.put(message.getFullName(), message);
    message.getNestedTypes().forEach(n -> collect(n, into));
  }

  private static final class Holder {
    static final ProtoTypes BUILT_IN = resource(BUILT_IN_RESOURCE);
  }
}
