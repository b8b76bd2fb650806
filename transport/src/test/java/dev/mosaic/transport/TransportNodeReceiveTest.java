package dev.mosaic.transport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.transport.wire.FileAck;
import dev.mosaic.transport.wire.FileHeader;
import dev.mosaic.transport.wire.TransportRequest;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The receiving side spoken to over a raw TLS socket (with a certificate from the cluster CA): what
 * it accepts and what it rejects, and why.
 */
class TransportNodeReceiveTest {
  @TempDir static Path tmp;
  static TestCluster cluster;
  static TestCluster.Searcher node;

  @BeforeAll
  static void up() throws Exception {
    cluster =
        new TestCluster(
            tmp.resolve("cluster"),
            TransportSettings.builder()
                .catchUpGrace(Duration.ofMinutes(10))
                .transferIdleTimeout(Duration.ofSeconds(5))
                .build());
    node = cluster.searcher("r1", "a");
  }

  @AfterAll
  static void down() throws Exception {
    cluster.close();
  }

  private static FileAck push(FileHeader header, byte[] body, int sendBytes) throws IOException {
    try (Socket s =
        cluster
            .ca
            .forNode("test-client")
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
        .setOrigin("test")
        .setSenderNode("test")
        .setSenderDc("x")
        .setHopCount(1)
        .build();
  }

  private static byte[] file(int partition, long version) throws IOException {
    Path f = TestFiles.partition(tmp.resolve("src-" + partition + "-" + version), 300_000, version);
    return Files.readAllBytes(f);
  }

  private static long crc(byte[] b) {
    CRC32C c = new CRC32C();
    c.update(b);
    return c.getValue();
  }

  @Test
  void acceptsAVerifiedFileAndPublishesItUnderItsFinalName() throws Exception {
    byte[] body = file(1, 1);
    FileAck ack = push(header(1, 1, 1, body, crc(body)), body, body.length);
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
    FileAck ack = push(header(1, 2, 1, body, good), body, body.length);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getReason()).contains("checksum mismatch").contains("v1/2/1");
    assertThat(node.store.file(new PartitionFileId(1, 2, 1))).isEmpty();
    assertThat(node.store.stagedCount()).isZero();
  }

  @Test
  void aStreamEndingBeforeTheAnnouncedSizeIsDroppedAndNothingKept() throws Exception {
    byte[] body = file(3, 1);
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
    assertThat(push(header(1, 4, 5, v5, crc(v5)), v5, v5.length).getAccepted()).isTrue();
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
    FileAck ack = push(header(7, 5, 1, body, crc(body)), body, body.length);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getReason()).contains("unknown schema version 7");
  }

  @Test
  void rejectsAFileThatFailsTheStoresVerification() throws Exception {
    byte[] body = file(6, 1);
    body[10] ^=
        1; // corrupt before the checksum is taken: the transport CRC matches, the trailer not
    FileAck ack = push(header(1, 6, 1, body, crc(body)), body, body.length);
    assertThat(ack.getAccepted()).isFalse();
    assertThat(ack.getReason()).contains("corrupt partition file");
    assertThat(node.store.file(new PartitionFileId(1, 6, 1))).isEmpty();
    assertThat(node.store.stagedCount()).isZero();
  }
}
