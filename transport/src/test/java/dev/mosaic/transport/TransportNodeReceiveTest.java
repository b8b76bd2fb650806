package dev.mosaic.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.StreamingDigest;
import dev.mosaic.transport.wire.FileAck;
import dev.mosaic.transport.wire.FileHeader;
import dev.mosaic.transport.wire.TransportRequest;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The receiving side spoken to over a raw TLS socket (with a certificate from the cluster CA): what
 * it accepts and what it rejects, and why. Pushes come from a test indexer whose versions the test
 * records in the manifest first, as a sender does.
 */
class TransportNodeReceiveTest {
  private static final NodeIdentity INDEXER = NodeIdentity.indexer("test-indexer", "x");
  @TempDir static Path tmp;
  static TestCluster cluster;
  static TestCluster.Searcher node;
  static PartitionManifest manifest;

  @BeforeAll
  static void up() throws Exception {
    cluster =
        new TestCluster(
            tmp.resolve("cluster"),
            TransportSettings.builder()
                .catchUpGrace(Duration.ofMinutes(10))
                .transferIdleTimeout(Duration.ofSeconds(5))
                .manifestWait(Duration.ofSeconds(2))
                .build());
    node = cluster.searcher("r1", "a");
    manifest = PartitionManifest.inZooKeeper(cluster.curator(), "/mosaic");
    manifest.start();
  }

  @AfterAll
  static void down() throws Exception {
    manifest.close();
    cluster.close();
  }

  private static FileAck push(FileHeader header, byte[] body, int sendBytes) throws IOException {
    return push(INDEXER, header, body, sendBytes);
  }

  /** Pushes over a TLS connection authenticated as {@code as}. */
  private static FileAck push(NodeIdentity as, FileHeader header, byte[] body, int sendBytes)
      throws IOException {
    try (Socket s =
        cluster
            .ca
            .forNode(as)
            .context()
            .getSocketFactory()
            .createSocket(InetAddress.getLoopbackAddress(), node.port)) {
      DataOutputStream out = new DataOutputStream(s.getOutputStream());
      byte[] frame = TransportRequest.newBuilder().setPush(header).build().toByteArray();
      out.writeInt(frame.length);
      out.write(frame);
      out.write(body, 0, sendBytes);
      out.flush();
      if (sendBytes < body.length) {
        s.shutdownOutput(); // TLS 1.3 close_notify: no more bytes from us
      }
      DataInputStream in = new DataInputStream(s.getInputStream());
      byte[] ack = new byte[in.readInt()];
      in.readFully(ack);
      return FileAck.parseFrom(ack);
    }
  }

  private static FileHeader header(int schema, int partition, long version, byte[] body, long crc) {
    return FileHeader.newBuilder()
        .setSchemaVersion(schema)
        .setPartition(partition)
        .setVersion(version)
        .setSize(body.length)
        .setCrc32C(crc)
        .setOrigin(INDEXER.nodeId())
        .setSenderNode(INDEXER.nodeId())
        .setSenderDc(INDEXER.dc())
        .setHopCount(0)
        .build();
  }

  /** Records a version in the manifest, as the sender does before pushing it. */
  private static void record(int schema, int partition, long version, byte[] body, long crc)
      throws Exception {
    manifest.advance(
        new ManifestRecord(
            new PartitionFileId(schema, partition, version),
            body.length,
            crc,
            System.currentTimeMillis(),
            INDEXER.nodeId()));
    await("the node sees the record")
        .atMost(Duration.ofSeconds(30))
        .until(
            () ->
                node.node
                    .manifest()
                    .latest(schema, partition)
                    .filter(r -> r.id().version() >= version)
                    .isPresent());
  }

  /** Records the version of {@code header} with its own size and checksum. */
  private static FileHeader recorded(FileHeader header, byte[] body) throws Exception {
    record(
        header.getSchemaVersion(),
        header.getPartition(),
        header.getVersion(),
        body,
        header.getCrc32C());
    return header;
  }

  private static byte[] file(int partition, long version) throws IOException {
    Path f = TestFiles.partition(tmp.resolve("src-" + partition + "-" + version), 300_000, version);
    return Files.readAllBytes(f);
  }

  /** The content CRC32C the manifest records for a partition file (its trailer's). */
  private static long crc(byte[] b) throws Exception {
    StreamingDigest d = new StreamingDigest();
    d.update(b, 0, b.length);
    return d.finish().crc32c();
  }

  @Test
  void acceptsAVerifiedFileAndPublishesItUnderItsFinalName() throws Exception {
    byte[] body = file(1, 1);
    FileAck ack = push(recorded(header(1, 1, 1, body, crc(body)), body), body, body.length);
    assertThat(ack.getAccepted()).as(ack.getReason()).isTrue();
    assertThat(ack.getNodeId()).isEqualTo("r1");
    assertThat(Files.readAllBytes(node.store.file(new PartitionFileId(1, 1, 1)).orElseThrow()))
        .isEqualTo(body);
    FileAck again = push(header(1, 1, 1, body, crc(body)), body, body.length);
    assertThat(again.getAccepted()).isFalse();
    assertThat(again.getAlreadyHeld()).isTrue();
  }

