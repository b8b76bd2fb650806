package dev.mosaic.format;

import dev.mosaic.format.impl.PartitionMerge;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * Merges several partition databases of the same schema into one new file without rebuilding it
 * from documents: the value sets are merged (a k-way merge of the sorted value sets), document ids
 * are remapped in the postings (value → documents) and in the document-to-value index, per-value
 * counts are summed, Bloom filters are built over the merged values by the writer's rules (fields
 * asked for with {@link Builder#bloomFilter(String)}, plus the automatic rule applied to the merged
 * partition, not to each input), and payload bytes are joined (LZ4 blocks of compressed inputs are
 * copied as they are unless asked otherwise). No {@link Document} is materialized; memory is about
 * the merged file's index part (its field segments) plus a few integers per value and per document
 * of the field being merged, far below a rebuild. The file layout is the writer's ({@code
 * format/FORMAT.md}, "Merge").
 *
 * <p>Document order: the result holds the documents of the first input (ids {@code 0..n0-1}), then
 * those of the second, and so on, each input's documents in their own order. Query results equal
 * those of a database built by adding the same documents in that order; with {@link
 * Builder#copyCompressedBlocks(boolean) copyCompressedBlocks(false)} (or with no LZ4 input) and the
 * same options, the file is byte for byte the one {@link DatabaseBuilder} writes.
 *
 * <pre>{@code
 * DatabaseMerger.Summary s =
 *     DatabaseMerger.builder().add(a).add(b).output(Path.of("merged.mosaic")).build().merge();
 * }</pre>
 *
 * <p>Thread safety: immutable; {@link #merge()} may run on any thread, but two merges to the same
 * output race (the second fails, the output already existing). NOTE: {@link Database} inputs must
 * stay open during {@link #merge()} and are partitions (every {@link Database} is one the format
 * read; composites are not inputs); path inputs are opened (checksum verified by default) and
 * closed by the merge.
 */
public final class DatabaseMerger {
  /** Target size of the LZ4 payload blocks a merge compresses, unless configured otherwise. */
  public static final int DEFAULT_PAYLOAD_BLOCK_SIZE = PartitionMerge.DEFAULT_BLOCK_SIZE;

  private final List<Object> inputs;
  private final Path output;
  private final PayloadCompression compression;
  private final int blockSize;
  private final boolean copyCompressedBlocks;
  private final Set<String> bloomFields;
  private final boolean autoBloomFilters;
  private final boolean verifyChecksums;

  private DatabaseMerger(Builder b) {
    this.inputs = List.copyOf(b.inputs);
    this.output = b.output;
    this.compression = b.compression;
    this.blockSize = b.blockSize;
    this.copyCompressedBlocks = b.copyCompressedBlocks;
    this.bloomFields = Set.copyOf(b.bloomFields);
    this.autoBloomFilters = b.autoBloomFilters;
    this.verifyChecksums = b.verifyChecksums;
  }

  /** A new builder; not thread safe. */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Writes the merged database to a temporary file beside the output, forces it to disk and renames
   * it to the output atomically; on any failure the temporary file is deleted and no output
   * appears.
   *
   * @return what was written
   * @throws java.nio.file.FileAlreadyExistsException when the output exists
   * @throws CorruptDatabaseException when an input is damaged (naming it)
   * @throws IllegalArgumentException when the inputs' schemas differ (naming the first that differs
   *     from input 0), or an input is not a partition file read by this library, or a requested
   *     Bloom filter names no filterable field, or the documents together exceed one database
   */
  public Summary merge() throws IOException {
    return PartitionMerge.merge(
        inputs,
        output,
        new PartitionMerge.Options(
            compression,
            blockSize,
            copyCompressedBlocks,
            bloomFields,
            autoBloomFilters,
            verifyChecksums));
  }

  /**
   * The outcome of a merge.
   *
   * @param output the file written
   * @param inputs number of inputs merged
   * @param documents documents in the result
   * @param sizeInBytes size of the result file
   * @param formatVersion format version of the result (3 with zstd payloads, 2 with LZ4 payloads or
   *     Bloom filters)
   * @param payloadsCompressed whether the result stores payloads as compressed blocks
   * @param copiedBlocks blocks copied from inputs without recompression
   * @param compressedBlocks blocks compressed during the merge
   * @param bloomFilters fields with a Bloom filter in the result, in schema order
   * @param elapsedNanos wall time of the merge
   */
  public record Summary(
      Path output,
      int inputs,
      long documents,
      long sizeInBytes,
      int formatVersion,
      boolean payloadsCompressed,
      int copiedBlocks,
      int compressedBlocks,
      List<String> bloomFilters,
      long elapsedNanos) {}

  /** Configures a merge. Not thread safe. */
  public static final class Builder {
    private final List<Object> inputs = new ArrayList<>();
    private Path output;
    private PayloadCompression compression = PayloadCompression.AUTO;
    private int blockSize = PartitionMerge.DEFAULT_BLOCK_SIZE;
    private boolean copyCompressedBlocks = true;
    private final Set<String> bloomFields = new LinkedHashSet<>();
    private boolean autoBloomFilters = true;
    private boolean verifyChecksums = true;

    private Builder() {}

    /** Adds a partition file; the merge opens it (verifying its checksum by default). */
    public Builder add(Path input) {
      inputs.add(Objects.requireNonNull(input, "input"));
      return this;
    }

    /**
     * Adds an open partition database; it must stay open during the merge, which leaves it open.
     */
    public Builder add(Database input) {
      inputs.add(Objects.requireNonNull(input, "input"));
      return this;
    }

    /** Adds partition files in iteration order. */
    public Builder addAll(Collection<Path> files) {
      files.forEach(this::add);
      return this;
    }

    /** The file to create; it must not exist, its directory must. */
    public Builder output(Path output) {
      this.output = Objects.requireNonNull(output, "output");
      return this;
    }

    /**
     * How the result stores payloads (default {@link PayloadCompression#AUTO}: LZ4 blocks when that
     * saves at least 10% of the payload bytes, as {@link DatabaseBuilder} decides).
     */
    public Builder payloadCompression(PayloadCompression compression) {
      this.compression = Objects.requireNonNull(compression, "compression");
      return this;
    }

    /**
     * Target uncompressed size of the LZ4 blocks compressed during the merge (default: {@link
     * DatabaseBuilder}'s default).
     *
     * @throws IllegalArgumentException when not positive or over 8 MiB (as for a builder)
     */
    public Builder payloadBlockSize(int bytes) {
      if (bytes <= 0 || bytes > PartitionMerge.MAX_BLOCK_SIZE) {
        throw new IllegalArgumentException(
            "payload block size must be in [1, "
                + PartitionMerge.MAX_BLOCK_SIZE
                + "], got "
                + bytes);
      }
      this.blockSize = bytes;
      return this;
    }

    /**
     * Whether the LZ4 blocks of compressed inputs are copied as they are (default true: no
     * decompression, the block boundaries follow the inputs). When false every payload is
     * re-blocked at the block size, as a rebuild would do: slower, byte-identical to a rebuild.
     */
    public Builder copyCompressedBlocks(boolean copy) {
      this.copyCompressedBlocks = copy;
      return this;
    }

    /**
     * Adds a Bloom filter on a filterable field, as {@link DatabaseBuilder#bloomFilter(String)}
     * does. NOTE: the inputs' filters are not carried over by themselves (an input's filter may
     * come from the automatic rule on that input's statistics): ask again for the fields that must
     * keep one whatever the statistics.
     */
    public Builder bloomFilter(String field) {
      bloomFields.add(Objects.requireNonNull(field, "field"));
      return this;
    }

    /** Whether the writer's automatic Bloom filter rule applies to the result (default true). */
    public Builder autoBloomFilters(boolean enabled) {
      this.autoBloomFilters = enabled;
      return this;
    }

    /** Whether path inputs have their checksum verified when opened (default true). */
    public Builder verifyChecksums(boolean verify) {
      this.verifyChecksums = verify;
      return this;
    }

    /**
     * @throws IllegalArgumentException with no input
     * @throws IllegalStateException without an output
     */
    public DatabaseMerger build() {
      if (inputs.isEmpty()) {
        throw new IllegalArgumentException("nothing to merge: no input partition was added");
      }
      if (output == null) {
        throw new IllegalStateException("no output path: call output(Path)");
      }
      return new DatabaseMerger(this);
    }
  }
}
