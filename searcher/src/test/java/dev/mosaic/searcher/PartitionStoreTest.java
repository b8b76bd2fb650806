package dev.mosaic.searcher;

import static dev.mosaic.searcher.TestFiles.SCHEMA_VERSION;
import static dev.mosaic.searcher.TestFiles.publish;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.format.DatabaseBuilder;
import dev.mosaic.format.Document;
import dev.mosaic.format.FieldRole;
import dev.mosaic.format.FieldType;
import dev.mosaic.format.Schema;
import dev.mosaic.partition.FileDigest;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.partition.RejectedFileException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PartitionStoreTest {
  @TempDir Path root;

  private PartitionStore started(int keep) throws IOException {
    PartitionStore s = PartitionStore.builder(root).keepVersions(keep).build();
    s.start();
    return s;
  }

  private Path partitionDir(int p) {
    return root.resolve("v" + SCHEMA_VERSION).resolve(Integer.toString(p));
  }

  private List<String> names(int p) throws IOException {
    try (Stream<Path> files = Files.list(partitionDir(p))) {
      return files.map(f -> f.getFileName().toString()).sorted().toList();
    }
  }

  @Test
  void publishedFileLandsUnderSchemaPartitionVersionAndIsServed() throws IOException {
    try (PartitionStore store = started(2)) {
      List<int[]> events = new ArrayList<>();
      store.addListener((s, p) -> events.add(new int[] {s, p}));
      publish(store, 3, 7);
      assertThat(partitionDir(3).resolve("7.mosaic")).exists();
      assertThat(names(3)).containsExactly("7.mosaic");
      assertThat(store.latestVersions(SCHEMA_VERSION)).isEqualTo(Map.of(3, 7L));
      assertThat(store.file(new PartitionFileId(SCHEMA_VERSION, 3, 7))).isPresent();
      StoredFile f = store.servingFiles(SCHEMA_VERSION).get(3);
      assertThat(f.sizeInBytes()).isEqualTo(Files.size(f.path()));
      assertThat(new FileDigest(f.sizeInBytes(), f.crc32c()))
          .as("the content checksum, as the version manifest records it")
          .isEqualTo(FileDigest.of(f.path()));
      assertThat(f.schema()).isEqualTo(TestFiles.SCHEMA);
      publish(store, 4, 7);
      assertThat(store.servingFiles(SCHEMA_VERSION).get(4).crc32c()).isNotEqualTo(f.crc32c());
      assertThat(events).hasSize(2);
      assertThat(events.get(0)).containsExactly(SCHEMA_VERSION, 3);
    }
  }

  @Test
  void servingMapsAreDerivedOncePerChangeAndFollowEveryKindOfChange() throws IOException {
    try (PartitionStore store = started(2)) {
      publish(store, 0, 1);
      publish(store, 1, 1);
      var serving = store.servingFiles(SCHEMA_VERSION);
      var latest = store.latestVersions(SCHEMA_VERSION);
      StoredFile[] array = store.servingArray(SCHEMA_VERSION);
      // unchanged store: the same maps, which nobody can modify
      assertThat(store.servingFiles(SCHEMA_VERSION)).isSameAs(serving);
      assertThat(store.latestVersions(SCHEMA_VERSION)).isSameAs(latest);
      assertThat(store.servingArray(SCHEMA_VERSION)).isSameAs(array);
      assertThat(array).containsExactly(serving.get(0), serving.get(1));
      assertThatThrownBy(() -> serving.remove(0)).isInstanceOf(UnsupportedOperationException.class);
      assertThatThrownBy(() -> latest.put(9, 9L)).isInstanceOf(UnsupportedOperationException.class);

      publish(store, 0, 2); // a publish
      assertThat(store.servingFiles(SCHEMA_VERSION).get(0).id().version()).isEqualTo(2);
      assertThat(store.servingArray(SCHEMA_VERSION)[0].id().version()).isEqualTo(2);
      assertThat(array[0].id().version()).as("an earlier array stays as it was").isEqualTo(1);
      assertThat(store.latestVersions(SCHEMA_VERSION)).isEqualTo(Map.of(0, 2L, 1, 1L));
      assertThat(serving.get(0).id().version()).as("an earlier map stays as it was").isEqualTo(1);

      store.pin(SCHEMA_VERSION, 0, 1); // a pin
      assertThat(store.servingFiles(SCHEMA_VERSION).get(0).id().version()).isEqualTo(1);
      assertThat(store.servingArray(SCHEMA_VERSION)[0].id().version()).isEqualTo(1);
      store.unpin(SCHEMA_VERSION, 0); // an unpin
      assertThat(store.servingFiles(SCHEMA_VERSION).get(0).id().version()).isEqualTo(2);

      publish(store, 1, 2);
      publish(store, 1, 3); // prunes version 1 of partition 1 (two kept)
      assertThat(store.servingFiles(SCHEMA_VERSION).get(1).id().version()).isEqualTo(3);
      Files.delete(store.servingFiles(SCHEMA_VERSION).get(1).path());
      Files.delete(partitionDir(1).resolve("2.mosaic"));
      store.rescan(); // files that vanished from disk
      assertThat(store.servingFiles(SCHEMA_VERSION)).containsOnlyKeys(0);
      assertThat(store.servingArray(SCHEMA_VERSION))
          .containsExactly(store.servingFiles(SCHEMA_VERSION).get(0), null);
      assertThat(store.latestVersions(SCHEMA_VERSION)).isEqualTo(Map.of(0, 2L));
    }
  }

  @Test
  void corruptFileIsRejectedWithReasonAndPreviousVersionKeepsServing() throws IOException {
    try (PartitionStore store = started(2)) {
      publish(store, 0, 1);
      byte[] bytes = TestFiles.bytes(0, 2);
      bytes[bytes.length / 2] ^= 0x5a;
      PartitionFileId id = new PartitionFileId(SCHEMA_VERSION, 0, 2);
      try (ReceivingStore.StagedFile staged = store.stage(id, bytes.length)) {
        Files.write(staged.path(), bytes);
        assertThatThrownBy(staged::publish)
            .isInstanceOf(RejectedFileException.class)
            .hasMessageContaining("v1/0/2")
            .hasMessageContaining("fails verification");
      }
      assertThat(store.servingFiles(SCHEMA_VERSION).get(0).id().version()).isEqualTo(1);
      assertThat(names(0)).containsExactly("1.mosaic");
    }
  }

  @Test
  void shortFileIsRejectedNamingBothSizes() throws IOException {
    try (PartitionStore store = started(2)) {
      byte[] bytes = TestFiles.bytes(0, 1);
      PartitionFileId id = new PartitionFileId(SCHEMA_VERSION, 0, 1);
      try (ReceivingStore.StagedFile staged = store.stage(id, bytes.length + 10)) {
        Files.write(staged.path(), bytes);
        assertThatThrownBy(staged::publish)
            .isInstanceOf(RejectedFileException.class)
            .hasMessageContaining(
                "expected " + (bytes.length + 10) + " bytes but received " + bytes.length);
      }
      assertThat(store.servingFiles(SCHEMA_VERSION)).isEmpty();
      assertThat(names(0)).isEmpty();
    }
  }

  @Test
  void fileWhoseHeaderSchemaVersionDiffersFromTheAnnouncedOneIsRejected() throws IOException {
    try (PartitionStore store = started(2)) {
      byte[] bytes = TestFiles.bytes(0, 1);
      PartitionFileId id = new PartitionFileId(2, 0, 1);
      try (ReceivingStore.StagedFile staged = store.stage(id, bytes.length)) {
        Files.write(staged.path(), bytes);
        assertThatThrownBy(staged::publish)
            .isInstanceOf(RejectedFileException.class)
            .hasMessageContaining("schema version is 1, announced 2");
      }
    }
  }

  @Test
  void differentSchemaUnderTheSameSchemaVersionIsRejected() throws IOException {
    try (PartitionStore store = started(2)) {
      publish(store, 0, 1);
      Schema other =
          Schema.builder()
              .version(SCHEMA_VERSION)
              .field("x", FieldType.INT, FieldRole.FULL)
              .build();
      byte[] bytes =
          DatabaseBuilder.create(other)
              .add(Document.builder(other).add("x", 1).build())
              .toByteArray();
      PartitionFileId id = new PartitionFileId(SCHEMA_VERSION, 1, 1);
      try (ReceivingStore.StagedFile staged = store.stage(id, bytes.length)) {
        Files.write(staged.path(), bytes);
        assertThatThrownBy(staged::publish)
            .isInstanceOf(RejectedFileException.class)
            .hasMessageContaining("schema differs");
      }
    }
  }

  @Test
  void versionsNotNewerThanTheHeldOneAreRefusedUpFront() throws IOException {
    try (PartitionStore store = started(2)) {
      publish(store, 0, 5);
      assertThatThrownBy(() -> store.stage(new PartitionFileId(SCHEMA_VERSION, 0, 5), 10))
          .isInstanceOf(RejectedFileException.class)
          .hasMessageContaining("already held");
      assertThatThrownBy(() -> store.stage(new PartitionFileId(SCHEMA_VERSION, 0, 4), 10))
          .isInstanceOf(RejectedFileException.class)
          .hasMessageContaining("older than the held version 5");
      try (var staged = store.stage(new PartitionFileId(SCHEMA_VERSION, 0, 6), 10)) {
        assertThatThrownBy(() -> store.stage(new PartitionFileId(SCHEMA_VERSION, 0, 6), 10))
            .isInstanceOf(RejectedFileException.class)
            .hasMessageContaining("already being received");
      }
      assertThat(names(0)).containsExactly("5.mosaic");
    }
  }

  @Test
  void keepsTheNewestKVersionsAndDeletesOlderOnesUnlessRetained() throws IOException {
    try (PartitionStore store = started(2)) {
      publish(store, 0, 1);
      store.retain(new PartitionFileId(SCHEMA_VERSION, 0, 1));
      publish(store, 0, 2);
      publish(store, 0, 3);
      assertThat(names(0)).containsExactly("1.mosaic", "2.mosaic", "3.mosaic");
      store.release(new PartitionFileId(SCHEMA_VERSION, 0, 1));
      assertThat(names(0)).containsExactly("2.mosaic", "3.mosaic");
      publish(store, 0, 4);
      assertThat(names(0)).containsExactly("3.mosaic", "4.mosaic");
    }
  }

  @Test
  void aFileHeldForATransferStaysOnDiskUntilTheTransferEnds() throws IOException {
    try (PartitionStore store = started(1)) {
      publish(store, 0, 1);
      var held = store.hold(new PartitionFileId(SCHEMA_VERSION, 0, 1)).orElseThrow();
      publish(store, 0, 2);
      publish(store, 0, 3);
      assertThat(names(0)).containsExactly("1.mosaic", "3.mosaic");
      assertThat(held.path()).exists();
      held.close();
      held.close(); // idempotent: releases once
      assertThat(names(0)).containsExactly("3.mosaic");
      assertThat(store.hold(new PartitionFileId(SCHEMA_VERSION, 0, 1))).isEmpty();
    }
  }

  @Test
  void pinServesAnOlderVersionKeepsItAndSurvivesRestart() throws IOException {
    try (PartitionStore store = started(2)) {
      publish(store, 0, 1);
      publish(store, 0, 2);
      store.pin(SCHEMA_VERSION, 0, 1);
      publish(store, 0, 3);
      publish(store, 0, 4);
      assertThat(store.servingFiles(SCHEMA_VERSION).get(0).id().version()).isEqualTo(1);
      assertThat(names(0)).containsExactly("1.mosaic", "3.mosaic", "4.mosaic", "pinned");
      assertThatThrownBy(() -> store.pin(SCHEMA_VERSION, 0, 2))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("has no version 2; held versions: [1, 3, 4]");
    }
    try (PartitionStore store = started(2)) {
      PartitionStore.PartitionState s = store.partitionStates(SCHEMA_VERSION).get(0);
      assertThat(s.pinned()).isTrue();
      assertThat(s.serving().id().version()).isEqualTo(1);
      assertThat(store.unpin(SCHEMA_VERSION, 0)).isTrue();
      assertThat(store.servingFiles(SCHEMA_VERSION).get(0).id().version()).isEqualTo(4);
      assertThat(names(0)).containsExactly("3.mosaic", "4.mosaic");
      assertThat(store.unpin(SCHEMA_VERSION, 0)).isFalse();
    }
  }

  @Test
  void startDeletesTemporaryFilesQuarantinesCorruptOnesAndServesNewestGood() throws IOException {
    try (PartitionStore store = started(3)) {
      publish(store, 0, 1);
      publish(store, 0, 2);
      publish(store, 1, 1);
    }
    // a crash left a half-received file, and version 3 of partition 0 is truncated on disk
    Files.write(partitionDir(0).resolve("4.mosaic.1234abcd.tmp"), TestFiles.bytes(0, 4));
    // and one rebuilding version 5 from a change set
    Files.write(
        partitionDir(0).resolve(".5.mosaic.5678ef.tmp.4242.123456.updating"),
        TestFiles.bytes(0, 5));
    byte[] three = TestFiles.bytes(0, 3);
    Files.write(
        partitionDir(0).resolve("3.mosaic"), java.util.Arrays.copyOf(three, three.length / 2));
    // and partition 1's only file has a flipped byte
    Path p1 = partitionDir(1).resolve("1.mosaic");
    byte[] one = Files.readAllBytes(p1);
    one[one.length / 3] ^= 0x01;
    Files.write(p1, one);

    try (PartitionStore store = started(3)) {
      assertThat(names(0)).containsExactly("1.mosaic", "2.mosaic", "3.mosaic.corrupt");
      assertThat(names(1)).containsExactly("1.mosaic.corrupt");
      assertThat(store.servingFiles(SCHEMA_VERSION).keySet()).containsExactly(0);
      assertThat(store.servingFiles(SCHEMA_VERSION).get(0).id().version()).isEqualTo(2);
      // a newer good version is accepted after the quarantine
      publish(store, 0, 3);
      assertThat(store.servingFiles(SCHEMA_VERSION).get(0).id().version()).isEqualTo(3);
    }
  }

  @Test
  void rescanPicksUpFilesRenamedIntoPlaceByHand() throws IOException {
    try (PartitionStore store = started(2)) {
      publish(store, 0, 1);
      Path dir = partitionDir(5);
      Files.createDirectories(dir);
      Files.write(dir.resolve("9.mosaic"), TestFiles.bytes(5, 9));
      List<Integer> changed = new ArrayList<>();
      store.addListener((s, p) -> changed.add(p));
      assertThat(store.rescan()).isTrue();
      assertThat(changed).containsExactly(5);
      assertThat(store.servingFiles(SCHEMA_VERSION).get(5).id().version()).isEqualTo(9);
      assertThat(store.rescan()).isFalse();
    }
  }

  @Test
  void stagedFileClosedWithoutPublishingLeavesNothing() throws IOException {
    try (PartitionStore store = started(2)) {
      try (var staged = store.stage(new PartitionFileId(SCHEMA_VERSION, 0, 1), 100)) {
        Files.write(staged.path(), new byte[50]);
        assertThat(staged.path().getFileName().toString()).startsWith("1.mosaic.").endsWith(".tmp");
        assertThat(store.servingFiles(SCHEMA_VERSION)).isEmpty();
      }
      assertThat(names(0)).isEmpty();
      // and the version can be received again
      publish(store, 0, 1);
      assertThat(names(0)).containsExactly("1.mosaic");
    }
  }
}