  @Test
  void rejectsAChecksumMismatchAndKeepsNothing() throws Exception {
    byte[] body = file(2, 1);
    long good = crc(body);
    body[1234] ^= 0x40;
    FileAck ack = push(recorded(header(1, 2, 1, body, good), body), body, body.length);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getReason()).contains("checksum mismatch").contains("v1/2/1");
    assertThat(node.store.file(new PartitionFileId(1, 2, 1))).isEmpty();
    assertThat(node.store.stagedCount()).isZero();
  }

  @Test
  void aStreamEndingBeforeTheAnnouncedSizeIsDroppedAndNothingKept() throws Exception {
    byte[] body = file(3, 1);
    recorded(header(1, 3, 1, body, crc(body)), body);
    // our TLS close_notify ends the session: the receiver drops the transfer, no acknowledgement
    assertThatThrownBy(() -> push(header(1, 3, 1, body, crc(body)), body, body.length / 2))
        .isInstanceOf(IOException.class);
    await()
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(() -> assertThat(node.store.stagedCount()).isZero());
    assertThat(node.store.file(new PartitionFileId(1, 3, 1))).isEmpty();
    await("the node still takes the whole file")
        .atMost(Duration.ofSeconds(30))
        .untilAsserted(
            () -> {
              FileAck ack = push(header(1, 3, 1, body, crc(body)), body, body.length);
              assertThat(ack.getAccepted() || ack.getAlreadyHeld()).as(ack.getReason()).isTrue();
            });
  }

  @Test
  void rejectsAnOlderVersionThanTheHeldOne() throws Exception {
    byte[] v5 = file(4, 5);
    assertThat(push(recorded(header(1, 4, 5, v5, crc(v5)), v5), v5, v5.length).getAccepted())
        .isTrue();
    byte[] v3 = file(4, 3);
    FileAck ack = push(header(1, 4, 3, v3, crc(v3)), v3, v3.length);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getAlreadyHeld()).isFalse();
    assertThat(ack.getSuperseded()).as("obsolete, not worth a retry").isTrue();
    assertThat(ack.getReason()).contains("older version").contains("held version 5");
  }

  @Test
  void rejectsAnUnknownSchemaVersionWithTheStoresReason() throws Exception {
    byte[] body = file(5, 1);
    FileAck ack = push(recorded(header(7, 5, 1, body, crc(body)), body), body, body.length);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getReason()).contains("unknown schema version 7");
  }

  @Test
  void refusesAFileOfTheRecordedSizeWithOtherContentEvenWithAMatchingTrailer() throws Exception {
    byte[] recordedBody = file(29, 1);
    long recordedCrc = crc(recordedBody);
    // same size, one byte of other content, a trailer that matches it: an intact partition file
    // whose whole-file CRC32C equals the recorded file's (a constant), but not its content's
    byte[] other = recordedBody.clone();
    other[other.length / 2] ^= 0x20;
    java.util.zip.CRC32C content = new java.util.zip.CRC32C();
    content.update(other, 0, other.length - 8);
    java.nio.ByteBuffer.wrap(other)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .putInt(other.length - 8, (int) content.getValue());
    FileAck ack =
        push(
            recorded(header(1, 29, 1, recordedBody, recordedCrc), recordedBody),
            other,
            other.length);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getReason()).contains("checksum mismatch").contains("v1/29/1");
    assertThat(node.store.file(new PartitionFileId(1, 29, 1))).isEmpty();
  }

  @Test
  void rejectsAFileThatFailsTheStoresVerification() throws Exception {
    byte[] body = file(6, 1);
    // a damaged header under a trailer that matches it: the transport's content check passes,
    // the store's verification of the format does not
    body[0] ^= 1;
    java.util.zip.CRC32C content = new java.util.zip.CRC32C();
    content.update(body, 0, body.length - 8);
    java.nio.ByteBuffer.wrap(body)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN)
        .putInt(body.length - 8, (int) content.getValue());
    FileAck ack = push(recorded(header(1, 6, 1, body, crc(body)), body), body, body.length);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getReason()).contains("corrupt partition file");
    assertThat(node.store.file(new PartitionFileId(1, 6, 1))).isEmpty();
    assertThat(node.store.stagedCount()).isZero();
  }

  @Test
  void aVersionTheManifestNeverRecordedIsRefusedAndDoesNotBlockLaterVersions() throws Exception {
    byte[] v1 = file(8, 1);
    assertThat(push(recorded(header(1, 8, 1, v1, crc(v1)), v1), v1, v1.length).getAccepted())
        .isTrue();
    // a holder of a genuine indexer certificate pushes a version nobody recorded
    long hijack = Long.MAX_VALUE - 1;
    byte[] evil = file(8, hijack);
    double refusedBefore = refusedBytes();
    FileAck ack = push(header(1, 8, hijack, evil, crc(evil)), evil, evil.length);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getSuperseded()).isFalse();
    assertThat(ack.getReason()).contains("not in the manifest").contains("version 1");
    assertThat(node.store.file(new PartitionFileId(1, 8, hijack))).isEmpty();
    assertThat(node.store.latestVersions(1)).containsEntry(8, 1L);
    await("the refused bytes are counted")
        .atMost(Duration.ofSeconds(30))
        .until(() -> refusedBytes() > refusedBefore);
    // the partition keeps updating
    byte[] v2 = file(8, 2);
    FileAck next = push(recorded(header(1, 8, 2, v2, crc(v2)), v2), v2, v2.length);
    assertThat(next.getAccepted()).as(next.getReason()).isTrue();
    assertThat(node.store.latestVersions(1)).containsEntry(8, 2L);
  }

  @Test
  void aPushWaitsForTheManifestToRecordItsVersion() throws Exception {
    byte[] body = file(9, 1);
    FileHeader h = header(1, 9, 1, body, crc(body));
    CompletableFuture<FileAck> ack =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return push(h, body, body.length);
              } catch (IOException e) {
                throw new UncheckedIOException(e);
              }
            });
    await("the push waits for the manifest instead of being refused at once")
        .during(Duration.ofMillis(500))
        .atMost(Duration.ofSeconds(2))
        .until(() -> !ack.isDone());
    record(1, 9, 1, body, crc(body));
    assertThat(ack.get(30, TimeUnit.SECONDS).getAccepted()).isTrue();
  }

  @Test
  void aPushWhoseChecksumDiffersFromTheManifestIsRefused() throws Exception {
    byte[] recordedBody = file(10, 1);
    record(1, 10, 1, recordedBody, crc(recordedBody));
    byte[] other = file(10, 99); // another file announced under the recorded version
    FileAck ack = push(header(1, 10, 1, other, crc(other)), other, other.length);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getReason()).contains("does not match the manifest");
    assertThat(node.store.file(new PartitionFileId(1, 10, 1))).isEmpty();
  }

  @Test
  void onlyAnIndexerMayPushAnEntryCopyAndOnlyASearcherOfTheDcMayRelay() throws Exception {
    byte[] body = file(11, 1);
    FileHeader entry = recorded(header(1, 11, 1, body, crc(body)), body);
    NodeIdentity searcherOfA = NodeIdentity.searcher("r2", "a");
    FileAck bySearcher =
        push(
            searcherOfA,
            entry.toBuilder().setSenderNode("r2").setSenderDc("a").build(),
            body,
            body.length);
    assertThat(bySearcher.getReason()).contains("not allowed").contains("only an indexer");
    FileAck relayFromB =
        push(
            NodeIdentity.searcher("b1", "b"),
            entry.toBuilder().setSenderNode("b1").setSenderDc("b").setHopCount(1).build(),
            body,
            body.length);
    assertThat(relayFromB.getReason()).contains("not allowed").contains("may not relay into a");
    FileAck unregistered =
        push(
            searcherOfA,
            entry.toBuilder().setSenderNode("r2").setSenderDc("a").setHopCount(1).build(),
            body,
            body.length);
    assertThat(unregistered.getReason()).contains("not registered");
    FileAck relayByIndexer =
        push(INDEXER, entry.toBuilder().setHopCount(1).build(), body, body.length);
    assertThat(relayByIndexer.getReason()).contains("may not relay");
    assertThat(node.store.file(new PartitionFileId(1, 11, 1))).isEmpty();
  }

  @Test
  void aDeclaredSenderOtherThanTheCertificatesIsRefusedAndUnknownDcsAreNotMetricTags()
      throws Exception {
    byte[] body = file(12, 1);
    FileHeader h = recorded(header(1, 12, 1, body, crc(body)), body);
    FileAck spoofed =
        push(
            h.toBuilder().setSenderNode("indexer-9").setSenderDc("dc-" + UUID.randomUUID()).build(),
            body,
            body.length);
    assertThat(spoofed.getAccepted()).isFalse();
    assertThat(spoofed.getReason())
        .contains("identity mismatch")
        .contains("its certificate is indexer test-indexer@x");
    assertThat(push(h, body, body.length).getAccepted()).isTrue();
    assertThat(
            cluster.registry.find("mosaic.transport.bytes").counters().stream()
                .map(c -> c.getId().getTag("from_dc"))
                .distinct())
        .as("DCs discovery does not know are tagged 'other'")
        .contains("other")
        .isSubsetOf("a", "other");
  }

  private static double refusedBytes() {
    return cluster
        .registry
        .find("mosaic.transport.bytes")
        .tag("direction", "refused")
        .counters()
        .stream()
        .mapToDouble(io.micrometer.core.instrument.Counter::count)
        .sum();
  }
}
