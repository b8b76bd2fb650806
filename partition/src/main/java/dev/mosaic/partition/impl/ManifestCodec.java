package dev.mosaic.partition.impl;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.wire.ManifestEntry;

/** The manifest's one encoding: {@link ManifestRecord} as protobuf {@code ManifestEntry}. */
final class ManifestCodec {
  private ManifestCodec() {}

  static byte[] encode(ManifestRecord r) {
    return ManifestEntry.newBuilder()
        .setSchemaVersion(r.id().schemaVersion())
        .setPartition(r.id().partition())
        .setVersion(r.id().version())
        .setSize(r.size())
        .setCrc32C(r.crc32c())
        .setAcceptedAtMillis(r.acceptedAtMillis())
        .setAcceptedBy(r.acceptedBy())
        .setFingerprint(r.fingerprint())
        .setDocuments(r.documents())
        .setCreatedAtMillis(r.createdAtMillis())
        .setEpoch(r.epoch())
        .putAllDelivered(r.delivered())
        .build()
        .toByteArray();
  }

  /**
   * Decodes a znode's data.
   *
   * @throws IllegalArgumentException naming the path when the data is not a valid entry
   */
  static ManifestRecord decode(byte[] data, String path) {
    ManifestEntry e;
    try {
      e = ManifestEntry.parseFrom(data);
    } catch (InvalidProtocolBufferException ex) {
      throw new IllegalArgumentException(
          "manifest entry " + path + " is not a ManifestEntry: " + ex.getMessage(), ex);
    }
    try {
      return new ManifestRecord(
          new PartitionFileId(e.getSchemaVersion(), e.getPartition(), e.getVersion()),
          e.getSize(),
          e.getCrc32C(),
          e.getFingerprint(),
          e.hasDocuments() ? e.getDocuments() : -1,
          e.getCreatedAtMillis() == 0 ? e.getAcceptedAtMillis() : e.getCreatedAtMillis(),
          e.getAcceptedAtMillis(),
          e.getAcceptedBy(),
          e.getEpoch(),
          e.getDeliveredMap());
    } catch (IllegalArgumentException ex) {
      throw new IllegalArgumentException(
          "manifest entry " + path + " is invalid: " + ex.getMessage(), ex);
    }
  }
}
