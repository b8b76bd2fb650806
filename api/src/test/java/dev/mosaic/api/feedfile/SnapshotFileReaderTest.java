package dev.mosaic.api.feedfile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feed.Offer;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SnapshotFileReaderTest {
  private final SnapshotFileReader reader = new SnapshotFileReader();
  private final SnapshotFileWriter writer = new SnapshotFileWriter();

  /** A snapshot of partner-001 mixing car, realty and Any-packed realty offers. */
  private static FeedSnapshot snapshot(long seed, int offers) {
    FeedSnapshot.Builder b =
        FeedSnapshot.newBuilder()
            .setPartnerId("partner-001")
            .setSnapshotId(seed)
            .setCreatedAtMillis(99);
    CarOfferGenerator cars = CarOfferGenerator.builder().seed(seed).partners(1).build();
    RealtyOfferGenerator realty =
        new RealtyOfferGenerator(
            dev.mosaic.api.realty.RealtyGeneratorSettings.DEFAULTS.withSeed(seed).withPartners(1));
    for (int i = 0; i < offers; i++) {
      Offer offer =
          switch (i % 3) {
            case 0 -> CarOffers.toOffer(cars.next(), 5);
            case 1 -> RealtyOffers.toOffer(realty.next(), 5);
            default -> {
              Offer r = RealtyOffers.toOffer(realty.next(), 5);
              yield r.toBuilder().setOther(Any.pack(r.getRealty())).build();
            }
          };
      b.addOffers(offer);
    }
    return b.build();
  }

  @Test
  void jsonLinesWithRandomBadLinesGiveEveryGoodOfferAndEachBadLineNumber() throws IOException {
    for (long seed = 1; seed <= 5; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      FeedSnapshot snapshot = snapshot(seed, 300);
      List<String> lines =
          new ArrayList<>(Arrays.asList(text(snapshot, SnapshotFileFormat.JSON_LINES).split("\n")));
      List<Offer> expected = new ArrayList<>();
      TreeSet<Long> badLines = new TreeSet<>();
      for (int i = 0; i < snapshot.getOffersCount(); i++) {
        int line = i + 1; // 0-based index in lines; the header is index 0
        if (random.nextInt(10) == 0) {
          lines.set(
              line,
              switch (random.nextInt(3)) {
                case 0 -> "{\"offer_id\": \"x\", \"no_such_field\": 1}";
                case 1 -> lines.get(line).substring(0, lines.get(line).length() / 2);
                default -> "{\"fields\": [{\"int_value\": \"not a number\"}]}";
              });
          badLines.add((long) line + 1);
        } else {
          expected.add(snapshot.getOffers(i));
        }
      }
      // Blank lines and CRLF endings are fine.
      String file = String.join("\r\n", lines) + "\n\n";

      SnapshotFile read =
          read(file.getBytes(StandardCharsets.UTF_8), SnapshotFileFormat.JSON_LINES);

      assertThat(read.snapshot().getOffersList()).isEqualTo(expected);
      assertThat(read.snapshot().getPartnerId()).isEqualTo("partner-001");
      assertThat(read.snapshot().getSnapshotId()).isEqualTo(seed);
      assertThat(read.malformed())
          .extracting(MalformedRecord::record)
          .containsExactlyElementsOf(badLines);
      assertThat(read.malformed())
          .allSatisfy(
              m ->
                  assertThat(m.reason())
                      .startsWith("feed.jsonl line " + m.record() + ": not an Offer: "));
    }
  }

  @Test
  void delimitedProtobufWithRandomBadRecordsGivesEveryGoodOfferAndEachBadRecordNumber()
      throws IOException {
    for (long seed = 1; seed <= 5; seed++) {
      SplittableRandom random = new SplittableRandom(seed);
      FeedSnapshot snapshot = snapshot(seed, 300);
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      snapshot.toBuilder().clearOffers().build().writeDelimitedTo(out);
      List<Offer> expected = new ArrayList<>();
      TreeSet<Long> badRecords = new TreeSet<>();
      for (int i = 0; i < snapshot.getOffersCount(); i++) {
        if (random.nextInt(10) == 0) {
          // A length-delimited field 1 claiming 5 bytes with 1 left: framing intact, content bad.
          byte[] bad = {0x0a, 0x05, 'a'};
          out.write(bad.length);
          out.write(bad);
          badRecords.add(i + 2L);
        } else {
          snapshot.getOffers(i).writeDelimitedTo(out);
          expected.add(snapshot.getOffers(i));
        }
      }

      SnapshotFile read = read(out.toByteArray(), SnapshotFileFormat.DELIMITED_PROTOBUF);

      assertThat(read.snapshot().getOffersList()).isEqualTo(expected);
      assertThat(read.malformed())
          .extracting(MalformedRecord::record)
          .containsExactlyElementsOf(badRecords);
      assertThat(read.malformed())
          .allSatisfy(m -> assertThat(m.reason()).contains("record " + m.record() + " at byte "));
    }
  }

  @Test
  void aDelimitedFileCutInsideARecordIsRefusedAsAWhole() throws IOException {
    byte[] whole =
        text(snapshot(1, 20), SnapshotFileFormat.DELIMITED_PROTOBUF)
            .getBytes(StandardCharsets.ISO_8859_1);
    byte[] cut = Arrays.copyOf(whole, whole.length - 7);
    assertThatThrownBy(() -> read(cut, SnapshotFileFormat.DELIMITED_PROTOBUF))
        .isInstanceOf(MalformedSnapshotFileException.class)
        .hasMessageMatching("feed\\.pb record 21 at byte \\d+: the file ends inside a record .*");
  }

  @Test
  void aFileWithoutAValidHeaderIsRefused() {
    assertThatThrownBy(() -> read(new byte[0], SnapshotFileFormat.JSON_LINES))
        .isInstanceOf(MalformedSnapshotFileException.class)
        .hasMessage("feed.jsonl: empty file; the header line is missing");
    assertThatThrownBy(() -> read(bytes("{\"snapshot_id\": 3}\n"), SnapshotFileFormat.JSON_LINES))
        .hasMessage("feed.jsonl line 1: the header has no partner_id");
    assertThatThrownBy(
            () ->
                read(
                    bytes("{\"partner_id\": \"p\", \"offers\": [{}]}\n"),
                    SnapshotFileFormat.JSON_LINES))
        .hasMessage(
            "feed.jsonl line 1: the header holds offers; put one offer per record after it");
    assertThatThrownBy(() -> read(bytes("[1, 2]\n"), SnapshotFileFormat.JSON_LINES))
        .hasMessageStartingWith("feed.jsonl line 1: the header is not a FeedSnapshot: ");
  }

  @Test
  void anOfferWithoutPartnerTakesTheHeadersAndAnOverlongLineIsMalformed() throws IOException {
    SnapshotFileReader small =
        new SnapshotFileReader(dev.mosaic.api.schema.ProtoTypes.builtIn().typeRegistry(), 100);
    String file =
        "{\"partner_id\": \"p7\", \"snapshot_id\": 2}\n"
            + "{\"offer_id\": \"o1\", \"dedup_key\": \"k\"}\n"
            + "{\"offer_id\": \"o2\", \"description\": \""
            + "x".repeat(200)
            + "\"}\n"
            + "{\"partner_id\": \"other\", \"offer_id\": \"o3\"}\n";
    SnapshotFile read =
        small.read(new ByteArrayInputStream(bytes(file)), SnapshotFileFormat.JSON_LINES, "f.jsonl");
    assertThat(read.snapshot().getOffersList())
        .extracting(Offer::getPartnerId, Offer::getOfferId)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("p7", "o1"),
            org.assertj.core.groups.Tuple.tuple("other", "o3"));
    assertThat(read.malformed())
        .singleElement()
        .satisfies(
            m -> {
              assertThat(m.record()).isEqualTo(3);
              assertThat(m.reason()).isEqualTo("f.jsonl line 3: over 100 bytes");
            });
  }

  @Test
  void anAtomicallyWrittenFileReadsBackTheSameSnapshotAndLeavesNoTemporaryFile(@TempDir Path dir)
      throws IOException {
    FeedSnapshot snapshot = snapshot(4, 60);
    for (String name : List.of("partner-001.jsonl", "partner-001.pb")) {
      Path file = writer.writeAtomically(snapshot, dir, name);
      assertThat(reader.read(file).snapshot()).isEqualTo(snapshot);
      assertThat(reader.read(file).malformed()).isEmpty();
    }
    try (var files = Files.list(dir)) {
      assertThat(files.map(p -> p.getFileName().toString()))
          .containsExactlyInAnyOrder("partner-001.jsonl", "partner-001.pb");
    }
    assertThatThrownBy(() -> reader.read(Files.writeString(dir.resolve("x.csv"), "a")))
        .hasMessage("x.csv: unknown snapshot file extension; use .jsonl or .pb");
  }

  private SnapshotFile read(byte[] content, SnapshotFileFormat format) throws IOException {
    String name = format == SnapshotFileFormat.JSON_LINES ? "feed.jsonl" : "feed.pb";
    return reader.read(new ByteArrayInputStream(content), format, name);
  }

  private String text(FeedSnapshot snapshot, SnapshotFileFormat format) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    writer.write(snapshot, format, out);
    return out.toString(
        format == SnapshotFileFormat.JSON_LINES
            ? StandardCharsets.UTF_8
            : StandardCharsets.ISO_8859_1);
  }

  private static byte[] bytes(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }
}
