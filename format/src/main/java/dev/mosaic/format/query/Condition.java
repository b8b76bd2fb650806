package dev.mosaic.format.query;

import java.util.List;
import java.util.Objects;

/**
 * A filter over documents. Values are Java values of the field's type (see {@link
 * dev.mosaic.format.FieldType}) and are converted with the same order-preserving conversion as at
 * build time. A multi-valued FILTERABLE field matches when any of its values matches.
 *
 * <p>Build conditions with the static factories ({@link #eq}, {@link #between}, {@link #and}...).
 * Immutable and thread safe.
 */
public sealed interface Condition
    permits Condition.All,
        Condition.Eq,
        Condition.In,
        Condition.Range,
        Condition.And,
        Condition.Or,
        Condition.Not {

  /** Every document. */
  static Condition all() {
    return All.INSTANCE;
  }

  /** Documents having {@code value} in {@code field}. */
  static Condition eq(String field, Object value) {
    return new Eq(field, value);
  }

  /** Documents having any of {@code values} in {@code field}. */
  static Condition in(String field, List<?> values) {
    return new In(field, List.copyOf(values));
  }

  /** Documents having a value strictly greater than {@code value}. */
  static Condition gt(String field, Object value) {
    return new Range(field, value, false, null, false);
  }

  /** Documents having a value greater than or equal to {@code value}. */
  static Condition gte(String field, Object value) {
    return new Range(field, value, true, null, false);
  }

  /** Documents having a value strictly less than {@code value}. */
  static Condition lt(String field, Object value) {
    return new Range(field, null, false, value, false);
  }

  /** Documents having a value less than or equal to {@code value}. */
  static Condition lte(String field, Object value) {
    return new Range(field, null, false, value, true);
  }

  /** Documents having a value in the range, with the inclusivity of each bound as given. */
  static Condition between(
      String field, Object from, boolean fromInclusive, Object to, boolean toInclusive) {
    return new Range(
        field,
        Objects.requireNonNull(from, "from"),
        fromInclusive,
        Objects.requireNonNull(to, "to"),
        toInclusive);
  }

  /** Documents matching every condition ({@link #all()} when empty). */
  static Condition and(Condition... conditions) {
    return new And(List.of(conditions));
  }

  /** Documents matching every condition ({@link #all()} when empty). */
  static Condition and(List<Condition> conditions) {
    return new And(List.copyOf(conditions));
  }

  /** Documents matching at least one condition (none when empty). */
  static Condition or(Condition... conditions) {
    return new Or(List.of(conditions));
  }

  /** Documents matching at least one condition (none when empty). */
  static Condition or(List<Condition> conditions) {
    return new Or(List.copyOf(conditions));
  }

  /** Documents not matching {@code condition}. */
  static Condition not(Condition condition) {
    return new Not(condition);
  }

  /** Every document. */
  enum All implements Condition {
    INSTANCE
  }

  /** {@code field = value}. */
  record Eq(String field, Object value) implements Condition {
    public Eq {
      Objects.requireNonNull(field, "field");
      Objects.requireNonNull(value, "value");
    }
  }

  /** {@code field in values}. */
  record In(String field, List<Object> values) implements Condition {
    public In {
      Objects.requireNonNull(field, "field");
      values = List.copyOf(values);
    }
  }

  /** {@code from <(=) field <(=) to}; a null bound is open. At least one bound is present. */
  record Range(String field, Object from, boolean fromInclusive, Object to, boolean toInclusive)
      implements Condition {
    public Range {
      Objects.requireNonNull(field, "field");
      if (from == null && to == null) {
        throw new IllegalArgumentException("range on '" + field + "' needs at least one bound");
      }
    }
  }

  /** Conjunction. */
  record And(List<Condition> conditions) implements Condition {
    public And {
      conditions = List.copyOf(conditions);
    }
  }

  /** Disjunction. */
  record Or(List<Condition> conditions) implements Condition {
    public Or {
      conditions = List.copyOf(conditions);
    }
  }

  /** Negation. */
  record Not(Condition condition) implements Condition {
    public Not {
      Objects.requireNonNull(condition, "condition");
    }
  }
}
