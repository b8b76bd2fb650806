package dev.mosaic.transport.impl;

import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.transport.NodeIdentity;
import dev.mosaic.transport.PekkoTransport;
import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.TransportSecurity;
import dev.mosaic.transport.TransportSettings;
import dev.mosaic.transport.wire.DeltaPush;
import dev.mosaic.transport.wire.FetchRequest;
import dev.mosaic.transport.wire.FetchResponse;
import dev.mosaic.transport.wire.FileAck;
import dev.mosaic.transport.wire.FileHeader;
import dev.mosaic.transport.wire.TransportRequest;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLSession;
import org.apache.pekko.NotUsed;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.japi.pf.PFBuilder;
import org.apache.pekko.stream.javadsl.FileIO;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.Tcp;
import org.apache.pekko.util.ByteString;

/**
 * The client side of a transfer: pushes a file to a peer and awaits its acknowledgement, or fetches
 * a published file from a peer into the local store (catch-up). Pushes of whole files and of change
 * sets go over connections kept open per peer ({@link ConnectionPool}), one TLS handshake for many
 * of them (TCP flow control gives end-to-end backpressure from the receiver's disk to the sender's
 * file reads); a fetch has a Pekko Streams TCP connection of its own.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class TransferClient implements AutoCloseable {
  /**
   * Fewest idle connections kept per peer; more when the settings let more deliveries and relays
   * run at once (all of them may go to one peer).
   */
  static final int MIN_IDLE_CONNECTIONS_PER_PEER = 4;

  private static final org.slf4j.Logger LOG =
      org.slf4j.LoggerFactory.getLogger(TransferClient.class);
  private final PekkoTransport ext;
  private final TransportSettings settings;
  private final TransportMetrics metrics;
  private final String myNode;
  private final String myDc;
  private final TransportSecurity security;
  private final ConnectionPool pool;

  TransferClient(
      PekkoTransport ext,
      TransportSettings settings,
      TransportMetrics metrics,
      String myNode,
      String myDc,
      TransportSecurity security) {
    this.security = security;
    this.ext = ext;
    this.settings = settings;
    this.metrics = metrics;
    this.myNode = myNode;
    this.myDc = myDc;
    this.pool =
        new ConnectionPool(
            this::connection,
            ext,
            Math.max(
                MIN_IDLE_CONNECTIONS_PER_PEER,
                settings.maxConcurrentDeliveries() + settings.relayParallelism()),
            target -> metrics.pooledConnectionOpened(target.dc()));
  }

  /** Connections opened for pushes so far. */
  long pooledConnectionsOpened() {
    return pool.opened();
  }

  /** Closes the connections kept for pushes. */
  @Override
  public void close() {
    pool.close();
  }

  String myNode() {
    return myNode;
  }

  String myDc() {
    return myDc;
  }

  private Flow<ByteString, ByteString, ?> connection(SearcherEndpoint target) {
    InetSocketAddress address =
        new InetSocketAddress(target.transportHost(), target.transportPort());
    if (security.encrypted()) {
      return Tcp.get(ext.system())
          .outgoingConnectionWithTls(
              address,
              () -> security.newClientEngine(target.transportHost(), target.transportPort()),
              Optional.empty(),
              List.of(),
              Optional.of(settings.connectTimeout()),
              Optional.of(settings.transferIdleTimeout()),
              session -> verifyTarget(target, session),
              // our side completing (request sent) must not end the session: the answer follows
              org.apache.pekko.stream.IgnoreComplete$.MODULE$)
          .addAttributes(ConnectionBuffers.tcp())
          .mapError(
              new PFBuilder<Throwable, Throwable>()
                  .match(
                      SSLException.class,
                      e -> {
                        LOG.warn(
                            "{}: TLS handshake with {} at {} failed (peer refused us or we refused"
                                + " its certificate): {}",
                            myNode,
                            target.nodeId(),
                            address,
                            e.getMessage());
                        return e;
                      })
                  .build());
    }
    return Tcp.get(ext.system())
        .outgoingConnection(
            new InetSocketAddress(target.transportHost(), target.transportPort()),
            Optional.empty(),
            List.of(),
            true,
            Optional.of(settings.connectTimeout()),
            Optional.of(settings.transferIdleTimeout()))
        .addAttributes(ConnectionBuffers.tcp());
  }

  /**
   * Fails the handshake unless the peer's certificate names the searcher discovery listed: a
   * registry entry pointing at another node's address cannot divert a file.
   */
  private Optional<Throwable> verifyTarget(SearcherEndpoint target, SSLSession session) {
    NodeIdentity expected = NodeIdentity.searcher(target.nodeId(), target.dc());
    try {
      NodeIdentity peer = NodeIdentity.ofPeer(session);
      if (peer.equals(expected)) {
        return Optional.empty();
      }
      return Optional.of(
          new SSLException(
              "peer at "
                  + target.transportHost()
                  + ":"
                  + target.transportPort()
                  + " is "
                  + peer
                  + ", not the registered "
                  + expected));
    } catch (IllegalArgumentException e) {
      return Optional.of(new SSLException(e.getMessage(), e));
    }
  }

  /**
   * Streams {@code header} then the bytes of {@code file} to {@code target}; completes with its
   * acknowledgement. If the receiver answers before all bytes went out (a refusal), sending stops.
   */
  CompletionStage<FileAck> push(SearcherEndpoint target, FileHeader header, Path file) {
    return pushStream(target, header, FileIO.fromPath(file, settings.chunkSize()));
  }

  /**
   * Streams {@code header} then {@code body} (exactly the header's size in bytes) to {@code
   * target}; completes with its acknowledgement. {@code body} may be materialized twice (a retry on
   * a new connection when a kept one had ended).
   */
  <M> CompletionStage<FileAck> pushStream(
      SearcherEndpoint target, FileHeader header, Source<ByteString, M> body) {
    FileHeader h = header.toBuilder().setSenderNode(myNode).setSenderDc(myDc).build();
    metrics.copySent("full", myDc, target.dc());
    Source<ByteString, NotUsed> out =
        Source.single(Frames.frame(TransportRequest.newBuilder().setPush(h).build()))
            .concat(
                body.map(
                    b -> {
                      metrics.bytesSent(myDc, target.dc(), b.size());
                      metrics.wireBytes("full", myDc, target.dc(), b.size());
                      return b;
                    }));
    return pool.exchange(target, out)
        .handle(
            (ack, err) -> {
              if (err != null) {
                throw noAcknowledgement(target, err);
              }
              return ack;
            });
  }

  /**
   * Offers the version of {@code header} to {@code target} as the change set {@code delta} (header,
   * then the change set bytes); completes with its acknowledgement, which may ask for the full file
   * ({@link FileAck#getNeedFull()}).
   */
  CompletionStage<FileAck> pushDelta(SearcherEndpoint target, FileHeader header, DeltaOffer delta) {
    FileHeader h = header.toBuilder().setSenderNode(myNode).setSenderDc(myDc).build();
    ByteString request =
        Frames.frame(
            TransportRequest.newBuilder()
                .setDelta(
                    DeltaPush.newBuilder()
                        .setHeader(h)
                        .setBaseVersion(delta.baseVersion())
                        .setChangeSetSize(delta.changes().length)
                        .setChangeSetCrc32C(delta.crc32c())
                        .setContentCrc32C(delta.contentCrc32c()))
                .build());
    metrics.copySent("delta", myDc, target.dc());
    metrics.wireBytes("delta", myDc, target.dc(), request.size() + delta.changes().length);
    metrics.bytesSent(myDc, target.dc(), delta.changes().length);
    return pool.exchange(target, List.of(request, ByteString.fromArrayUnsafe(delta.changes())))
        .handle(
            (ack, err) -> {
              if (err != null) {
                throw noAcknowledgement(target, err);
              }
              return ack;
            });
  }

  private static CompletionException noAcknowledgement(SearcherEndpoint target, Throwable err) {
    return new CompletionException(
        new IOException(
            "no acknowledgement from "
                + target
                + ": "
                + (unwrap(err) instanceof NoSuchElementException
                    ? "connection closed before the acknowledgement"
                    : StoreWriter.rootMessage(err)),
            err));
  }

  /** What a fetch came to. */
  record FetchOutcome(boolean published, String reason) {}

  /**
   * Asks {@code peer} for the file of {@code wanted} and streams it into {@code store}, verifying
   * size and CRC32C against the manifest record.
   */
  CompletionStage<FetchOutcome> fetch(
      SearcherEndpoint peer, ManifestRecord wanted, ReceivingStore store) {
    FetchRequest req =
        FetchRequest.newBuilder()
            .setSchemaVersion(wanted.id().schemaVersion())
            .setPartition(wanted.id().partition())
            .setVersion(wanted.id().version())
            .setRequesterNode(myNode)
            .setRequesterDc(myDc)
            .build();
    CompletionStage<FetchOutcome> result =
        ext.run(
            Source.single(Frames.frame(TransportRequest.newBuilder().setFetch(req).build()))
                .via(connection(peer))
                .statefulMapConcat(
                    () ->
                        new Frames.Splitter<FetchResponse>(
                            FetchResponse::parseFrom,
                            r -> r.getFound() ? r.getHeader().getSize() : 0))
                .prefixAndTail(1)
                .mapAsync(1, pair -> receiveFetched(peer, wanted, store, pair))
                .toMat(Sink.head(), Keep.right()));
    return result.exceptionally(
        err ->
            new FetchOutcome(
                false,
                unwrap(err) instanceof NoSuchElementException
                    ? peer + " closed the connection without an answer"
                    : peer + ": " + StoreWriter.reason(err)));
  }

  private CompletionStage<FetchOutcome> receiveFetched(
      SearcherEndpoint peer,
      ManifestRecord wanted,
      ReceivingStore store,
      Pair<List<Object>, Source<Object, NotUsed>> pair) {
    if (pair.first().isEmpty()) {
      return CompletableFuture.completedFuture(
          new FetchOutcome(false, peer + " closed the connection without an answer"));
    }
    @SuppressWarnings("unchecked")
    FetchResponse resp = ((Frames.Head<FetchResponse>) pair.first().get(0)).message();
    Source<Object, NotUsed> body = Frames.body(pair.second());
    if (!resp.getFound()) {
      ext.runWith(body, Sink.ignore());
      return CompletableFuture.completedFuture(
          new FetchOutcome(false, peer + " does not hold it: " + resp.getReason()));
    }
    long size = resp.getHeader().getSize();
    if (size != wanted.size()) {
      ext.runWith(body, Sink.ignore());
      return CompletableFuture.completedFuture(
          new FetchOutcome(
              false,
              peer + " holds " + size + " bytes, the manifest says " + wanted.size() + " bytes"));
    }
    return StoreWriter.stage(store, wanted.id(), size, ext.blockingExecutor())
        .handle(
            (staged, err) -> {
              if (err != null) {
                ext.runWith(body, Sink.ignore());
                return CompletableFuture.<Void>failedFuture(err);
              }
              return StoreWriter.fillAndPublish(
                  staged,
                  wanted.id(),
                  size,
                  wanted.crc32c(),
                  body,
                  ext,
                  n -> metrics.bytesReceived(peer.dc(), myDc, n));
            })
        .thenCompose(f -> f)
        .handle(
            (ok, err) ->
                err != null
                    ? new FetchOutcome(false, peer + ": " + StoreWriter.reason(err))
                    : new FetchOutcome(true, "fetched from " + peer));
  }

  /** The TLS failure in the cause chain of {@code t}, or null. */
  static SSLException tlsFailure(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof SSLException e) {
        return e;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return null;
  }

  static Throwable unwrap(Throwable t) {
    Throwable c = t;
    while (c instanceof CompletionException && c.getCause() != null) {
      c = c.getCause();
    }
    return c;
  }
}
