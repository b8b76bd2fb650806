package dev.mosaic.bench.load;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A small HTTP/1.1 client for load generation: a fixed number of persistent connections to one
 * server, each driven by its own virtual thread that takes the next request from one shared queue,
 * writes its pre-encoded bytes and reads the answer (status, {@code Content-Length} or chunked
 * body). Sending never blocks the caller: a request waits in the queue until a connection is free,
 * and that wait is part of its latency as the open loop measures it. Much cheaper per request than
 * the JDK client (no per-request connection, no per-request header building), so the generator does
 * not take the CPU the server under test needs on a small machine.
 *
 * <p>A connection that fails (refused, reset, closed early, a malformed answer or no answer within
 * the timeout) fails its request and is opened afresh for the next one.
 *
 * <p>Thread safety: {@link #send} may be called from any thread; {@link #close} once.
 */
final class KeepAliveClient implements AutoCloseable {
  /** An answer: its status and body. */
  record Response(int status, byte[] body) {}

  private record Pending(byte[] request, CompletableFuture<Response> answer) {}

  private final InetSocketAddress server;
  private final int timeoutMillis;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final Object idle = new Object();
  private int inFlight; // guarded by idle
  private final List<Thread> connections = new ArrayList<>();

  /**
   * @param server where to connect
   * @param connections how many connections to keep open (the most requests in flight at once)
   * @param timeout how long a connect or an answer may take before the request fails
   */
  KeepAliveClient(InetSocketAddress server, int connections, Duration timeout) {
    if (connections < 1) {
      throw new IllegalArgumentException("connections must be >= 1, got " + connections);
    }
    this.server = server;
    this.timeoutMillis = (int) Math.min(Integer.MAX_VALUE, timeout.toMillis());
    for (int i = 0; i < connections; i++) {
      this.connections.add(
          Thread.ofVirtual().name("load-connection-" + i).start(this::serveConnection));
    }
  }

  /** Encodes a POST of a JSON body to {@code path} once, for sending many times. */
  static byte[] post(String host, String path, byte[] jsonBody) {
    String head =
        "POST "
            + path
            + " HTTP/1.1\r\nHost: "
            + host
            + "\r\nContent-Type: application/json\r\nContent-Length: "
            + jsonBody.length
            + "\r\n\r\n";
    byte[] h = head.getBytes(StandardCharsets.US_ASCII);
    byte[] out = new byte[h.length + jsonBody.length];
    System.arraycopy(h, 0, out, 0, h.length);
    System.arraycopy(jsonBody, 0, out, h.length, jsonBody.length);
    return out;
  }

  /** Queues a pre-encoded request ({@link #post}); the answer completes when it has been read. */
  CompletableFuture<Response> send(byte[] encodedRequest) {
    CompletableFuture<Response> answer = new CompletableFuture<>();
    queue.add(new Pending(encodedRequest, answer));
    return answer;
  }

  private void serveConnection() {
    Socket socket = null;
    InputStream in = null;
    OutputStream out = null;
    try {
      while (true) {
        Pending p = queue.take();
        synchronized (idle) {
          inFlight++;
        }
        try {
          if (socket == null) {
            socket = new Socket();
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(timeoutMillis);
            socket.connect(server, timeoutMillis);
            in = new BufferedInputStream(socket.getInputStream(), 16384);
            out = socket.getOutputStream();
          }
          out.write(p.request());
          out.flush();
          Response r = readResponse(in);
          p.answer().complete(r);
        } catch (IOException | RuntimeException e) {
          p.answer().completeExceptionally(e);
          closeQuietly(socket);
          socket = null;
        } finally {
          synchronized (idle) {
            inFlight--;
            idle.notifyAll();
          }
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    } finally {
      closeQuietly(socket);
    }
  }

  private static void closeQuietly(Socket s) {
    if (s != null) {
      try {
        s.close();
      } catch (IOException e) {
        // closing a failed connection: nothing left to do
      }
    }
  }

  /** Reads one answer: status line, headers, then the body by its length or its chunks. */
  static Response readResponse(InputStream in) throws IOException {
    String status = readLine(in);
    if (!status.startsWith("HTTP/1.") || status.length() < 12) {
      throw new IOException("not an HTTP/1.x status line: '" + status + "'");
    }
    int code;
    try {
      code = Integer.parseInt(status.substring(9, 12));
    } catch (NumberFormatException e) {
      throw new IOException("no status code in '" + status + "'");
    }
    long length = -1;
    boolean chunked = false;
    for (String line = readLine(in); !line.isEmpty(); line = readLine(in)) {
      int colon = line.indexOf(':');
      if (colon < 0) {
        throw new IOException("malformed header line '" + line + "'");
      }
      String name = line.substring(0, colon).trim().toLowerCase(Locale.ROOT);
      String value = line.substring(colon + 1).trim();
      if (name.equals("content-length")) {
        length = Long.parseLong(value);
      } else if (name.equals("transfer-encoding")
          && value.toLowerCase(Locale.ROOT).contains("chunked")) {
        chunked = true;
      }
    }
    if (chunked) {
      ByteArrayOutputStream body = new ByteArrayOutputStream();
      while (true) {
        String size = readLine(in);
        int semi = size.indexOf(';');
        int n = Integer.parseInt((semi < 0 ? size : size.substring(0, semi)).trim(), 16);
        if (n == 0) {
          while (!readLine(in).isEmpty()) {
            // trailers: ignored
          }
          return new Response(code, body.toByteArray());
        }
        body.write(in.readNBytes(n));
        readLine(in);
      }
    }
    if (length < 0) {
      throw new IOException("answer with neither Content-Length nor chunked body");
    }
    if (length > Integer.MAX_VALUE - 8) {
      throw new IOException("answer body of " + length + " bytes is too large");
    }
    byte[] body = in.readNBytes((int) length);
    if (body.length != length) {
      throw new EOFException("connection closed after " + body.length + " of " + length + " bytes");
    }
    return new Response(code, body);
  }

  private static String readLine(InputStream in) throws IOException {
    StringBuilder line = new StringBuilder(64);
    while (true) {
      int c = in.read();
      if (c < 0) {
        throw new EOFException("connection closed by the server");
      }
      if (c == '\n') {
        int n = line.length();
        return n > 0 && line.charAt(n - 1) == '\r' ? line.substring(0, n - 1) : line.toString();
      }
      if (line.length() > 65536) {
        throw new IOException("header line over 64 KiB");
      }
      line.append((char) c);
    }
  }

  /**
   * Fails every request still queued, then waits (up to {@code timeout}) for those being answered,
   * so that what follows starts with free connections. Returns how many queued requests failed.
   */
  int drain(Duration timeout) throws InterruptedException {
    int failed = 0;
    for (Pending p = queue.poll(); p != null; p = queue.poll()) {
      p.answer()
          .completeExceptionally(new IOException("dropped: still queued at the end of a run"));
      failed++;
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (idle) {
      while (inFlight > 0) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          break;
        }
        java.util.concurrent.TimeUnit.NANOSECONDS.timedWait(idle, left);
      }
    }
    return failed;
  }

  /** Stops the connections: queued requests and those being answered fail. */
  @Override
  public void close() throws InterruptedException {
    for (Thread t : connections) {
      t.interrupt();
    }
    for (Thread t : connections) {
      t.join(Duration.ofSeconds(1));
    }
    for (Pending p = queue.poll(); p != null; p = queue.poll()) {
      p.answer().completeExceptionally(new IOException("client closed"));
    }
  }
}
