package dev.mosaic.format.typed;

import dev.mosaic.format.Database;
import dev.mosaic.format.Field;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Facet;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Stats;
import java.util.List;
import java.util.Objects;

/**
 * A handle on one field of a schema, typed by the field's {@link FieldType}: conditions, sort keys
 * and values go through it with the Java type of the field, so putting a {@code Long} into an INT
 * field or reading a sort value as the wrong type does not compile. Create the handles from the
 * schema ({@link Schema#intField}, ..., or {@code IntField.of(schema, "year")}); creation checks
 * that the field exists and has that type.
 *
 * <pre>{@code
 * IntField year = schema.intField("year");
 * LongField price = schema.longField("price");
 * Query q = Query.where(Condition.and(year.between(2015, 2020), price.lt(1_000_000L)))
 *     .orderBy(price.asc());
 * Page page = db.page(q.limit(10));
 * long cheapest = page.hits().get(0).value(price);    // a long, not an Object
 * }</pre>
 *
 * The untyped API ({@code Condition.eq("year", 2015)}, {@code Database.sortableValue}) keeps
 * working; a handle builds exactly the conditions it would. Immutable and thread safe.
 *
 * @param <T> the Java type of the field's values
 */
public abstract sealed class TypedField<T>
    permits IntField,
        LongField,
        DoubleField,
        BooleanField,
        StringField,
        TimestampField,
        BytesField {
  private final Field field;
  private final Class<T> javaType;

  TypedField(Schema schema, String name, FieldType type, Class<T> javaType) {
    Field f = schema.field(name);
    if (f.type() != type) {
      throw new IllegalArgumentException(
          "field '"
              + name
              + "' is "
              + f.type()
              + ", not "
              + type
              + "; use a "
              + handleName(f.type())
              + " handle for it");
    }
    this.field = f;
    this.javaType = javaType;
  }

  private static String handleName(FieldType type) {
    return switch (type) {
      case INT -> "IntField";
      case LONG -> "LongField";
      case DOUBLE -> "DoubleField";
      case BOOLEAN -> "BooleanField";
      case STRING -> "StringField";
      case TIMESTAMP -> "TimestampField";
      case BYTES -> "BytesField";
    };
  }

  /** The schema field this handle stands for. */
  public Field field() {
    return field;
  }

  /** The field's name. */
  public String name() {
    return field.name();
  }

  /** Documents having {@code value}. */
  public Condition eq(T value) {
    return Condition.eq(name(), Objects.requireNonNull(value, "value"));
  }

  /** Documents having any of {@code values}. */
  public Condition in(List<? extends T> values) {
    return Condition.in(name(), values);
  }

  /** Documents having a value strictly greater than {@code value}. */
  public Condition gt(T value) {
    return Condition.gt(name(), Objects.requireNonNull(value, "value"));
  }

  /** Documents having a value greater than or equal to {@code value}. */
  public Condition gte(T value) {
    return Condition.gte(name(), Objects.requireNonNull(value, "value"));
  }

  /** Documents having a value strictly less than {@code value}. */
  public Condition lt(T value) {
    return Condition.lt(name(), Objects.requireNonNull(value, "value"));
  }

  /** Documents having a value less than or equal to {@code value}. */
  public Condition lte(T value) {
    return Condition.lte(name(), Objects.requireNonNull(value, "value"));
  }

  /** Documents having a value in {@code [from, to]} (both ends inclusive). */
  public Condition between(T from, T to) {
    return Condition.between(name(), from, true, to, true);
  }

  /** Documents having a value in the range, with the inclusivity of each end as given. */
  public Condition range(T from, boolean fromInclusive, T to, boolean toInclusive) {
    return Condition.between(name(), from, fromInclusive, to, toInclusive);
  }

  /** Ascending by this field. */
  public Order asc() {
    return Order.asc(name());
  }

  /** Descending by this field. */
  public Order desc() {
    return Order.desc(name());
  }

  /** The {@code n} values with the most matches. */
  public Facet top(int n) {
    return Facet.top(name(), n);
  }

  /** The counts of the given values. */
  public Facet counts(List<? extends T> values) {
    return Facet.values(name(), values);
  }

  /** Count, min, max and, over ascending {@code bounds}, a histogram. */
  public Stats stats(List<? extends T> bounds) {
    return Stats.histogram(name(), bounds);
  }

  /**
   * A document's value of this SORTABLE or FULL field.
   *
   * @throws IllegalArgumentException when the field is not sortable, or {@code database}'s schema
   *     has no field of this name and type
   */
  public T value(Database database, int document) {
    Field there = database.schema().field(name());
    if (there.type() != field.type()) {
      throw new IllegalArgumentException(
          "field '" + name() + "' is " + there.type() + " in this database, not " + field.type());
    }
    return javaType.cast(database.sortableValue(document, name()));
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TypedField<?> t && t.field.equals(field);
  }

  @Override
  public int hashCode() {
    return field.hashCode();
  }

  @Override
  public String toString() {
    return getClass().getSimpleName() + "(" + field + ")";
  }
}
