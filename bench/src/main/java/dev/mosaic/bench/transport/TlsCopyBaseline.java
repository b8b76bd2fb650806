package dev.mosaic.bench.transport;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.transport.TransportSecurity;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.zip.CRC32C;
import javax.net.ServerSocketFactory;
import javax.net.SocketFactory;
import javax.net.ssl.SSLServerSocket;
import javax.net.ssl.SSLSocket;

/**
 * The honest baseline of the transport benchmark: the same work as a transport hop, done the
 * simplest way with blocking JDK sockets. Over TLS 1.3 with mutual authentication (the same
 * certificates as the transport; or plain TCP when the transport runs plaintext), the sender
 * streams the file computing its CRC32C on the way and sends it after the body; the receiver stages
 * the bytes in the same {@link BenchStore} as the transport, computes the CRC32C while writing,
 * compares it, publishes (fsync, verifying re-read, atomic rename, directory fsync) and
 * acknowledges. A relay is store-and-forward: the entry publishes, then sends to its peers at once.
 *
 * <p>Thread safety: one copy at a time per instance.
 */
final class TlsCopyBaseline {
  private static final int BUFFER = 1 << 20;

  private final TransportSecurity sender;
  private final TransportSecurity receiver;
  private final ExecutorService threads = Executors.newVirtualThreadPerTaskExecutor();

  TlsCopyBaseline(TransportSecurity sender, TransportSecurity receiver) {
    this.sender = sender;
    this.receiver = receiver;
  }

  /** Copies {@code source} into {@code entry}, then from there into every peer; seconds of each. */
  double[] copy(Path source, PartitionFileId id, BenchStore entry, List<BenchStore> peers)
      throws Exception {
    long t0 = System.nanoTime();
    hop(source, id, entry);
    double entrySeconds = (System.nanoTime() - t0) / 1e9;
    Path held = entry.file(id).orElseThrow();
    List<CompletableFuture<Void>> relays = new ArrayList<>();
    for (BenchStore peer : peers) {
      relays.add(
          CompletableFuture.runAsync(
              () -> {
                try {
                  hop(held, id, peer);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              },
              threads));
    }
    CompletableFuture.allOf(relays.toArray(CompletableFuture[]::new)).get();
    return new double[] {entrySeconds, (System.nanoTime() - t0) / 1e9};
  }

  private ServerSocketFactory serverSockets() {
    return receiver.encrypted()
        ? receiver.context().getServerSocketFactory()
        : ServerSocketFactory.getDefault();
  }

  private SocketFactory clientSockets() {
    return sender.encrypted() ? sender.context().getSocketFactory() : SocketFactory.getDefault();
  }

  /** One verified, durable copy over a fresh connection. */
  private void hop(Path source, PartitionFileId id, ReceivingStore target) throws IOException {
    try (var server = serverSockets().createServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      if (server instanceof SSLServerSocket tls) {
        tls.setNeedClientAuth(true);
        tls.setEnabledProtocols(new String[] {"TLSv1.3"});
      }
      CompletableFuture<Void> received =
          CompletableFuture.runAsync(
              () -> {
                try (var s = server.accept()) {
                  receive(s.getInputStream(), s.getOutputStream(), id, target);
                } catch (IOException e) {
                  throw new UncheckedIOException(e);
                }
              },
              threads);
      try (var s =
          clientSockets().createSocket(InetAddress.getLoopbackAddress(), server.getLocalPort())) {
        if (s instanceof SSLSocket tls) {
          tls.setEnabledProtocols(new String[] {"TLSv1.3"});
        }
        send(source, s.getOutputStream());
        if (s.getInputStream().read() != 1) {
          throw new IOException("the receiver did not acknowledge " + id);
        }
      }
      received.join();
    }
  }

  private static void send(Path source, OutputStream socket) throws IOException {
    DataOutputStream out = new DataOutputStream(socket);
    try (FileChannel in = FileChannel.open(source, StandardOpenOption.READ)) {
      out.writeLong(in.size());
      CRC32C crc = new CRC32C();
      ByteBuffer buf = ByteBuffer.allocate(BUFFER);
      while (in.read(buf.clear()) >= 0) {
        buf.flip();
        crc.update(buf.array(), 0, buf.limit());
        out.write(buf.array(), 0, buf.limit());
      }
      out.writeLong(crc.getValue());
      out.flush();
    }
  }

  private static void receive(
      InputStream socket, OutputStream ack, PartitionFileId id, ReceivingStore store)
      throws IOException {
    DataInputStream in = new DataInputStream(socket);
    long size = in.readLong();
    try (ReceivingStore.StagedFile staged = store.stage(id, size);
        FileChannel out = FileChannel.open(staged.path(), StandardOpenOption.WRITE)) {
      CRC32C crc = new CRC32C();
      byte[] buf = new byte[BUFFER];
      long remaining = size;
      while (remaining > 0) {
        int n = in.read(buf, 0, (int) Math.min(buf.length, remaining));
        if (n < 0) {
          throw new IOException("stream ended " + remaining + " bytes early");
        }
        crc.update(buf, 0, n);
        ByteBuffer b = ByteBuffer.wrap(buf, 0, n);
        while (b.hasRemaining()) {
          out.write(b);
        }
        remaining -= n;
      }
      if (in.readLong() != crc.getValue()) {
        throw new IOException("checksum mismatch for " + id);
      }
      staged.publish();
    }
    ack.write(1);
    ack.flush();
  }
}
