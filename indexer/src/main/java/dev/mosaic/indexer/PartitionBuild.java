package dev.mosaic.indexer;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.api.SerializedOfferDocuments;
import dev.mosaic.format.ChangeSet;
import dev.mosaic.format.Database;
import dev.mosaic.format.DatabaseUpdate;
import dev.mosaic.format.Document;
import dev.mosaic.format.Schema;
import dev.mosaic.format.io.DurableFiles;
import dev.mosaic.partition.ChangeSetFile;
import dev.mosaic.partition.PartitionFileId;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes a partition's next file from a {@link PartitionState.Plan} with {@link DatabaseUpdate}:
 * walking the base and the changes in key-hash order, an unchanged offer's document is kept from
 * the base file (carried over encoded, never re-parsed), an upserted offer is mapped straight from
 * its bytes ({@link SerializedOfferDocuments}) and added, a removed one is left out. The output
 * equals a from-scratch build of the same offers in key-hash order. Without a base (before the
 * first file) every offer is added (a full build). A build on a base also keeps its change set
 * beside the file ({@link ChangeSetFile}), which the transport ships instead of the file to
 * receivers holding the base.
 *
 * <p>Stateless; one build per thread.
 */
final class PartitionBuild {
  private static final Logger LOG = LoggerFactory.getLogger(PartitionBuild.class);

  private PartitionBuild() {}

  /** What a build wrote. */
  record Result(PartitionState.Merged merged, DatabaseUpdate.Summary summary, int leftOut) {}

  /**
   * Writes the file (temporary file, atomic rename; with {@code fsync} forced to disk before the
   * rename and the directory after it, else the caller makes it durable).
   *
   * @param base the open base file, or null when the plan has none
   * @throws IllegalArgumentException when the plan has a base but none is given
   */
  static Result write(
      PartitionState.Plan plan,
      Schema schema,
      Database base,
      PartitionFileId id,
      Path output,
      boolean fsync)
      throws IOException {
    return write(plan, schema, base, null, id, output, output, fsync);
  }

  /**
   * {@link #write(PartitionState.Plan, Schema, Database, PartitionFileId, Path, boolean)} into
   * {@code output}, a temporary file the caller later renames to {@code published}: the change set
   * is kept beside {@code published}, where the transport looks for it.
   *
   * @param dictionaryDonor without a base, the database whose payload dictionary the full build
   *     compresses with instead of training one ({@link DictionaryDonor}), or null to train
   */
  static Result write(
      PartitionState.Plan plan,
      Schema schema,
      Database base,
      Database dictionaryDonor,
      PartitionFileId id,
      Path output,
      Path published,
      boolean fsync)
      throws IOException {
    if (plan.base() != null && base == null) {
      throw new IllegalArgumentException(
          "partition " + plan.partition() + ": the plan builds on " + plan.base() + ", not open");
    }
    DatabaseUpdate update =
        (base == null ? DatabaseUpdate.fresh(schema) : DatabaseUpdate.on(base)).fsync(fsync);
    if (base == null && dictionaryDonor != null) {
      update.payloadDictionaryOf(dictionaryDonor);
    }
    ChangeSet.Recorder changes =
        base == null || plan.base() == null ? null : ChangeSet.recorder(base);
    Document.Builder scratch = changes == null ? Document.builder(schema) : null;
    long[] keys = plan.keys();
    long[] changed = plan.changedKeys();
    int capacity = keys.length + changed.length;
    long[] outKeys = new long[capacity];
    long[] outContents = new long[capacity];
    int[] outPositions = new int[capacity];
    int[] outLengths = new int[capacity];
    int n = 0;
    int documents = 0;
    int leftOut = 0;
    int i = 0;
    int j = 0;
    while (i < keys.length || j < changed.length) {
      if (j >= changed.length || (i < keys.length && keys[i] < changed[j])) {
        int position = plan.positions()[i];
        int at = -1;
        if (position >= 0) {
          update.keep(position);
          if (changes != null) {
            changes.keep(position);
          }
          at = documents++;
        }
        outKeys[n] = keys[i];
        outContents[n] = plan.contents()[i];
        outLengths[n] = plan.lengths()[i];
        outPositions[n++] = at;
        i++;
        continue;
      }
      long key = changed[j];
      if (i < keys.length && keys[i] == key) {
        i++; // replaced or removed
      }
      byte[] value = plan.changedValues()[j++];
      if (value == null) {
        continue;
      }
      int at = -1;
      try {
        if (changes == null) {
          // no change set to record: the values go straight into the update's columns
          SerializedOfferDocuments.addTo(update, scratch, value);
        } else {
          Document document = SerializedOfferDocuments.toDocument(schema, value);
          update.add(document);
          changes.add(document);
        }
        at = documents++;
      } catch (InvalidProtocolBufferException | IllegalArgumentException e) {
        if (leftOut++ == 0) {
          LOG.warn(
              "partition {}: offer left out of schema v{}: {}",
              plan.partition(),
              schema.version(),
              e.getMessage());
        }
      }
      outKeys[n] = key;
      outContents[n] = ContentHash.of(value, 0, value.length);
      outLengths[n] = value.length;
      outPositions[n++] = at;
    }
    if (leftOut > 0) {
      LOG.warn("partition {}: {} offers left out of {}", plan.partition(), leftOut, id);
    }
    DurableFiles.createDirectoriesIfMissing(output.toAbsolutePath().getParent());
    DatabaseUpdate.Summary summary = update.writeTo(output);
    if (changes != null) {
      // what the transport ships to receivers holding the base, instead of the file
      ChangeSetFile.write(published, plan.base().version(), changes.encode());
    } else {
      ChangeSetFile.delete(published); // a stale one of an earlier build that was not recorded
    }
    return new Result(
        new PartitionState.Merged(
            id,
            Arrays.copyOf(outKeys, n),
            Arrays.copyOf(outContents, n),
            Arrays.copyOf(outPositions, n),
            Arrays.copyOf(outLengths, n)),
        summary,
        leftOut);
  }
}
