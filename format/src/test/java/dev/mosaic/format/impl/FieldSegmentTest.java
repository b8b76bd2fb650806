package dev.mosaic.format.impl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The persistent collections of a field segment, read back through {@link FieldReader}. */
class FieldSegmentTest {
  private static FieldReader single(FieldType type, FieldRole role, List<Object> values)
      throws Exception {
    Schema schema = Schema.builder().field("f", type, role).build();
    DatabaseBuilder b = DatabaseBuilder.create(schema);
    for (Object v : values) {
      b.add(Document.builder(schema).add("f", v).build());
    }
    DatabaseReader db = DatabaseReader.of(Database.fromBytes(b.toByteArray()));
    return db.field(0);
  }

  private static Key key(FieldType type, Object v) {
    return Key.of(type.encode(v));
  }

  @Test
  void fixedWidthValueSetFindsValuesAndBoundsByBinarySearch() throws Exception {
    for (FieldType type : List.of(FieldType.INT, FieldType.LONG)) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < 100; i++) {
        values.add(type == FieldType.INT ? (Object) (i * 10 - 500) : (Object) (i * 10L - 500));
      }
      FieldReader f = single(type, FieldRole.FULL, values);
      assertThat(f.valueCount).isEqualTo(100);
      assertThat(f.width).isEqualTo(type == FieldType.INT ? 4 : 8);
      for (int i = 0; i < 100; i++) {
        Object v = values.get(i);
        assertThat(f.find(key(type, v))).isEqualTo(i);
        assertThat(f.valueBytes(i)).isEqualTo(type.encode(v));
      }
      Object between = type == FieldType.INT ? (Object) (-495) : (Object) (-495L);
      assertThat(f.find(key(type, between))).isEqualTo(-2);
      assertThat(f.lowerBound(key(type, between), true)).isEqualTo(1);
      assertThat(f.upperBound(key(type, between), true)).isEqualTo(1);
      assertThat(f.lowerBound(key(type, values.get(5)), false)).isEqualTo(6);
      assertThat(f.upperBound(key(type, values.get(5)), false)).isEqualTo(5);
    }
    FieldReader booleans = single(FieldType.BOOLEAN, FieldRole.FULL, List.of(true, false, true));
    assertThat(booleans.valueCount).isEqualTo(2);
    assertThat(booleans.find(key(FieldType.BOOLEAN, true))).isEqualTo(1);
  }

  @Test
  void variableWidthValueSetComparesPrefixesAndLongValuesCorrectly() throws Exception {
    List<Object> values =
        List.of(
            "",
            "a",
            "ab",
            "abcdefgh",
            "abcdefghi",
            "abcdefgh\u0000",
            "b",
            "\u00ff",
            "zzzzzzzzzzzz");
    FieldReader f = single(FieldType.STRING, FieldRole.FULL, values);
    TreeSet<byte[]> sorted = new TreeSet<>(Arrays::compareUnsigned);
    values.forEach(v -> sorted.add(FieldType.STRING.encode(v)));
    List<byte[]> expected = new ArrayList<>(sorted);
    assertThat(f.valueCount).isEqualTo(expected.size());
    for (int i = 0; i < expected.size(); i++) {
      assertThat(f.valueBytes(i)).isEqualTo(expected.get(i));
      assertThat(f.find(Key.of(expected.get(i)))).isEqualTo(i);
    }
    assertThat(f.find(key(FieldType.STRING, "abc"))).isEqualTo(-(3 + 1));
    assertThat(f.find(key(FieldType.STRING, "abcdefgg"))).isEqualTo(-(3 + 1));
    assertThat(f.find(key(FieldType.STRING, "\u00ff\u00ff"))).isEqualTo(-(expected.size() + 1));
    assertThat(f.offsetWidth).isEqualTo(2);
  }

  @Test
  void largeTablesSwitchToFourByteEntriesAndIds() throws Exception {
    int n = 70_000;
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      values.add("value-" + (i % 20_000) + "-padding");
    }
    FieldReader f = single(FieldType.STRING, FieldRole.FULL, values);
    assertThat(f.offsetWidth).isEqualTo(4);
    assertThat(f.prefixWidth).isEqualTo(4);
    assertThat(f.idBytes).isEqualTo(4);
    assertThat(f.valueCount).isEqualTo(20_000);
    int v = f.find(key(FieldType.STRING, "value-123-padding"));
    assertThat(f.count(v)).isEqualTo(4);
    int[] docs = new int[4];
    assertThat(f.collect(v, null, docs)).isEqualTo(4);
    assertThat(docs).containsExactly(123, 20_123, 40_123, 60_123);
    for (int doc = 0; doc < n; doc += 997) {
      assertThat(f.valueBytes(f.valueIndex(doc)))
          .isEqualTo(FieldType.STRING.encode(values.get(doc)));
    }
  }

  @Test
  void postingsAreListsOrBitSetsByValueSizeWithStoredCounts() throws Exception {
    // 1000 documents: value 0 on 900 of them (bit set), values 1..100 on one each (lists).
    List<Object> values = new ArrayList<>();
    for (int i = 0; i < 1000; i++) {
      values.add(i % 10 == 9 ? i / 10 + 1 : 0);
    }
    FieldReader f = single(FieldType.INT, FieldRole.FULL, values);
    int zero = f.find(key(FieldType.INT, 0));
    int seven = f.find(key(FieldType.INT, 7));
    assertThat(f.count(zero)).isEqualTo(900);
    assertThat(f.isListAt(zero)).isFalse();
    assertThat(f.count(seven)).isEqualTo(1);
    assertThat(f.isListAt(seven)).isTrue();
    assertThat(f.allLists).isFalse();
    assertThat(f.singleValued).isTrue();
    assertThat(f.postingContains(zero, 0)).isTrue();
    assertThat(f.postingContains(zero, 9)).isFalse();
    assertThat(f.postingContains(seven, 69)).isTrue();
    assertThat(f.postingContains(seven, 70)).isFalse();
    assertThat(f.countRange(0, f.valueCount)).isEqualTo(1000);
    long[] bits = new long[FileFormat.words(1000)];
    f.orRangeInto(seven, seven + 3, bits);
    assertThat(ConditionEvaluator.popcount(bits)).isEqualTo(3);
  }

  @Test
  void multiValuedFilterableFieldDeduplicatesValuesWithinADocument() throws Exception {
    Schema schema = Schema.builder().field("tags", FieldType.STRING, FieldRole.FILTERABLE).build();
    DatabaseBuilder b = DatabaseBuilder.create(schema);
    b.add(Document.builder(schema).add("tags", "x").add("tags", "x").add("tags", "y").build());
    b.add(Document.builder(schema).build());
    b.add(Document.builder(schema).add("tags", "y").build());
    FieldReader f = (DatabaseReader.of(Database.fromBytes(b.toByteArray()))).field(0);
    assertThat(f.singleValued).isFalse();
    assertThat(f.count(f.find(key(FieldType.STRING, "x")))).isEqualTo(1);
    assertThat(f.count(f.find(key(FieldType.STRING, "y")))).isEqualTo(2);
    assertThat(f.docValues).isEqualTo(-1);
  }

  @Test
  void documentToRankIndexPacksRanksToTheNeededWidth() throws Exception {
    Random random = new Random(42);
    for (int distinct : new int[] {1, 2, 3, 300, 70_000}) {
      List<Object> values = new ArrayList<>();
      for (int i = 0; i < Math.max(distinct, 2000); i++) {
        values.add(i < distinct ? (long) i * 7 : (long) random.nextInt(distinct) * 7);
      }
      FieldReader f = single(FieldType.LONG, FieldRole.SORTABLE, values);
      assertThat(f.bitWidth).isEqualTo(FileFormat.bitWidth(distinct));
      assertThat(f.postings).isEqualTo(-1);
      for (int doc = 0; doc < values.size(); doc++) {
        assertThat(f.valueIndex(doc)).isEqualTo((int) ((long) values.get(doc) / 7));
      }
    }
  }

  @Test
  void ranksAndBitSetPostingsReadBackForRandomWidthsAndDocumentCounts() throws Exception {
    Random random = new Random(0x5e9_b175L);
    for (int trial = 0; trial < 60; trial++) {
      int documents = 1 + random.nextInt(3000);
      int distinct = 1 + random.nextInt(1 << (1 + random.nextInt(12)));
      List<Object> values = new ArrayList<>();
      for (int doc = 0; doc < documents; doc++) {
        // value 0 on about half of the documents, so it is stored as a bit set
        values.add(random.nextBoolean() ? 0L : (long) random.nextInt(distinct));
      }
      FieldReader f = single(FieldType.LONG, FieldRole.FULL, values);
      long[] ofRank = new long[f.valueCount];
      for (int r = 0; r < f.valueCount; r++) {
        ofRank[r] = (long) FieldType.LONG.decode(f.valueBytes(r));
      }
      int[] counts = new int[f.valueCount];
      for (int doc = 0; doc < documents; doc++) {
        int rank = f.valueIndex(doc);
        assertThat(ofRank[rank]).as("trial %d doc %d", trial, doc).isEqualTo(values.get(doc));
        assertThat(f.postingContains(rank, doc)).as("trial %d doc %d", trial, doc).isTrue();
        counts[rank]++;
      }
      for (int r = 0; r < f.valueCount; r++) {
        assertThat(f.count(r)).as("trial %d rank %d", trial, r).isEqualTo(counts[r]);
      }
    }
  }
}
