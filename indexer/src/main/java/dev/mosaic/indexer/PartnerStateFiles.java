package dev.mosaic.indexer;

import dev.mosaic.format.io.DurableFiles;
import dev.mosaic.partition.PartitionLayout;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The feed loader's state files: one per partner, {@code partner-<16 hex digits of xxHash64 of the
 * partner id>.state} in the state directory, so any partner id gives a short, safe file name (the
 * id itself is stored inside and checked on reading).
 *
 * <p>Format (big-endian): magic {@code "MSFS"}, format version ({@value #VERSION}), partner id (int
 * length + UTF-8), offer count n, n × (offer id hash long, fingerprint long, partition int), then
 * the {@link ContentHash} of everything before it. Version 3 moved fingerprints and the checksum to
 * that hash; a version 2 file is refused like any other version, and the loader rebuilds the
 * partner's state from the offers topic. Written durably ({@link DurableFiles}: temporary file,
 * fsync, atomic rename, directory fsync). A file that is truncated, corrupt, of another version or
 * of another partner is refused with an {@link UnreadableStateException} saying which.
 *
 * <p>Thread safety: stateless apart from the directory; safe for concurrent use on different
 * partners.
 */
final class PartnerStateFiles {
  static final int MAGIC = 0x4d534653; // "MSFS"
  static final int VERSION = 3;
  private static final int ENTRY_BYTES = 8 + 8;

  private final Path dir;

  PartnerStateFiles(Path dir) {
    this.dir = dir;
  }

  /** The state file of a partner. */
  Path fileFor(String partner) {
    byte[] id = partner.getBytes(StandardCharsets.UTF_8);
    return dir.resolve(
        "partner-" + HexFormat.of().toHexDigits(OfferKeys.hash(id, 0, id.length)) + ".state");
  }

  /**
   * Reads a partner's state.
   *
   * @return empty when the partner has no state file
   * @throws UnreadableStateException when the file exists but cannot be used (the message says why)
   * @throws IOException when the file cannot be read at all
   */
  Optional<PartnerSnapshotState> read(String partner) throws IOException {
    Path file = fileFor(partner);
    byte[] bytes;
    try {
      bytes = Files.readAllBytes(file);
    } catch (NoSuchFileException e) {
      return Optional.empty();
    } catch (IOException e) {
      throw new IOException("cannot read feed loader state file " + file + ": " + e, e);
    }
    return Optional.of(decode(file, partner, bytes));
  }

  /** Writes a partner's state durably, replacing the previous file. */
  void write(String partner, PartnerSnapshotState state) throws IOException {
    stage(partner, state).commit();
  }

  /**
   * Writes a partner's state to a temporary file beside its state file and forces it to disk, so
   * that this part of the durable write can overlap with waiting for Kafka; {@link Staged#commit}
   * then moves it into place.
   */
  Staged stage(String partner, PartnerSnapshotState state) throws IOException {
    Path target = fileFor(partner);
    Path temp = PartitionLayout.tempFileFor(target);
    try {
      Files.write(temp, encode(partner, state), StandardOpenOption.CREATE_NEW);
      DurableFiles.force(temp);
    } catch (IOException e) {
      Files.deleteIfExists(temp);
      throw new IOException("cannot write feed loader state file " + temp + ": " + e, e);
    }
    return new Staged(temp, target);
  }

  /** A state written to a temporary file, not yet in place. Not thread safe. */
  static final class Staged {
    private final Path temp;
    private final Path target;

    private Staged(Path temp, Path target) {
      this.temp = temp;
      this.target = target;
    }

    /** Renames the temporary file onto the state file atomically and forces the directory. */
    void commit() throws IOException {
      try {
        DurableFiles.publish(temp, target);
      } catch (IOException e) {
        discard();
        throw new IOException("cannot replace feed loader state file " + target + ": " + e, e);
      }
    }

    /** Deletes the temporary file (the state file stays as it was). */
    void discard() {
      try {
        Files.deleteIfExists(temp);
      } catch (IOException e) {
        // Left behind; deleteTemporaryFiles removes it on the next start.
      }
    }
  }

  /** Deletes temporary files left by a loader that stopped in the middle of a write. */
  void deleteTemporaryFiles() throws IOException {
    try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
      for (Path f : files) {
        if (PartitionLayout.isTempName(f.getFileName().toString())) {
          Files.deleteIfExists(f);
        }
      }
    }
  }

  private static byte[] encode(String partner, PartnerSnapshotState state) {
    byte[] id = partner.getBytes(StandardCharsets.UTF_8);
    ByteBuffer out =
        ByteBuffer.allocate(4 + 4 + 4 + id.length + 4 + state.size() * ENTRY_BYTES + 8);
    out.putInt(MAGIC).putInt(VERSION).putInt(id.length).put(id).putInt(state.size());
    state.forEach((offerHash, entry) -> out.putLong(offerHash).putLong(entry));
    out.putLong(ContentHash.of(out.array(), 0, out.position()));
    return out.array();
  }

  private static PartnerSnapshotState decode(Path file, String partner, byte[] bytes)
      throws UnreadableStateException {
    String what = "feed loader state file " + file + " (partner '" + partner + "')";
    if (bytes.length < 16) {
      throw new UnreadableStateException(
          what + " is truncated: " + bytes.length + " bytes, shorter than any state");
    }
    ByteBuffer in = ByteBuffer.wrap(bytes);
    int magic = in.getInt();
    if (magic != MAGIC) {
      throw new UnreadableStateException(
          what + " is not a state file: magic 0x" + Integer.toHexString(magic));
    }
    int version = in.getInt();
    if (version != VERSION) {
      throw new UnreadableStateException(
          what + " has format version " + version + ", this loader reads version " + VERSION);
    }
    int idLength = in.getInt();
    if (idLength < 0 || idLength > in.remaining() - 4 - 8) {
      throw new UnreadableStateException(
          what + " is truncated or corrupt: partner id length " + idLength + " does not fit");
    }
    String stored = new String(bytes, in.position(), idLength, StandardCharsets.UTF_8);
    in.position(in.position() + idLength);
    int count = in.getInt();
    long expected = (long) in.position() + (long) count * ENTRY_BYTES + 8;
    if (count < 0 || expected != bytes.length) {
      throw new UnreadableStateException(
          what
              + " is truncated or corrupt: "
              + bytes.length
              + " bytes, but "
              + count
              + " offers need "
              + expected);
    }
    long checksum = ByteBuffer.wrap(bytes, bytes.length - 8, 8).getLong();
    long actual = ContentHash.of(bytes, 0, bytes.length - 8);
    if (checksum != actual) {
      throw new UnreadableStateException(
          what
              + " is corrupt: checksum "
              + HexFormat.of().toHexDigits(actual)
              + " does not match the stored "
              + HexFormat.of().toHexDigits(checksum));
    }
    if (!stored.equals(partner)) {
      throw new UnreadableStateException(what + " belongs to partner '" + stored + "'");
    }
    PartnerSnapshotState state = new PartnerSnapshotState(count);
    for (int i = 0; i < count; i++) {
      long offerHash = in.getLong();
      long entry = in.getLong();
      if (PartnerSnapshotState.partitionOf(entry) >= PartnerSnapshotState.MAX_PARTITIONS) {
        throw new UnreadableStateException(what + " is corrupt: entry " + i + " has no partition");
      }
      state.putEntry(offerHash, entry);
    }
    return state;
  }

  /** A state file that exists but cannot be used; the message names the file and the reason. */
  static final class UnreadableStateException extends IOException {
    UnreadableStateException(String message) {
      super(message);
    }
  }
}
