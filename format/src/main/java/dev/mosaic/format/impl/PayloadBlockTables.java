package dev.mosaic.format.impl;

import static dev.mosaic.format.impl.FileFormat.PAYLOAD_FLAG_LZ4_BLOCKS;
import static dev.mosaic.format.impl.FileFormat.PAYLOAD_FLAG_ZSTD_BLOCKS;

import it.unimi.dsi.fastutil.ints.IntArrayList;
import it.unimi.dsi.fastutil.ints.IntList;
import java.util.List;
import java.util.function.IntToLongFunction;

/**
 * The tables of a compressed payload segment that follow the logical offsets: each block's first
 * document and offset and, for zstd blocks (format version 3), each block's dictionary and the
 * dictionaries themselves. Shared by the writer, the merge and the update so they lay it out alike.
 *
 * @param dictionaries the zstd dictionaries, or null for LZ4 blocks
 * @param blockDictionary per block, its index in {@code dictionaries} (zstd only)
 */
record PayloadBlockTables(List<PayloadDictionary> dictionaries, IntList blockDictionary) {
  /** LZ4 blocks: no dictionary tables. */
  static PayloadBlockTables lz4() {
    return new PayloadBlockTables(null, null);
  }

  /** Zstd blocks, {@code blocks} of them, all with the one {@code dictionary}. */
  static PayloadBlockTables zstd(PayloadDictionary dictionary, int blocks) {
    IntArrayList zeros = new IntArrayList();
    zeros.size(blocks);
    return new PayloadBlockTables(List.of(dictionary), zeros);
  }

  boolean zstd() {
    return dictionaries != null;
  }

  /** The payload flags word. */
  int flags() {
    return zstd() ? PAYLOAD_FLAG_ZSTD_BLOCKS : PAYLOAD_FLAG_LZ4_BLOCKS;
  }

  /** Bytes of the whole head: 16-byte header, offsets, block tables and dictionaries. */
  long headLength(int documents, int width, int blocks) {
    long length = 16 + (long) (documents + 1) * width + (blocks + 1) * 12L;
    if (zstd()) {
      length += 8 + 4L * blocks + 8L * (dictionaries.size() + 1);
      for (PayloadDictionary d : dictionaries) {
        length += d.length();
      }
    }
    return length;
  }

  /** The 16-byte header: offset width, flags, block count, block rule (0 when unknown). */
  void putHeader(ByteSink head, int width, int blocks, int rule) {
    head.putInt(width).putInt(flags()).putInt(blocks).putInt(rule);
  }

  /**
   * Everything after the logical offsets: first documents ({@code blocks + 1}, last {@code
   * documents}), block offsets from {@code length}, then (zstd) the dictionary tables and bytes.
   */
  void putTables(ByteSink head, int documents, IntList firstDocs, IntToLongFunction length) {
    int blocks = firstDocs.size();
    for (int b = 0; b < blocks; b++) {
      head.putInt(firstDocs.getInt(b));
    }
    head.putInt(documents);
    long at = 0;
    for (int b = 0; b <= blocks; b++) {
      head.putLong(at);
      if (b < blocks) {
        at += length.applyAsLong(b);
      }
    }
    if (!zstd()) {
      return;
    }
    head.putInt(dictionaries.size()).putInt(0);
    for (int b = 0; b < blocks; b++) {
      head.putInt(blockDictionary.getInt(b));
    }
    long offset = 0;
    for (int d = 0; d <= dictionaries.size(); d++) {
      head.putLong(offset);
      if (d < dictionaries.size()) {
        offset += dictionaries.get(d).length();
      }
    }
    for (PayloadDictionary d : dictionaries) {
      head.putBytes(d.bytes());
    }
  }
}
