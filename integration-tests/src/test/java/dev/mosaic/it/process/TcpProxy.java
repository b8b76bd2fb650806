package dev.mosaic.it.process;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A TCP forwarder standing for the network link in front of a process: it listens on one address
 * and copies bytes both ways to a target address, until {@link #cut()} drops the link: every open
 * connection is closed at once (both directions, mid-transfer) and the listening socket too, so new
 * connections are refused. {@link #restore()} listens again on the same address. Plain blocking
 * sockets, one virtual thread per direction of each connection.
 *
 * <p>Thread safety: {@link #cut()}, {@link #restore()} and {@link #close()} may be called from any
 * thread; forwarding runs on the proxy's own threads.
 */
final class TcpProxy implements AutoCloseable {
  private final InetSocketAddress listen;
  private final InetSocketAddress target;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private ServerSocket server;
  private long connections;

  /** Starts forwarding from {@code listen} to {@code target}. */
  TcpProxy(InetSocketAddress listen, InetSocketAddress target) {
    this.listen = listen;
    this.target = target;
    restore();
  }

  /** Connections accepted so far (to show traffic really went through the proxy). */
  synchronized long connections() {
    return connections;
  }

  /** Drops the link: closes every open connection and stops listening (new ones are refused). */
  synchronized void cut() {
    closeQuietly(server);
    server = null;
    for (Socket s : open) {
      closeQuietly(s);
    }
    open.clear();
  }

  /** Listens again on the same address (no-op while listening). */
  synchronized void restore() {
    if (server != null) {
      return;
    }
    try {
      ServerSocket s = new ServerSocket();
      s.setReuseAddress(true);
      s.bind(listen);
      server = s;
      Thread.ofVirtual().name("proxy-accept-" + listen.getPort()).start(() -> accept(s));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot listen on " + listen, e);
    }
  }

  @Override
  public void close() {
    cut();
  }

  private void accept(ServerSocket s) {
    while (!s.isClosed()) {
      Socket client;
      try {
        client = s.accept();
      } catch (IOException e) {
        return; // cut or closed
      }
      synchronized (this) {
        if (server != s) {
          closeQuietly(client);
          return;
        }
        connections++;
        open.add(client);
      }
      Thread.ofVirtual().start(() -> connect(client));
    }
  }

  private void connect(Socket client) {
    Socket upstream = new Socket();
    open.add(upstream);
    try {
      upstream.connect(target, 5000);
      if (!open.contains(client)) {
        throw new SocketException("cut while connecting");
      }
    } catch (IOException e) {
      closeBoth(client, upstream);
      return;
    }
    AtomicInteger directions = new AtomicInteger(2);
    Thread.ofVirtual().start(() -> pump(client, upstream, directions));
    pump(upstream, client, directions);
  }

  /**
   * Copies one direction; an orderly end is passed on as a half-close, an error closes both
   * sockets, and the last direction to finish closes them.
   */
  private void pump(Socket from, Socket to, AtomicInteger directions) {
    byte[] buffer = new byte[16 * 1024];
    try {
      InputStream in = from.getInputStream();
      OutputStream out = to.getOutputStream();
      for (int n; (n = in.read(buffer)) >= 0; ) {
        out.write(buffer, 0, n);
      }
      to.shutdownOutput();
      if (directions.decrementAndGet() == 0) {
        closeBoth(from, to);
      }
    } catch (IOException e) {
      closeBoth(from, to); // either side failed or the link was cut
    }
  }

  private void closeBoth(Socket a, Socket b) {
    open.remove(a);
    open.remove(b);
    closeQuietly(a);
    closeQuietly(b);
  }

  private static void closeQuietly(java.io.Closeable c) {
    if (c == null) {
      return;
    }
    try {
      c.close();
    } catch (IOException e) {
      // closing anyway
    }
  }
}
