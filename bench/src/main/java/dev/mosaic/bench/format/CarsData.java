package dev.mosaic.bench.format;

import dev.mosaic.api.OfferPartitioning;
import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.feed.CarOffer;
import dev.mosaic.bench.progress.Progress;
import dev.mosaic.format.CompositeDatabase;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.PartitionGroup;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.IntPoint;
import org.apache.lucene.document.LongPoint;
import org.apache.lucene.document.NumericDocValuesField;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.facet.FacetsConfig;
import org.apache.lucene.facet.sortedset.SortedSetDocValuesFacetField;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.store.MMapDirectory;
import org.apache.lucene.util.Version;

/**
 * The cars workload data: {@value #DOCUMENTS} offers from {@link CarOfferGenerator} (seed {@value
 * #SEED}) routed to {@code PARTITIONS} (1024) partitions by dedup key ({@link OfferPartitioning});
 * our partition files of {@link CarsSchema#SCHEMA}; and one Lucene index of the same offers (string
 * fields as terms, numbers as points plus doc values for sorting, mark, body type and year as
 * sorted-set facet dimensions ({@link #FACETS}), the serialized offer as a stored field). All
 * cached under {@link BenchDataRoot}.
 */
final class CarsData {
  static final int DOCUMENTS = 500_000;

  /** Number of partitions: system property {@value #PARTITIONS_PROPERTY}, default 1024. */
  static final String PARTITIONS_PROPERTY = "mosaic.bench.partitions";

  static final int PARTITIONS = Integer.getInteger(PARTITIONS_PROPERTY, 1024);

  /**
   * The offers are generated into this many files (routed by {@link OfferPartitioning}); a layout
   * of fewer partitions (a divisor of it) takes every file {@code f} with {@code f % partitions ==
   * p} into partition {@code p}, which is where {@link OfferPartitioning} routes those offers at
   * that count. So every layout holds the same documents and the queries are the same.
   */
  static final int OFFER_FILES = 1024;

  static final long SEED = 1;

  /** Bump when the generator's output changes, to invalidate cached offers. */
  private static final String GENERATOR_VERSION = "g1";

  static final String PAYLOAD = "payload";

  /**
   * Bump when the Lucene document changes, to invalidate the cached index ({@code f1}: facet
   * dimensions added).
   */
  private static final String LUCENE_DOCUMENT_VERSION = "f1";

  /**
   * The facet dimensions of the Lucene index, all in the default sorted-set doc values field: mark,
   * body type and year (as its decimal string), one value per document.
   */
  static final FacetsConfig FACETS = new FacetsConfig();

  private CarsData() {}

  static Path carsRoot() {
    return BenchDataRoot.get().resolve("cars");
  }

  private static String offersKey() {
    return DOCUMENTS + "x" + OFFER_FILES + "-s" + SEED + "-" + GENERATOR_VERSION;
  }

  private static String layoutKey(int partitions) {
    return DOCUMENTS + "x" + partitions + "-s" + SEED + "-" + GENERATOR_VERSION;
  }

  /** Per-partition files of length-delimited {@link CarOffer}s, generated when missing. */
  static Path offersDirectory() throws IOException {
    return BenchDataRoot.cached(
        carsRoot().resolve("offers-" + offersKey()),
        tmp -> {
          CarOfferGenerator generator = CarOfferGenerator.builder().seed(SEED).build();
          OutputStream[] out = new OutputStream[OFFER_FILES];
          try {
            for (int p = 0; p < OFFER_FILES; p++) {
              out[p] = new BufferedOutputStream(Files.newOutputStream(offersFile(tmp, p)), 16_384);
            }
            Progress progress = Progress.start("cars offers", DOCUMENTS, "offers");
            for (int i = 0; i < DOCUMENTS; i++) {
              CarOffer car = generator.next();
              car.writeDelimitedTo(
                  out[OfferPartitioning.partitionOf(car.getDedupKey(), OFFER_FILES)]);
              progress.advance();
            }
            progress.done();
          } finally {
            for (OutputStream o : out) {
              if (o != null) {
                o.close();
              }
            }
          }
        });
  }

  static Path offersFile(Path offersDirectory, int partition) {
    return offersDirectory.resolve(String.format("p%04d.pb", partition));
  }

  static List<CarOffer> readOffers(Path offersDirectory, int partition) throws IOException {
    List<CarOffer> offers = new ArrayList<>();
    try (InputStream in =
        new BufferedInputStream(Files.newInputStream(offersFile(offersDirectory, partition)))) {
      CarOffer car;
      while ((car = CarOffer.parseDelimitedFrom(in)) != null) {
        offers.add(car);
      }
    }
    return offers;
  }

  /** What building our partitions took and gave. */
  record BuildStats(long documents, long buildNanos, long fileBytes, long payloadBytes) {}

