package dev.mosaic.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.mosaic.api.cars.CarOfferGenerator;
import dev.mosaic.api.cars.CarOffers;
import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.realty.RealtyOfferGenerator;
import dev.mosaic.api.realty.RealtyOffers;
import dev.mosaic.api.realty.RealtySchema;
import dev.mosaic.embedded.EmbeddedZooKeeper;
import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.searcher.Generations;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code schema} command against a real (embedded) ZooKeeper and two running searchers in two
 * datacenters, each serving a {@code cars} index (whose stores hold schema versions 1 and 2) and a
 * {@code realty} index: it switches every searcher of the named index and nothing else, rolls back
 * and forward, and refuses an unknown index or version naming what is wrong.
 */
class SchemaCommandTest {
  private static final String TOKEN = "schema-command-token-0123456789";
  private static final int V1 = CarsSchema.VERSION;
  private static final int V2 = CarsSchema.VERSION + 1;

  @TempDir static Path dir;
  static EmbeddedZooKeeper zk;
  static final List<SearcherRole> searchers = new ArrayList<>();
  static String[] config;

  @BeforeAll
  static void startZooKeeperAndSearchers() throws Exception {
    zk = EmbeddedZooKeeper.builder().dataDir(dir.resolve("zk")).build().start();
    Path token = Files.writeString(dir.resolve("admin-token"), TOKEN + "\n");
    Map<String, String> o = new LinkedHashMap<>();
    o.put("mosaic.zookeeper.connect", zk.connectString());
    o.put("mosaic.transport.zookeeper.digest-password", "schema-command-test-secret");
    o.put("mosaic.indexes", LocalQueries.indexesValue(List.of("cars", "realty")));
    o.put("mosaic.searcher.admin-token-file", token.toString());
    List<String> args = new ArrayList<>();
    o.forEach((k, v) -> args.addAll(List.of("--set", k + "=" + v)));
    config = args.toArray(String[]::new);
    MosaicConfig mosaic = MosaicConfig.withOverrides(o);
    for (String dc : List.of("dc-a", "dc-b")) {
      Path store = Files.createDirectories(dir.resolve("store-" + dc));
      SearcherRole.Spec spec = new SearcherRole.Spec("s-" + dc, dc, store, "127.0.0.1", "", 0, 0);
      SearcherRole role = new SearcherRole(spec, mosaic, zk.connectString());
      searchers.add(role);
      role.start();
      publish(role.node().index("cars").store(), V1, carsFile());
      publish(role.node().index("cars").store(), V2, carsV2File());
      publish(role.node().index("realty").store(), RealtySchema.VERSION, realtyFile());
    }
  }

  @AfterAll
  static void stop() throws Exception {
    searchers.forEach(SearcherRole::close);
    if (zk != null) {
      zk.close();
    }
  }

  /** Every test starts with both searchers serving cars at schema version 2. */
  @BeforeEach
  void servingTheNewestCarsSchema() {
    for (SearcherRole s : searchers) {
      cars(s).switchSchemaVersion(V2).join();
      s.node().index("realty").generations().reopen().join();
    }
  }

  private static Generations cars(SearcherRole s) {
    return s.node().index("cars").generations();
  }

  private static OptionalInt realtyVersion(SearcherRole s) {
    return s.node().index("realty").generations().schemaVersion();
  }

  private static CommandRun schema(String... args) {
    List<String> all = new ArrayList<>(List.of("schema"));
    all.addAll(List.of(config));
    all.addAll(List.of(args));
    return CommandRun.of(all.toArray(String[]::new));
  }

  @Test
  void rollsEverySearcherOfTheIndexBackAndForwardLeavingTheOtherIndexAlone() {
    OptionalInt realtyBefore = realtyVersion(searchers.getFirst());
    assertThat(realtyBefore).hasValue(RealtySchema.VERSION);

    CommandRun back = schema("--index", "cars", "--version", String.valueOf(V1));
    assertThat(back.exitCode()).as(back.err()).isZero();
    for (SearcherRole s : searchers) {
      assertThat(cars(s).schemaVersion()).hasValue(V1);
      assertThat(realtyVersion(s)).isEqualTo(realtyBefore);
    }
    assertThat(back.out())
        .contains("ok   dc-a s-dc-a: 200")
        .contains("ok   dc-b s-dc-b: 200")
        .contains("index cars: 2 searchers serve schema version " + V1 + ", 0 failed");

    CommandRun forward = schema("--index", "cars", "--version", String.valueOf(V2));
    assertThat(forward.exitCode()).as(forward.err()).isZero();
    for (SearcherRole s : searchers) {
      assertThat(cars(s).schemaVersion()).hasValue(V2);
    }
  }

