package dev.mosaic.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Order;
import dev.mosaic.format.query.Query;
import dev.mosaic.format.typed.IntField;
import dev.mosaic.format.typed.LongField;
import dev.mosaic.format.typed.StringField;
import dev.mosaic.format.typed.TimestampField;
import java.nio.file.Files;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Field handles typed by the schema: the Java type of every value going in or out is the field's
 * (so {@code year.eq(2015L)}, {@code builder.add(year, 2015L)} or {@code long y = hit.value(year)}
 * do not compile: {@code IntField} is a {@code TypedField<Integer>}), they build exactly the
 * conditions of the untyped API, and a handle of the wrong type is refused when created.
 */
class TypedFieldTest {
  private static final Schema SCHEMA = CarsFixture.SCHEMA;
  private static final IntField YEAR = SCHEMA.intField("year");
  private static final LongField PRICE = SCHEMA.longField("price");
  private static final StringField MARK = SCHEMA.stringField("mark");
  private static final TimestampField PUBLISHED = SCHEMA.timestampField("published");

  @Test
  void handlesBuildTheConditionsOfTheUntypedApi() {
    assertThat(YEAR.eq(2015)).isEqualTo(Condition.eq("year", 2015));
    assertThat(PRICE.between(1000L, 5000L))
        .isEqualTo(Condition.between("price", 1000L, true, 5000L, true));
    assertThat(PRICE.range(1000L, false, 5000L, true))
        .isEqualTo(Condition.between("price", 1000L, false, 5000L, true));
    assertThat(YEAR.gt(2001)).isEqualTo(Condition.gt("year", 2001));
    assertThat(YEAR.lte(2001)).isEqualTo(Condition.lte("year", 2001));
    assertThat(MARK.in(List.of("bmw", "audi")))
        .isEqualTo(Condition.in("mark", List.of("bmw", "audi")));
    assertThat(PRICE.desc()).isEqualTo(Order.desc("price"));
  }

  @Test
  void typedQueriesAndValuesRoundTripThroughADatabase() throws Exception {
    DatabaseBuilder b = DatabaseBuilder.create(SCHEMA);
    for (int i = 0; i < 40; i++) {
      b.add(
          Document.builder(SCHEMA)
              .add(MARK, i % 2 == 0 ? "bmw" : "lada")
              .add(PRICE, 100L * i)
              .add(YEAR, 2000 + i % 10)
              .add(SCHEMA.stringField("region"), "msk")
              .add(PUBLISHED, Instant.ofEpochSecond(i))
              .build());
    }
    try (Database db = Database.fromBytes(b.toByteArray())) {
      Page page =
          db.page(
              Query.where(Condition.and(MARK.eq("bmw"), YEAR.gte(2004)))
                  .orderBy(PRICE.desc())
                  .limit(3));
      assertThat(page.total()).isEqualTo(12);
      long top = page.hits().get(0).value(PRICE); // a long: no cast, no Object
      String mark = page.hits().get(0).value(MARK);
      Instant at = PUBLISHED.value(db, page.hits().get(0).document());
      assertThat(top).isEqualTo(3800L);
      assertThat(mark).isEqualTo("bmw");
      assertThat(at).isEqualTo(Instant.ofEpochSecond(38));
    }
  }

  @Test
  void aValueOfTheWrongJavaTypeDoesNotCompile() {
    String ok = "long p = hit.value(schema.longField(\"price\")); int y = hit.value(year);";
    assertThat(compile(ok)).as("the well-typed snippet compiles").isEmpty();
    for (String wrong :
        List.of(
            "year.eq(2015L);",
            "Document.builder(schema).add(year, 2015L);",
            "String y = hit.value(year);",
            "schema.longField(\"price\").between(1, 2);")) {
      assertThat(compile(wrong)).as(wrong).contains("incompatible");
    }
  }

  /** Compiles a snippet against the format's classes; returns the compiler's errors. */
  private static String compile(String body) {
    String source =
        "import dev.mosaic.format.*; import dev.mosaic.format.typed.*;\n"
            + "class Snippet { void run(Schema schema, Hit hit) {\n"
            + "IntField year = schema.intField(\"year\");\n"
            + body
            + "\n} }";
    javax.tools.JavaCompiler compiler = javax.tools.ToolProvider.getSystemJavaCompiler();
    javax.tools.DiagnosticCollector<javax.tools.JavaFileObject> errors =
        new javax.tools.DiagnosticCollector<>();
    javax.tools.JavaFileObject file =
        new javax.tools.SimpleJavaFileObject(
            java.net.URI.create("string:///Snippet.java"), javax.tools.JavaFileObject.Kind.SOURCE) {
          @Override
          public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return source;
          }
        };
    try (var files = compiler.getStandardFileManager(errors, null, null)) {
      var output = Files.createTempDirectory("snippet");
      compiler
          .getTask(
              null,
              files,
              errors,
              List.of("-classpath", System.getProperty("java.class.path"), "-d", output.toString()),
              null,
              List.of(file))
          .call();
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException(e);
    }
    StringBuilder out = new StringBuilder();
    errors.getDiagnostics().stream()
        .filter(d -> d.getKind() == javax.tools.Diagnostic.Kind.ERROR)
        .forEach(d -> out.append(d.getMessage(null)).append('\n'));
    return out.toString();
  }

  @Test
  void aHandleOfTheWrongTypeOrAnUnknownFieldIsRefusedWhenCreated() {
    assertThatThrownBy(() -> SCHEMA.intField("price"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("field 'price' is LONG, not INT; use a LongField handle for it");
    assertThatThrownBy(() -> LongField.of(SCHEMA, "colour"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("unknown field 'colour'");
  }

  @Test
  void readingAValueNeedsASortableFieldOfTheSameTypeInTheDatabase() throws Exception {
    Schema other = Schema.builder().field("year", FieldType.LONG, FieldRole.FULL).build();
    DatabaseBuilder b = DatabaseBuilder.create(other);
    b.add(Document.builder(other).add("year", 2001L).build());
    try (Database db = Database.fromBytes(b.toByteArray())) {
      assertThatThrownBy(() -> YEAR.value(db, 0))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessage("field 'year' is LONG in this database, not INT");
      assertThatThrownBy(() -> Document.builder(other).add(YEAR, 2001))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("field 'year' is Field[name=year, type=LONG");
    }
  }
}
