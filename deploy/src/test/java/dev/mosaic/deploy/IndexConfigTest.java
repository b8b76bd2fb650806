package dev.mosaic.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.api.cars.CarsSchema;
import dev.mosaic.api.schema.BuiltInSchemas;
import dev.mosaic.indexer.FeedDirectoryWatcher.ReadySignal;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code mosaic.indexes}: the default index, indexes beside it, schema files, bad sections. */
class IndexConfigTest {
  @TempDir Path dir;

  @Test
  void theDefaultIsOneCarsIndexAtTheSingleIndexLocations() {
    MosaicConfig c = MosaicConfig.withOverrides(Map.of());
    assertThat(c.indexes).hasSize(1);
    IndexConfig cars = c.defaultIndex();
    assertThat(cars.name()).isEqualTo("cars");
    assertThat(cars.isDefault()).isTrue();
    assertThat(cars.schema().schema()).isEqualTo(CarsSchema.SCHEMA);
    assertThat(cars.offersTopic()).isEqualTo(c.offersTopic);
    assertThat(cars.deadLetterTopic()).isEqualTo(c.deadLetterTopic);
    assertThat(cars.zkRoot()).isEqualTo(c.zkRoot);
    assertThat(cars.groupId()).isEqualTo(c.indexer.groupId);
    assertThat(cars.partitions()).isEqualTo(c.partitions);
    assertThat(cars.beside(Path.of("/data/n1/store"))).isEqualTo(Path.of("/data/n1/store"));
  }

  @Test
  void anotherIndexLivesBesideTheDefaultOne() {
    MosaicConfig c =
        MosaicConfig.withOverrides(
            Map.of("mosaic.indexes", "[{name = cars}, {name = realty, partitions = 16}]"));
    IndexConfig realty = c.index("realty");
    assertThat(realty.isDefault()).isFalse();
    assertThat(realty.schema().schema()).isEqualTo(BuiltInSchemas.realty().schema());
    assertThat(realty.partitions()).isEqualTo(16);
    assertThat(realty.offersTopic()).isEqualTo("realty-offers");
    assertThat(realty.deadLetterTopic()).isEqualTo("realty-offers-dlq");
    assertThat(realty.zkRoot()).isEqualTo("/mosaic/indexes/realty");
    assertThat(realty.groupId()).isEqualTo("mosaic-indexer-realty");
    assertThat(realty.simulate()).isEqualTo("realty");
    assertThat(realty.beside(Path.of("/data/n1/store")))
        .isEqualTo(Path.of("/data/n1/store-realty"));
  }

  @Test
  void aSchemaFileReplacesTheBuiltInSchema() throws Exception {
    String cars;
    try (InputStream in =
        getClass().getClassLoader().getResourceAsStream(BuiltInSchemas.CARS_RESOURCE)) {
      cars = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Path file = dir.resolve("cars-v2.schema.json");
    Files.writeString(file, cars.replaceFirst("\"version\"\\s*:\\s*1", "\"version\": 2"));
    MosaicConfig c =
        MosaicConfig.withOverrides(
            Map.of("mosaic.indexes", "[{name = cars, schema-file = \"" + file + "\"}]"));
    assertThat(c.defaultIndex().schemaVersion()).isEqualTo(2);
    assertThat(c.defaultIndex().schema().schema().fields()).isEqualTo(CarsSchema.SCHEMA.fields());
  }

  @Test
  void badSectionsNameTheIndexAndWhatIsWrong() {
    assertThatThrownBy(
            () ->
                MosaicConfig.withOverrides(Map.of("mosaic.indexes", "[{name = cars, shards = 3}]")))
        .hasMessageContaining("cars")
        .hasMessageContaining("unknown key 'shards'");
    assertThatThrownBy(
            () ->
                MosaicConfig.withOverrides(
                    Map.of("mosaic.indexes", "[{name = cars}, {name = cars}]")))
        .hasMessageContaining("listed twice");
    assertThatThrownBy(
            () -> MosaicConfig.withOverrides(Map.of("mosaic.indexes", "[{name = travel}]")))
        .hasMessageContaining("travel")
        .hasMessageContaining("no built-in schema");
    assertThatThrownBy(
            () ->
                MosaicConfig.withOverrides(
                    Map.of(
                        "mosaic.indexes",
                        "[{name = cars, schema-file = \"" + dir.resolve("missing.json") + "\"}]")))
        .hasMessageContaining("missing.json");
    assertThatThrownBy(
            () -> MosaicConfig.withOverrides(Map.of("mosaic.indexes", "[{name = Cars}]")))
        .hasMessageContaining("must match");
    assertThatThrownBy(() -> MosaicConfig.withOverrides(Map.of("mosaic.indexes", "[]")))
        .hasMessageContaining("lists no index");
    assertThatThrownBy(() -> MosaicConfig.withOverrides(Map.of()).index("boats"))
        .hasMessageContaining("boats")
        .hasMessageContaining("[cars]");
  }

  @Test
  void partnerFeedsAreReadPerIndexAndTurnTheSimulatorOffUnlessAskedFor() {
    MosaicConfig c =
        MosaicConfig.withOverrides(
            Map.of(
                "mosaic.indexes",
                "[{name = cars}, {name = realty, feed-directory = \""
                    + dir
                    + "\", feed-ready = marker, snapshot-topic = realty-snapshots}]"));
    assertThat(c.defaultIndex().feeds()).isEqualTo(PartnerFeeds.NONE);
    assertThat(c.defaultIndex().simulate()).isEqualTo("cars");
    IndexConfig realty = c.index("realty");
    assertThat(realty.feeds())
        .isEqualTo(new PartnerFeeds(dir, ReadySignal.MARKER, "realty-snapshots"));
    assertThat(realty.simulate())
        .as("partner feeds given: no simulated partners")
        .isEqualTo("none");
    MosaicConfig both =
        MosaicConfig.withOverrides(
            Map.of(
                "mosaic.indexes",
                "[{name = realty, simulate = realty, snapshot-topic = realty-snapshots}]"));
    assertThat(both.defaultIndex().simulate()).isEqualTo("realty");
    assertThat(both.defaultIndex().feeds().directory()).isNull();
    assertThat(both.defaultIndex().feeds().readySignal()).isEqualTo(ReadySignal.RENAME);
  }

  @Test
  void aFeedReadySignalOtherThanRenameOrMarkerIsRefusedNamingTheIndex() {
    assertThatThrownBy(
            () ->
                MosaicConfig.withOverrides(
                    Map.of(
                        "mosaic.indexes",
                        "[{name = cars}, {name = realty, feed-directory = /tmp/f, feed-ready ="
                            + " inotify}]")))
        .hasMessageContaining("realty")
        .hasMessageContaining("feed-ready must be rename")
        .hasMessageContaining("got inotify");
  }

  @Test
  void theLocalClusterQueriesEachIndexUnderItsName() {
    MosaicConfig c =
        MosaicConfig.withOverrides(
            Map.of(
                "mosaic.indexes", LocalQueries.indexesValue(java.util.List.of("cars", "realty"))));
    assertThat(LocalQueries.mix(c))
        .extracting(QueryLoad.Sample::path)
        .anyMatch(p -> p.startsWith("/indexes/cars/"))
        .anyMatch(p -> p.startsWith("/indexes/realty/"))
        .allMatch(p -> p.startsWith("/indexes/"));
  }
}
