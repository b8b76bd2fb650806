package dev.mosaic.format;

import java.util.Objects;

/**
 * One field of a {@link Schema}: a name (non-empty, at most 255 UTF-8 bytes), a type and a role.
 */
public record Field(String name, FieldType type, FieldRole role) {
  public Field {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(role, "role");
    if (name.isEmpty()) {
      throw new IllegalArgumentException("field name must not be empty");
    }
  }
}
