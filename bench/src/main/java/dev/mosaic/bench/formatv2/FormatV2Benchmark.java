package dev.mosaic.bench.formatv2;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.PayloadCompression;
import dev.mosaic.format.query.Condition;
import dev.mosaic.format.query.Query;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.ForkJoinPool;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Format v2 against v1 on generated car offers in memory ({@code partitions} partitions of {@code
 * perPartition} offers): random payload fetch, composite {@code eq} on {@code offer_id}, and a
 * composite count sequential against parallel (common pool). {@code variant=v1} builds raw payloads
 * and no Bloom filters; {@code v2} uses the defaults (LZ4 blocks when they pay, automatic Bloom
 * filters). {@code variant=lz4-<k>} forces LZ4 payload blocks of {@code k} KiB (and the default
 * Bloom filters), {@code variant=raw} forces raw payloads with the v2 defaults otherwise: run
 * {@code -p variant=raw,lz4-4,lz4-8,lz4-16,lz4-32 -p perPartition=490} to compare payload fetch
 * latency and bytes by block size. Setup prints a {@code RESULT formatv2_bytes} line with the bytes
 * of all partitions and of their payloads as stored.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class FormatV2Benchmark {
  @Param({"v1", "v2"})
  public String variant;

  @Param("1024")
  public int partitions;

  @Param("300")
  public int perPartition;

  /**
   * {@code heap}: partitions read from byte arrays; {@code mapped}: written to files and mapped.
   */
  @Param("heap")
  public String storage;

  private java.nio.file.Path directory;

  private List<Database> dbs;
  private CompositeDatabase composite;
  private String[] ids;
  private SplittableRandom random;
  private Query countQuery;

  @Setup(Level.Trial)
  public void build() throws Exception {
    CarOfferGenerator generator = CarOfferGenerator.builder().build();
    dbs = new ArrayList<>(partitions);
    List<String> allIds = new ArrayList<>();
    long bytes = 0;
    long payload = 0;
    long stored = 0;
    for (int p = 0; p < partitions; p++) {
      DatabaseBuilder b = DatabaseBuilder.create(CarsSchema.SCHEMA);
      if (variant.equals("v1")) {
        b.payloadCompression(PayloadCompression.NONE).autoBloomFilters(false);
      } else {
        b.bloomFilter(CarsSchema.OFFER_ID);
        if (variant.equals("raw")) {
          b.payloadCompression(PayloadCompression.NONE);
        } else if (variant.startsWith("lz4-")) {
          b.payloadCompression(PayloadCompression.LZ4)
              .payloadBlockSize(Integer.parseInt(variant.substring(4)) * 1024);
        } else if (!variant.equals("v2")) {
          throw new IllegalArgumentException("unknown variant " + variant);
        }
      }
      for (CarOffer car : generator.next(perPartition)) {
        Document d = CarOffers.toDocument(car);
        payload += d.payload().length;
        allIds.add(
            d.values(CarsSchema.OFFER_ID).isEmpty()
                ? ""
                : new String(
                    d.values(CarsSchema.OFFER_ID).get(0), java.nio.charset.StandardCharsets.UTF_8));
        b.add(d);
      }
      Database db;
      if (storage.equals("mapped")) {
        if (directory == null) {
          directory = java.nio.file.Files.createTempDirectory("formatv2-");
        }
        java.nio.file.Path file = directory.resolve("p" + p + ".mosaic");
        b.writeTo(file);
        db = Database.open(file);
      } else {
        db = Database.fromBytes(b.toByteArray());
      }
      bytes += db.sizeInBytes();
      stored += db.layout().orElseThrow().payloadBytesStored();
      dbs.add(db);
    }
    composite = CompositeDatabase.of(CarsSchema.SCHEMA, dbs);
    ids = allIds.toArray(new String[0]);
    random = new SplittableRandom(42);
    countQuery =
        Query.where(
            Condition.and(
                Condition.eq(CarsSchema.MARK, CarOfferGenerator.marks().get(0)),
                Condition.gte(CarsSchema.PRICE, 1_000_000L)));
    System.out.printf(
        "RESULT formatv2_bytes variant=%s partitions=%d documents=%d file_bytes=%d"
            + " raw_payload_bytes=%d stored_payload_bytes=%d%n",
        variant, partitions, (long) partitions * perPartition, bytes, payload, stored);
  }

  @TearDown(Level.Trial)
  public void close() throws java.io.IOException {
    dbs.forEach(Database::close);
    if (directory != null) {
      try (var files = java.nio.file.Files.list(directory)) {
        for (java.nio.file.Path f : files.toList()) {
          java.nio.file.Files.delete(f);
        }
      }
      java.nio.file.Files.delete(directory);
    }
  }

  @Benchmark
  public byte payloadFetch() {
    Database db = dbs.get(random.nextInt(partitions));
    MemorySegment p = db.payload(random.nextInt(perPartition));
    return p.byteSize() == 0 ? 0 : p.get(ValueLayout.JAVA_BYTE, p.byteSize() - 1);
  }

  @Benchmark
  public long compositeEqOfferId() {
    return composite.count(
        Query.where(Condition.eq(CarsSchema.OFFER_ID, ids[random.nextInt(ids.length)])));
  }

  @Benchmark
  public long compositeCountSequential() {
    return composite.count(countQuery);
  }

  @Benchmark
  public long compositeCountParallel() {
    return composite.count(countQuery, ForkJoinPool.commonPool());
  }
}
