package dev.mosaic.transport.impl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.transport.wire.DeltaPush;
import dev.mosaic.transport.wire.FileHeader;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** The receiver's refusals of a change set, before anything is staged: precise reasons. */
class ChangeSetRebuildTest {
  private static final PartitionFileId V5 = new PartitionFileId(1, 3, 5);

  /** A store holding version {@code held} of partition 3 (no file of any other). */
  private static ReceivingStore holding(Long held) {
    return new ReceivingStore() {
      @Override
      public StagedFile stage(PartitionFileId id, long size) {
        throw new AssertionError("nothing may be staged: " + id);
      }

      @Override
      public Optional<Path> file(PartitionFileId id) {
        return held != null && id.partition() == 3 && id.version() == held
            ? Optional.of(Path.of("held"))
            : Optional.empty();
      }

      @Override
      public Map<Integer, Long> latestVersions(int schemaVersion) {
        return held == null ? Map.of() : Map.of(3, held);
      }
    };
  }

  private static DeltaPush delta(long base, long size, long crc) {
    return DeltaPush.newBuilder()
        .setHeader(FileHeader.newBuilder().setSchemaVersion(1).setPartition(3).setVersion(5))
        .setBaseVersion(base)
        .setChangeSetSize(size)
        .setChangeSetCrc32C(crc)
        .build();
  }

  private static ChangeSetRebuild.NeedFullException refusal(Runnable r) {
    try {
      r.run();
    } catch (RuntimeException e) {
      if (e.getCause() instanceof ChangeSetRebuild.NeedFullException n) {
        return n;
      }
      throw e;
    }
    throw new AssertionError("not refused");
  }

  private static Runnable precheck(ReceivingStore store, DeltaPush d) {
    return () -> {
      try {
        ChangeSetRebuild.precheck(store, d, V5);
      } catch (ChangeSetRebuild.NeedFullException e) {
        throw new RuntimeException(e);
      }
    };
  }

  @Test
  void aMissingBaseIsNamedWithTheVersionTheReceiverHolds() {
    ChangeSetRebuild.NeedFullException e = refusal(precheck(holding(3L), delta(4, 10, 0)));
    assertThat(e.fallback).isEqualTo("base_missing");
    assertThat(e.getMessage())
        .isEqualTo("does not hold the base v1/3/4 of the change set (holds version 3)");
    e = refusal(precheck(holding(null), delta(4, 10, 0)));
    assertThat(e.getMessage()).endsWith("(holds no version of the partition)");
  }

  @Test
  void absurdSizesAndBasesAreMalformed() {
    ChangeSetRebuild.NeedFullException e =
        refusal(precheck(holding(4L), delta(4, ChangeSetRebuild.MAX_CHANGE_SET + 1, 0)));
    assertThat(e.fallback).isEqualTo("malformed");
    assertThat(e.getMessage()).startsWith("change set of 268435457 bytes");
    e = refusal(precheck(holding(4L), delta(5, 10, 0)));
    assertThat(e.fallback).isEqualTo("malformed");
    assertThat(e.getMessage()).isEqualTo("base version 5 is not older than v1/3/5");
  }

  @Test
  void aChangeSetWithTheWrongChecksumIsMalformedBeforeAnythingIsStaged() {
    assertThatThrownBy(
            () ->
                ChangeSetRebuild.rebuild(holding(4L), delta(4, 3, 12345), V5, new byte[] {1, 2, 3}))
        .isInstanceOfSatisfying(
            ChangeSetRebuild.NeedFullException.class,
            e -> assertThat(e.fallback).isEqualTo("malformed"))
        .hasMessageStartingWith("change set checksum mismatch: header says crc32c=00003039");
  }
}