  @Test
  void withoutIndexTheDefaultIndexSwitches() {
    CommandRun run = schema("--version", String.valueOf(V1));
    assertThat(run.exitCode()).as(run.err()).isZero();
    assertThat(run.out()).contains("index cars: 2 searchers");
    searchers.forEach(s -> assertThat(cars(s).schemaVersion()).hasValue(V1));
  }

  @Test
  void anUnknownVersionFailsNamingWhatTheStoresHoldAndNothingSwitches() {
    CommandRun run = schema("--index", "cars", "--version", "99");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.out())
        .contains("FAIL dc-a s-dc-a: 400")
        .contains("FAIL dc-b s-dc-b: 400")
        .contains("the store holds no partition of schema version 99")
        .contains("held schema versions: [" + V1 + ", " + V2 + "]")
        .contains("index cars: 0 searchers serve schema version 99, 2 failed");
    searchers.forEach(s -> assertThat(cars(s).schemaVersion()).hasValue(V2));
  }

  @Test
  void anUnknownIndexFailsNamingTheConfiguredOnes() {
    CommandRun run = schema("--index", "travel", "--version", "1");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .contains("no index 'travel' in mosaic.indexes; configured: [cars, realty]");
    searchers.forEach(s -> assertThat(cars(s).schemaVersion()).hasValue(V2));
  }

  @Test
  void anIndexWithNoRegisteredSearcherFailsSayingSo() {
    CommandRun run =
        schema(
            "--set",
            "mosaic.indexes=[{name = \"cars\"}, {name = \"realty\", zookeeper-root = \"/nobody\"}]",
            "--index",
            "realty",
            "--version",
            "1");
    assertThat(run.exitCode()).isEqualTo(1);
    assertThat(run.err())
        .contains("no searcher is registered for index realty")
        .contains("/nobody/searchers")
        .contains("nothing switched");
  }

  private static void publish(ReceivingStore store, int schemaVersion, byte[] bytes)
      throws Exception {
    try (var staged = store.stage(new PartitionFileId(schemaVersion, 0, 1), bytes.length)) {
      Files.write(staged.path(), bytes);
      staged.publish();
    }
  }

  private static byte[] carsFile() {
    DatabaseBuilder b = DatabaseBuilder.create(CarsSchema.SCHEMA);
    CarOfferGenerator.builder()
        .seed(3)
        .build()
        .next(20)
        .forEach(c -> b.add(CarOffers.toDocument(c)));
    return b.toByteArray();
  }

  /** A file of the next cars schema version: one more field. */
  private static byte[] carsV2File() {
    Schema v2 =
        Schema.builder()
            .version(V2)
            .payloadType(CarsSchema.PAYLOAD_TYPE)
            .field(CarsSchema.OFFER_ID, FieldType.STRING, FieldRole.FILTERABLE)
            .field("seller_kind", FieldType.STRING, FieldRole.FILTERABLE)
            .build();
    DatabaseBuilder b = DatabaseBuilder.create(v2);
    for (int i = 0; i < 5; i++) {
      b.add(
          Document.builder(v2)
              .add(CarsSchema.OFFER_ID, "car-" + i)
              .add("seller_kind", i % 2 == 0 ? "dealer" : "private")
              .build());
    }
    return b.toByteArray();
  }

  private static byte[] realtyFile() {
    DatabaseBuilder b = DatabaseBuilder.create(RealtySchema.SCHEMA);
    RealtyOfferGenerator.seeded(3).next(20).forEach(f -> b.add(RealtyOffers.toDocument(f)));
    return b.toByteArray();
  }
}
