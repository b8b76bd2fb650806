package dev.mosaic.indexer;

import it.unimi.dsi.fastutil.longs.Long2IntOpenHashMap;
import it.unimi.dsi.fastutil.longs.Long2LongMap;
import it.unimi.dsi.fastutil.longs.Long2LongOpenHashMap;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * What the feed loader remembers of a partner's previous snapshot: per offer (by the hash of its
 * id), the hash of its content and its index partition. Two primitive maps, about 37 bytes per
 * offer; enough to tell new, changed, moved and removed offers apart and to address tombstones.
 *
 * <p>Thread safety: not thread safe; the loader confines one partner's state to one publish at a
 * time.
 */
final class PartnerSnapshotState {
  private static final int MAGIC = 0x4d534653; // "MSFS"
  private final Long2LongOpenHashMap contentHashes;
  private final Long2IntOpenHashMap partitions;

  PartnerSnapshotState(int expected) {
    contentHashes = new Long2LongOpenHashMap(expected);
    partitions = new Long2IntOpenHashMap(expected);
    partitions.defaultReturnValue(-1);
  }

  int size() {
    return contentHashes.size();
  }

  boolean contains(long offerHash) {
    return contentHashes.containsKey(offerHash);
  }

  long contentHash(long offerHash) {
    return contentHashes.get(offerHash);
  }

  int partition(long offerHash) {
    return partitions.get(offerHash);
  }

  void put(long offerHash, long contentHash, int partition) {
    contentHashes.put(offerHash, contentHash);
    partitions.put(offerHash, partition);
  }

  /** Calls back for every offer: hash of its id and its partition. */
  void forEach(OfferVisitor visitor) {
    for (Long2LongMap.Entry e : contentHashes.long2LongEntrySet()) {
      visitor.visit(e.getLongKey(), partitions.get(e.getLongKey()));
    }
  }

  interface OfferVisitor {
    void visit(long offerHash, int partition);
  }

  /** Writes the state atomically (temporary file, then rename). */
  void writeTo(Path file) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try (DataOutputStream out =
        new DataOutputStream(new BufferedOutputStream(Files.newOutputStream(tmp), 1 << 16))) {
      out.writeInt(MAGIC);
      out.writeInt(size());
      for (Long2LongMap.Entry e : contentHashes.long2LongEntrySet()) {
        out.writeLong(e.getLongKey());
        out.writeLong(e.getLongValue());
        out.writeInt(partitions.get(e.getLongKey()));
      }
    }
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }

  /** Reads a state written by {@link #writeTo}. */
  static PartnerSnapshotState readFrom(Path file) throws IOException {
    try (DataInputStream in =
        new DataInputStream(new BufferedInputStream(Files.newInputStream(file), 1 << 16))) {
      if (in.readInt() != MAGIC) {
        throw new IOException("not a feed loader state file: " + file);
      }
      int n = in.readInt();
      PartnerSnapshotState state = new PartnerSnapshotState(n);
      for (int i = 0; i < n; i++) {
        state.put(in.readLong(), in.readLong(), in.readInt());
      }
      return state;
    }
  }
}
