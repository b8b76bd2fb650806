package dev.mosaic.transport;

import java.io.Closeable;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP forwarder in front of a node that can tamper with the client-to-node bytes: flip a byte or
 * cut the connection at an offset. Stands for a broken network link in tests.
 */
final class FaultyLink implements Closeable {
  /** Decides what happens to bytes at {@code offset} of the client-to-node stream. */
  interface Fault {
    /**
     * May modify {@code buf[0..len)}; returns false to cut the connection before forwarding.
     *
     * @param connection index of the connection through this link, from 0
     */
    boolean onBytes(int connection, long offset, byte[] buf, int len);
  }

  private final ServerSocket server;
  private final int targetPort;
  private final Fault fault;
  private final AtomicInteger connections = new AtomicInteger();

  FaultyLink(int targetPort, Fault fault) throws IOException {
    this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
    this.targetPort = targetPort;
    this.fault = fault;
    Thread.ofVirtual().name("faulty-link-" + port()).start(this::acceptLoop);
  }

  int port() {
    return server.getLocalPort();
  }

  private void acceptLoop() {
    while (!server.isClosed()) {
      try {
        Socket client = server.accept();
        int index = connections.getAndIncrement();
        Socket target = new Socket(InetAddress.getLoopbackAddress(), targetPort);
        AtomicInteger open = new AtomicInteger(2);
        Thread.ofVirtual().start(() -> pump(client, target, index, true, open));
        Thread.ofVirtual().start(() -> pump(target, client, index, false, open));
      } catch (IOException e) {
        // closed, or the target is down: the client sees its connection fail
      }
    }
  }

  private void pump(Socket from, Socket to, int index, boolean tamper, AtomicInteger open) {
    try {
      // NOTE: closing a socket's stream closes the socket; both are closed once both ways are done
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      byte[] buf = new byte[64 * 1024];
      long offset = 0;
      int n;
      while ((n = in.read(buf)) >= 0) {
        if (tamper && !fault.onBytes(index, offset, buf, n)) {
          from.close();
          to.close();
          return;
        }
        out.write(buf, 0, n);
        offset += n;
      }
      to.shutdownOutput();
      if (open.decrementAndGet() == 0) {
        closeQuietly(from);
        closeQuietly(to);
      }
    } catch (IOException e) {
      closeQuietly(from);
      closeQuietly(to);
    }
  }

  private static void closeQuietly(Socket s) {
    try {
      s.close();
    } catch (IOException ignored) {
      // already broken
    }
  }

  @Override
  public void close() throws IOException {
    server.close();
  }
}