  /** The offers of one partition of a layout of {@code partitions}, in offer-file order. */
  static List<CarOffer> readOffers(Path offersDirectory, int partition, int partitions)
      throws IOException {
    if (partitions < 1 || OFFER_FILES % partitions != 0) {
      throw new IllegalArgumentException(
          "partitions must divide " + OFFER_FILES + ", got " + partitions);
    }
    List<CarOffer> offers = new ArrayList<>();
    for (int f = partition; f < OFFER_FILES; f += partitions) {
      offers.addAll(readOffers(offersDirectory, f));
    }
    return offers;
  }

  /** Our partition files in the layout of {@link #PARTITIONS}, built when missing. */
  static Path oursDirectory() throws IOException {
    return oursDirectory(PARTITIONS);
  }

  /** Our partition files in a layout of {@code partitions}, built when missing. */
  static Path oursDirectory(int partitions) throws IOException {
    Path offers = offersDirectory();
    return BenchDataRoot.cached(
        carsRoot().resolve("ours-" + FormatEngineFingerprint.get() + "-" + layoutKey(partitions)),
        tmp -> buildOurs(offers, tmp, partitions));
  }

  static Path partitionFile(Path directory, int partition) {
    return directory.resolve(String.format("p%04d.mosaic", partition));
  }

  /**
   * Builds every partition into {@code target}. Only {@link DatabaseBuilder#add} and {@link
   * DatabaseBuilder#writeTo(Path)} are timed: reading offers and mapping them to documents are not.
   */
  static BuildStats buildOurs(Path offersDirectory, Path target, int partitions)
      throws IOException {
    long documents = 0;
    long nanos = 0;
    long fileBytes = 0;
    long payloadBytes = 0;
    Progress progress = Progress.start("cars ours", partitions, "partitions");
    for (int p = 0; p < partitions; p++) {
      List<CarOffer> offers = readOffers(offersDirectory, p, partitions);
      List<Document> docs = new ArrayList<>(offers.size());
      for (CarOffer car : offers) {
        Document d = CarOffers.toDocument(car);
        payloadBytes += d.payload().length;
        docs.add(d);
      }
      Path file = partitionFile(target, p);
      long start = System.nanoTime();
      DatabaseBuilder builder = DatabaseBuilder.create(CarsSchema.SCHEMA);
      for (Document d : docs) {
        builder.add(d);
      }
      builder.writeTo(file);
      nanos += System.nanoTime() - start;
      documents += docs.size();
      fileBytes += Files.size(file);
      progress.advance();
    }
    progress.done();
    return new BuildStats(documents, nanos, fileBytes, payloadBytes);
  }

  /** Opens every partition of a directory (each with its own mapping) . */
  static List<Database> openPartitions(Path directory) throws IOException {
    return openPartitions(directory, PARTITIONS);
  }

  /** Opens the {@code count} partitions of a directory (each with its own mapping). */
  static List<Database> openPartitions(Path directory, int count) throws IOException {
    List<Database> partitions = new ArrayList<>(count);
    try {
      for (int p = 0; p < count; p++) {
        partitions.add(Database.open(partitionFile(directory, p)));
      }
    } catch (IOException | RuntimeException e) {
      partitions.forEach(Database::close);
      throw e;
    }
    return partitions;
  }

  static CompositeDatabase composite(List<Database> partitions) {
    return CompositeDatabase.of(CarsSchema.SCHEMA, partitions);
  }

  /**
   * Number of groups the 1024 partitions are merged into for the grouped layout: system property
   * {@value #GROUPS_PROPERTY}, default 32.
   */
  static final String GROUPS_PROPERTY = "mosaic.bench.groups";

  static int groupCount() {
    return Integer.getInteger(GROUPS_PROPERTY, 32);
  }

  /**
   * {@code groups} group files of the partitions of {@link #oursDirectory(int)}, group {@code g}
   * merged ({@link PartitionGroup#merge}) from the consecutive partitions {@code [g * size, (g + 1)
   * * size)}; built when missing.
   */
  static Path groupsDirectory(int partitions, int groups) throws IOException {
    if (groups < 1 || partitions % groups != 0) {
      throw new IllegalArgumentException(
          "groups must divide the " + partitions + " partitions, got " + groups);
    }
    Path ours = oursDirectory(partitions);
    return BenchDataRoot.cached(
        carsRoot()
            .resolve(
                "groups-"
                    + FormatEngineFingerprint.get()
                    + "-"
                    + layoutKey(partitions)
                    + "-g"
                    + groups),
        tmp -> {
          List<Database> members = openPartitions(ours, partitions);
          try {
            Progress progress = Progress.start("cars groups", groups, "groups");
            for (int g = 0; g < groups; g++) {
              PartitionGroup.merge(groupMembers(members, g, groups), groupFile(tmp, g)).close();
              progress.advance();
            }
            progress.done();
          } finally {
            members.forEach(Database::close);
          }
        });
  }

