package dev.mosaic.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The contract every {@link ReceivingStore} passes: a staged file is invisible until published,
 * published files are served and listed, versions only go up, a bad file is rejected with the
 * previous version still served, and nothing staged is left behind. A subclass provides a fresh
 * store and the bytes of valid and corrupt files it accepts for a schema version.
 */
public abstract class BaseReceivingStoreTestCase {
  private ReceivingStore store;

  /** A fresh, empty, started store accepting {@link #schemaVersion()}. */
  protected abstract ReceivingStore open() throws Exception;

  /** Releases the store. */
  protected void close(ReceivingStore store) throws Exception {
    if (store instanceof AutoCloseable c) {
      c.close();
    }
  }

  /** A schema version the store accepts. */
  protected abstract int schemaVersion();

  /** The bytes of a valid file for {@code id}, different per id. */
  protected abstract byte[] validFile(PartitionFileId id) throws Exception;

  @BeforeEach
  void openStore() throws Exception {
    store = open();
  }

  @AfterEach
  void closeStore() throws Exception {
    close(store);
  }

  private PartitionFileId id(int partition, long version) {
    return new PartitionFileId(schemaVersion(), partition, version);
  }

  private void publish(PartitionFileId id, byte[] bytes) throws Exception {
    try (ReceivingStore.StagedFile staged = store.stage(id, bytes.length)) {
      Files.write(staged.path(), bytes);
      staged.publish();
    }
  }

  @Test
  void aStagedFileIsInvisibleUntilPublishedThenServedAndListed() throws Exception {
    PartitionFileId id = id(3, 7);
    byte[] bytes = validFile(id);
    try (ReceivingStore.StagedFile staged = store.stage(id, bytes.length)) {
      Files.write(staged.path(), bytes);
      assertThat(store.file(id)).isEmpty();
      assertThat(store.latestVersions(schemaVersion())).doesNotContainKey(3);
      staged.publish();
    }
    assertThat(store.file(id)).isPresent();
    assertThat(Files.readAllBytes(store.file(id).orElseThrow())).isEqualTo(bytes);
    assertThat(store.latestVersions(schemaVersion())).containsEntry(3, 7L);
  }

  @Test
  void aStagedFileClosedWithoutPublishingLeavesNothing() throws Exception {
    PartitionFileId id = id(1, 1);
    byte[] bytes = validFile(id);
    Path staged;
    try (ReceivingStore.StagedFile s = store.stage(id, bytes.length)) {
      staged = s.path();
      Files.write(staged, bytes);
    }
    assertThat(staged).doesNotExist();
    assertThat(store.file(id)).isEmpty();
    assertThat(store.latestVersions(schemaVersion())).doesNotContainKey(1);
  }

  @Test
  void versionsNotNewerThanTheHeldOneAreRejected() throws Exception {
    publish(id(2, 5), validFile(id(2, 5)));
    assertThatThrownBy(() -> store.stage(id(2, 5), 10)).isInstanceOf(RejectedFileException.class);
    assertThatThrownBy(() -> store.stage(id(2, 4), 10)).isInstanceOf(RejectedFileException.class);
    publish(id(2, 6), validFile(id(2, 6)));
    assertThat(store.latestVersions(schemaVersion())).containsEntry(2, 6L);
    publish(id(9, 1), validFile(id(9, 1)));
    assertThat(store.latestVersions(schemaVersion())).containsEntry(9, 1L).containsEntry(2, 6L);
  }

  @Test
  void aCorruptFileIsRejectedAndThePreviousVersionKeepsBeingServed() throws Exception {
    publish(id(4, 1), validFile(id(4, 1)));
    PartitionFileId next = id(4, 2);
    byte[] corrupt = validFile(next);
    corrupt[corrupt.length / 2] ^= 0x5a;
    corrupt[corrupt.length - 1] ^= 0x5a;
    Path staged;
    try (ReceivingStore.StagedFile s = store.stage(next, corrupt.length)) {
      staged = s.path();
      Files.write(staged, corrupt);
      assertThatThrownBy(s::publish).isInstanceOf(RejectedFileException.class);
    }
    assertThat(staged).doesNotExist();
    assertThat(store.file(next)).isEmpty();
    assertThat(store.latestVersions(schemaVersion())).containsEntry(4, 1L);
    assertThat(store.file(id(4, 1))).isPresent();
  }

  @Test
  void aFileOfTheWrongSizeIsRejected() throws Exception {
    PartitionFileId id = id(5, 1);
    byte[] bytes = validFile(id);
    try (ReceivingStore.StagedFile s = store.stage(id, bytes.length + 1L)) {
      Files.write(s.path(), bytes);
      assertThatThrownBy(s::publish).isInstanceOf(RejectedFileException.class);
    }
    assertThat(store.file(id)).isEmpty();
    assertThat(Arrays.asList(store.latestVersions(schemaVersion()).keySet().toArray()))
        .doesNotContain(5);
  }

  @Test
  void aFileWithTheExpectedDigestIsPublished() throws Exception {
    PartitionFileId id = id(6, 1);
    byte[] bytes = validFile(id);
    try (ReceivingStore.StagedFile s = store.stage(id, bytes.length)) {
      Files.write(s.path(), bytes);
      s.publish(FileDigest.of(s.path()));
    }
    assertThat(store.latestVersions(schemaVersion())).containsEntry(6, 1L);
    assertThat(Files.readAllBytes(store.file(id).orElseThrow())).isEqualTo(bytes);
  }

  @Test
  void aFileWhoseChecksumOrSizeIsNotTheExpectedOneIsRefusedAndNothingIsPublished()
      throws Exception {
    publish(id(7, 1), validFile(id(7, 1)));
    PartitionFileId next = id(7, 2);
    byte[] bytes = validFile(next);
    for (int wrong = 0; wrong < 2; wrong++) {
      Path staged;
      try (ReceivingStore.StagedFile s = store.stage(next, bytes.length)) {
        staged = s.path();
        Files.write(staged, bytes);
        FileDigest actual = FileDigest.of(staged);
        FileDigest expected =
            wrong == 0
                ? new FileDigest(actual.size(), actual.crc32c() ^ 1)
                : new FileDigest(actual.size() + 1, actual.crc32c());
        assertThatThrownBy(() -> s.publish(expected))
            .isInstanceOfSatisfying(
                DigestMismatchException.class,
                e -> {
                  assertThat(e.expected()).isEqualTo(expected);
                  assertThat(e.actual()).isEqualTo(actual);
                });
      }
      assertThat(staged).doesNotExist();
      assertThat(store.file(next)).isEmpty();
      assertThat(store.latestVersions(schemaVersion())).containsEntry(7, 1L);
    }
  }
}