  private static Path groupFile(Path directory, int group) {
    return directory.resolve(String.format("g%03d.mosaic", group));
  }

  private static List<Database> groupMembers(List<Database> partitions, int group, int groups) {
    int size = partitions.size() / groups;
    return partitions.subList(group * size, (group + 1) * size);
  }

  /**
   * Opens the {@code groups} groups of {@code partitions} (opened from {@link
   * #oursDirectory(int)}); close them after the composite is done with.
   */
  static List<PartitionGroup> openGroups(List<Database> partitions, int groups) throws IOException {
    Path directory = groupsDirectory(partitions.size(), groups);
    List<PartitionGroup> opened = new ArrayList<>(groups);
    try {
      for (int g = 0; g < groups; g++) {
        Database merged = Database.open(groupFile(directory, g));
        try {
          opened.add(PartitionGroup.of(merged, groupMembers(partitions, g, groups)));
        } catch (RuntimeException e) {
          merged.close();
          throw e;
        }
      }
    } catch (IOException | RuntimeException e) {
      opened.forEach(PartitionGroup::close);
      throw e;
    }
    return opened;
  }

  /** The Lucene index (merged to one segment), built when missing. */
  static Path luceneDirectory() throws IOException {
    Path offers = offersDirectory();
    return BenchDataRoot.cached(
        carsRoot()
            .resolve(
                "lucene-" + Version.LATEST + "-" + LUCENE_DOCUMENT_VERSION + "-" + offersKey()),
        tmp -> {
          try (MMapDirectory directory = new MMapDirectory(tmp);
              IndexWriter writer =
                  new IndexWriter(
                      directory,
                      new IndexWriterConfig()
                          .setOpenMode(IndexWriterConfig.OpenMode.CREATE)
                          .setRAMBufferSizeMB(256))) {
            Progress progress = Progress.start("cars lucene", OFFER_FILES, "offer files");
            for (int p = 0; p < OFFER_FILES; p++) {
              for (CarOffer car : readOffers(offers, p)) {
                writer.addDocument(FACETS.build(luceneDocument(car)));
              }
              progress.advance();
            }
            progress.note("merging to one segment");
            writer.forceMerge(1);
            writer.commit();
            progress.done();
          }
        });
  }

  static org.apache.lucene.document.Document luceneDocument(CarOffer car) {
    org.apache.lucene.document.Document doc = new org.apache.lucene.document.Document();
    string(doc, CarsSchema.REGION, car.getRegion());
    string(doc, CarsSchema.MARK, car.getMark());
    string(doc, CarsSchema.MODEL, car.getModel());
    string(doc, CarsSchema.BODY_TYPE, car.getBodyType());
    string(doc, CarsSchema.COLOR, car.getColor());
    string(doc, CarsSchema.PARTNER, car.getPartnerId());
    string(doc, CarsSchema.OFFER_ID, car.getOfferId());
    string(doc, CarsSchema.DEDUP_KEY, car.getDedupKey());
    for (String option : car.getOptionsList()) {
      string(doc, CarsSchema.OPTIONS, option);
    }
    doc.add(new IntPoint(CarsSchema.YEAR, car.getYear()));
    doc.add(new NumericDocValuesField(CarsSchema.YEAR, car.getYear()));
    doc.add(new LongPoint(CarsSchema.PRICE, car.getPriceRub()));
    doc.add(new NumericDocValuesField(CarsSchema.PRICE, car.getPriceRub()));
    doc.add(new IntPoint(CarsSchema.MILEAGE, car.getMileageKm()));
    doc.add(new NumericDocValuesField(CarsSchema.MILEAGE, car.getMileageKm()));
    doc.add(new LongPoint(CarsSchema.PUBLISHED, car.getPublishedAtMillis()));
    doc.add(new NumericDocValuesField(CarsSchema.PUBLISHED, car.getPublishedAtMillis()));
    doc.add(new StoredField(PAYLOAD, car.toByteArray()));
    facet(doc, CarsSchema.MARK, car.getMark());
    facet(doc, CarsSchema.BODY_TYPE, car.getBodyType());
    facet(doc, CarsSchema.YEAR, Integer.toString(car.getYear()));
    return doc;
  }

  private static void facet(org.apache.lucene.document.Document doc, String dim, String value) {
    if (!value.isEmpty()) {
      doc.add(new SortedSetDocValuesFacetField(dim, value));
    }
  }

  private static void string(org.apache.lucene.document.Document doc, String name, String value) {
    if (!value.isEmpty()) {
      doc.add(new StringField(name, value, Field.Store.NO));
    }
  }
}
