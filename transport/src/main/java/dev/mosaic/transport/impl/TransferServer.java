package dev.mosaic.transport.impl;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.transport.NodeIdentity;
import dev.mosaic.transport.PekkoTransport;
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
import java.nio.file.Files;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.pekko.NotUsed;
import org.apache.pekko.japi.Pair;
import org.apache.pekko.japi.pf.PFBuilder;
import org.apache.pekko.stream.IgnoreCancel$;
import org.apache.pekko.stream.KillSwitches;
import org.apache.pekko.stream.SharedKillSwitch;
import org.apache.pekko.stream.SubstreamCancelStrategy;
import org.apache.pekko.stream.TLSProtocol.SendBytes;
import org.apache.pekko.stream.TLSProtocol.SessionBytes;
import org.apache.pekko.stream.TLSProtocol.SslTlsInbound;
import org.apache.pekko.stream.TLSProtocol.SslTlsOutbound;
import org.apache.pekko.stream.javadsl.BidiFlow;
import org.apache.pekko.stream.javadsl.FileIO;
import org.apache.pekko.stream.javadsl.Flow;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;
import org.apache.pekko.stream.javadsl.TLS;
import org.apache.pekko.stream.javadsl.Tcp;
import org.apache.pekko.util.ByteString;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The receiving side of a node: accepts pushes (header + bytes → store → acknowledgement) and
 * serves catch-up fetches of published files. A connection carries one request after the other
 * (each answered before the next is read; senders keep connections for their change sets); the body
 * streams chunk by chunk into the staged file, so TCP backpressure reaches the sender.
 *
 * <p>Thread safety: safe for concurrent use.
 */
final class TransferServer implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(TransferServer.class);

  private final PekkoTransport ext;
  private final TransportSettings settings;
  private final TransportMetrics metrics;
  private final String nodeId;
  private final String dc;
  private final ReceivingStore store;
  private final Supplier<Optional<String>> refusal;
  private final Set<PartitionFileId> receiving;
  private final Published onPublished;
  private final CutThroughRelay cutThrough;
  private final TransportSecurity security;
  private final PeerPolicy policy;
  private final ManifestGate gate;
  private final AtomicInteger active = new AtomicInteger();
  private final SharedKillSwitch killSwitch;
  private volatile Tcp.ServerBinding binding;

  TransferServer(
      PekkoTransport ext,
      TransportSettings settings,
      TransportMetrics metrics,
      String nodeId,
      String dc,
      ReceivingStore store,
      Supplier<Optional<String>> refusal,
      Set<PartitionFileId> receiving,
      Published onPublished,
      CutThroughRelay cutThrough,
      TransportSecurity security,
      PeerPolicy policy,
      ManifestGate gate) {
    this.ext = ext;
    this.settings = settings;
    this.metrics = metrics;
    this.nodeId = nodeId;
    this.dc = dc;
    this.store = store;
    this.refusal = refusal;
    this.receiving = receiving;
    this.onPublished = onPublished;
    this.cutThrough = cutThrough;
    this.security = security;
    this.policy = policy;
    this.gate = gate;
    this.killSwitch = KillSwitches.shared("transport-" + nodeId);
  }

  /** Told of every version this node published from a push. */
  interface Published {
    /**
     * @param delta the change set it was rebuilt from, if it came as one
     * @param reached completes with the peers of this node's DC that the push was forwarded to
     *     while it arrived (cut-through) and that hold the version
     */
    void published(FileHeader h, Optional<DeltaOffer> delta, CompletionStage<Set<String>> reached);
  }

  CompletionStage<InetSocketAddress> bind(String host, int port) {
    return ext.run(
            Tcp.get(ext.system())
                .bind(host, port, 100, List.of(), true, Optional.empty())
                .to(
                    Sink.foreach(
                        c ->
                            ext.run(
                                c.flow()
                                    .addAttributes(ConnectionBuffers.tcp())
                                    .join(
                                        security.encrypted()
                                            ? secured(c.remoteAddress())
                                            : connectionFlow(() -> null))))))
        .thenApply(
            b -> {
              binding = b;
              return b.localAddress();
            });
  }

  /**
   * The connection flow behind a server-side TLS stage that requires the client's certificate. A
   * connection that ends before the handshake completed (no certificate, one not signed by the
   * cluster CA, an expired one, one without a node identity, or no TLS at all) is logged with the
   * peer's address; no request byte of it was read. The identity in the certificate is what the
   * requests of the connection are judged on ({@link PeerPolicy}).
   */
  private Flow<ByteString, ByteString, NotUsed> secured(InetSocketAddress peer) {
    AtomicReference<NodeIdentity> peerIdentity = new AtomicReference<>();
    BidiFlow<SslTlsOutbound, ByteString, ByteString, SslTlsInbound, NotUsed> tls =
        TLS.create(
            security::newServerEngine,
            session -> peerIdentity.set(NodeIdentity.ofPeer(session)),
            // the client keeps its side open until it has the answer; the answer closes
            IgnoreCancel$.MODULE$);
    Flow<SslTlsInbound, SslTlsOutbound, NotUsed> app =
        Flow.of(SslTlsInbound.class)
            .collect(
                new PFBuilder<SslTlsInbound, ByteString>()
                    .match(SessionBytes.class, SessionBytes::bytes)
                    .build())
            .via(connectionFlow(peerIdentity::get))
            .map(b -> (SslTlsOutbound) new SendBytes(b));
    return Flow.of(ByteString.class)
        .watchTermination(
            (m, done) -> {
              done.whenComplete(
                  (d, err) -> {
                    if (peerIdentity.get() == null) {
                      LOG.warn(
                          "{}: refused transport connection from {}: TLS handshake failed (no"
                              + " certificate signed by the cluster CA carrying a node"
                              + " identity){}",
                          nodeId,
                          peer,
                          err == null ? "" : ": " + StoreWriter.rootMessage(err));
                    } else {
                      LOG.debug(
                          "{}: connection from {} ({}) ended", nodeId, peer, peerIdentity.get());
                    }
                  });
              return NotUsed.getInstance();
            })
        .via(tls.reversed().join(app));
  }

  private Flow<ByteString, ByteString, NotUsed> connectionFlow(Supplier<NodeIdentity> peer) {
    return Flow.of(ByteString.class)
        .via(killSwitch.flow())
        .idleTimeout(settings.transferIdleTimeout())
        .statefulMapConcat(
            () ->
                Frames.Splitter.<TransportRequest>repeating(
                    TransportRequest::parseFrom,
                    r ->
                        r.hasPush()
                            ? r.getPush().getSize()
                            : r.hasDelta() ? r.getDelta().getChangeSetSize() : 0))
        // one request after the other on a connection (a sender reuses its connections): each
        // request with its body is a substream, answered before the next one is read
        .splitWhen(SubstreamCancelStrategy.drain(), o -> o instanceof Frames.Head)
        .prefixAndTail(1)
        .mapAsync(1, pair -> handle(pair, peer.get()))
        .flatMapConcat(s -> s)
        .concatSubstreams()
        .via(killSwitch.flow());
  }

  private CompletionStage<Source<ByteString, NotUsed>> handle(
      Pair<List<Object>, Source<Object, NotUsed>> pair, NodeIdentity peer) {
    if (pair.first().isEmpty()) {
      return CompletableFuture.completedFuture(Source.empty());
    }
    @SuppressWarnings("unchecked")
    TransportRequest req = ((Frames.Head<TransportRequest>) pair.first().get(0)).message();
    Source<Object, NotUsed> body = pair.second();
    if (req.hasPush()) {
      return receive(req.getPush(), Frames.body(body), peer, this::store)
          .thenApply(ack -> Source.single(Frames.frame(ack)));
    }
    if (req.hasDelta()) {
      DeltaPush d = req.getDelta();
      return receive(d.getHeader(), Frames.body(body), peer, (h, id, b) -> storeDelta(d, h, id, b))
          .thenApply(ack -> Source.single(Frames.frame(ack)));
    }
    ext.runWith(body, Sink.ignore());
    if (req.hasFetch()) {
      return CompletableFuture.completedFuture(serveFetch(req.getFetch(), peer));
    }
    LOG.warn("{}: request of unknown kind from a newer or foreign peer; closing", nodeId);
    return CompletableFuture.completedFuture(Source.empty());
  }

  private FileAck ack(boolean accepted, boolean alreadyHeld, String reason) {
    return FileAck.newBuilder()
        .setAccepted(accepted)
        .setAlreadyHeld(alreadyHeld)
        .setReason(reason)
        .setNodeId(nodeId)
        .build();
  }

  private CompletionStage<FileAck> refuse(
      FileHeader h, Source<Object, NotUsed> body, boolean alreadyHeld, String reason) {
    drain(h, body);
    if (alreadyHeld) {
      LOG.debug("{}: already holds {} (from {})", nodeId, describe(h), h.getSenderNode());
    } else {
      LOG.warn("{}: refused {} from {}: {}", nodeId, describe(h), h.getSenderNode(), reason);
    }
    return CompletableFuture.completedFuture(ack(false, alreadyHeld, reason));
  }

  private static String describe(FileHeader h) {
    return "v" + h.getSchemaVersion() + "/" + h.getPartition() + "/" + h.getVersion();
  }

  /** Reads and discards the body of a refused push, counting its bytes as refused. */
  private void drain(FileHeader h, Source<Object, NotUsed> body) {
    String fromDc = policy.metricDc(h.getSenderDc());
    ext.runWith(body, Sink.foreach(o -> metrics.bytesRefused(fromDc, dc, ((ByteString) o).size())));
  }

  /** What an admitted push does with its body; the caller counted it in {@code active}. */
  private interface Admitted {
    CompletionStage<FileAck> store(FileHeader h, PartitionFileId id, Source<Object, NotUsed> body);
  }

  private CompletionStage<FileAck> receive(
      FileHeader h, Source<Object, NotUsed> body, NodeIdentity peer, Admitted then) {
    try {
      return admit(h, body, peer, then);
    } catch (RuntimeException e) {
      LOG.error("{}: failed to handle {} from {}", nodeId, describe(h), h.getSenderNode(), e);
      return refuse(h, body, false, "receiver error: " + e);
    }
  }

  private CompletionStage<FileAck> admit(
      FileHeader h, Source<Object, NotUsed> body, NodeIdentity peer, Admitted then) {
    PartitionFileId id;
    try {
      id = new PartitionFileId(h.getSchemaVersion(), h.getPartition(), h.getVersion());
      if (h.getSize() < 0) {
        throw new IllegalArgumentException("negative size " + h.getSize());
      }
    } catch (IllegalArgumentException e) {
      return refuse(h, body, false, "bad header: " + e.getMessage());
    }
    Optional<String> forbidden = policy.refusePush(h, peer);
    if (forbidden.isPresent()) {
      return refuse(h, body, false, forbidden.get());
    }
    Optional<String> unhealthy = refusal.get();
    if (unhealthy.isPresent()) {
      return refuse(h, body, false, "unhealthy: " + unhealthy.get());
    }
    OptionalLong latest = store.latestVersion(id.schemaVersion(), id.partition());
    long held = latest.orElse(Long.MIN_VALUE);
    if (latest.isPresent() && held == id.version()) {
      return refuse(h, body, true, "already holds " + id);
    }
    if (latest.isPresent() && held > id.version()) {
      // not an error: deliveries of two versions crossed (a relay overtaken by a newer entry copy)
      return superseded(
          h,
          body,
          "older version: "
              + id
              + " is older than the held version "
              + held
              + " of partition "
              + id.partition());
    }
    if (active.incrementAndGet() > settings.maxIncomingTransfers()) {
      active.decrementAndGet();
      return refuse(
          h,
          body,
          false,
          "busy: " + settings.maxIncomingTransfers() + " incoming transfers in progress");
    }
    return gate.check(id, h.getSize(), h.getCrc32C())
        .thenCompose(
            d ->
                switch (d.verdict()) {
                  case RECORDED -> then.store(h, id, body);
                  case SUPERSEDED -> {
                    active.decrementAndGet();
                    yield superseded(h, body, d.reason());
                  }
                  case REFUSED -> {
                    active.decrementAndGet();
                    yield refuse(h, body, false, d.reason());
                  }
                });
  }

  private CompletionStage<FileAck> superseded(
      FileHeader h, Source<Object, NotUsed> body, String reason) {
    drain(h, body);
    LOG.debug("{}: superseded {} from {}: {}", nodeId, describe(h), h.getSenderNode(), reason);
    return CompletableFuture.completedFuture(
        ack(false, false, reason).toBuilder().setSuperseded(true).build());
  }

  /** Streams an admitted push into the store; the caller counted it in {@code active}. */
  private CompletionStage<FileAck> store(
      FileHeader h, PartitionFileId id, Source<Object, NotUsed> body) {
    if (!receiving.add(id)) {
      active.decrementAndGet();
      return refuse(h, body, false, "busy: already receiving " + id);
    }
    String fromDc = policy.metricDc(h.getSenderDc());
    String kind = h.getHopCount() == 0 ? "entry" : "relay";
    CompletableFuture<Set<String>> reached = new CompletableFuture<>();
    return StoreWriter.stage(store, id, h.getSize(), ext.blockingExecutor())
        .handle(
            (staged, err) -> {
              if (err != null) {
                reached.complete(Set.of());
                drain(h, body);
                return CompletableFuture.<Void>failedFuture(err);
              }
              // an entry copy goes on to the DC's peers while it arrives
              CutThroughRelay.Tee tee =
                  h.getHopCount() == 0 && cutThrough != null
                      ? cutThrough.tee(h, body)
                      : new CutThroughRelay.Tee(
                          body, CompletableFuture.completedFuture(Set.of()), () -> {});
              tee.reached().whenComplete((r, e) -> reached.complete(r == null ? Set.of() : r));
              try {
                return StoreWriter.fillAndPublish(
                    staged,
                    id,
                    h.getSize(),
                    h.getCrc32C(),
                    tee.body(),
                    ext,
                    n -> metrics.bytesReceived(fromDc, dc, n));
              } finally {
                tee.afterRun().run();
              }
            })
        .thenCompose(f -> f)
        .handle(
            (ok, err) -> {
              active.decrementAndGet();
              receiving.remove(id);
              if (err != null) {
                String reason = StoreWriter.reason(err);
                LOG.warn("{}: rejected {} from {}: {}", nodeId, id, h.getSenderNode(), reason);
                return ack(false, false, reason);
              }
              LOG.debug("{}: published {} from {} ({} hop)", nodeId, id, h.getSenderNode(), kind);
              try {
                onPublished.published(h, Optional.empty(), reached);
              } catch (RuntimeException e) {
                LOG.warn("{}: after publishing {}", nodeId, id, e);
              }
              return ack(true, false, "");
            });
  }

  /**
   * Rebuilds an admitted delta push from the held base and the change set it carries (see {@link
   * ChangeSetRebuild}); answers need-full, with the reason, when that cannot give the file.
   */
  private CompletionStage<FileAck> storeDelta(
      DeltaPush d, FileHeader h, PartitionFileId id, Source<Object, NotUsed> body) {
    try {
      ChangeSetRebuild.precheck(store, d, id);
    } catch (ChangeSetRebuild.NeedFullException e) {
      active.decrementAndGet();
      drain(h, body);
      return CompletableFuture.completedFuture(needFull(h, e));
    }
    if (!receiving.add(id)) {
      active.decrementAndGet();
      return refuse(h, body, false, "busy: already receiving " + id);
    }
    String fromDc = policy.metricDc(h.getSenderDc());
    return ext.runWith(
            body, Sink.fold(ByteString.emptyByteString(), (acc, o) -> acc.concat((ByteString) o)))
        .thenApplyAsync(
            bytes -> {
              metrics.bytesReceived(fromDc, dc, bytes.size());
              byte[] changes = bytes.toArray();
              try {
                if (changes.length != d.getChangeSetSize()) {
                  throw new ChangeSetRebuild.NeedFullException(
                      "malformed",
                      "truncated change set: received "
                          + changes.length
                          + " of "
                          + d.getChangeSetSize()
                          + " bytes");
                }
                ChangeSetRebuild.rebuild(store, d, id, changes);
              } catch (IOException e) {
                throw new CompletionException(e);
              }
              return DeltaOffer.of(d.getBaseVersion(), changes, d.getContentCrc32C());
            },
            ext.blockingExecutor())
        .handle(
            (offer, err) -> {
              active.decrementAndGet();
              receiving.remove(id);
              if (err != null) {
                Throwable cause = TransferClient.unwrap(err);
                if (cause instanceof ChangeSetRebuild.NeedFullException e) {
                  return needFull(h, e);
                }
                String reason = StoreWriter.reason(err);
                LOG.warn("{}: rejected {} from {}: {}", nodeId, id, h.getSenderNode(), reason);
                return ack(false, false, reason);
              }
              LOG.debug("{}: published {} rebuilt from its change set", nodeId, id);
              try {
                onPublished.published(
                    h, Optional.of(offer), CompletableFuture.completedFuture(Set.of()));
              } catch (RuntimeException e) {
                LOG.warn("{}: after publishing {}", nodeId, id, e);
              }
              return ack(true, false, "");
            });
  }

  private FileAck needFull(FileHeader h, ChangeSetRebuild.NeedFullException e) {
    LOG.info(
        "{}: needs the whole file of {} from {} ({}): {}",
        nodeId,
        describe(h),
        h.getSenderNode(),
        e.fallback,
        e.getMessage());
    return ack(false, false, e.getMessage()).toBuilder()
        .setNeedFull(true)
        .setFallback(e.fallback)
        .setHeldVersion(e.heldVersion)
        .build();
  }

  private static Source<ByteString, NotUsed> notFound(String reason) {
    return Source.single(
        Frames.frame(FetchResponse.newBuilder().setFound(false).setReason(reason).build()));
  }

  /**
   * Answers a catch-up fetch with the published file, held on disk (out of the store's retention)
   * until the stream ends.
   */
  private Source<ByteString, NotUsed> serveFetch(FetchRequest f, NodeIdentity peer) {
    Optional<String> forbidden = policy.refuseFetch(f, peer);
    if (forbidden.isPresent()) {
      LOG.warn("{}: refused a fetch from {}: {}", nodeId, f.getRequesterNode(), forbidden.get());
      return notFound(forbidden.get());
    }
    PartitionFileId id;
    Optional<ReceivingStore.HeldFile> held;
    long size;
    try {
      id = new PartitionFileId(f.getSchemaVersion(), f.getPartition(), f.getVersion());
      held = store.hold(id);
    } catch (IllegalArgumentException e) {
      return notFound("cannot serve: " + e.getMessage());
    }
    if (held.isEmpty()) {
      return notFound(nodeId + " does not hold " + id);
    }
    ReceivingStore.HeldFile file = held.get();
    try {
      size = Files.size(file.path());
    } catch (IOException e) {
      file.close();
      return notFound("cannot serve: " + e.getMessage());
    }
    FileHeader header =
        FileHeader.newBuilder()
            .setSchemaVersion(id.schemaVersion())
            .setPartition(id.partition())
            .setVersion(id.version())
            .setSize(size)
            .setSenderNode(nodeId)
            .setSenderDc(dc)
            .build();
    String toDc = policy.metricDc(f.getRequesterDc());
    LOG.info("{}: serving {} to {} for catch-up", nodeId, id, f.getRequesterNode());
    metrics.copySent("full", dc, toDc);
    return Source.single(
            Frames.frame(FetchResponse.newBuilder().setFound(true).setHeader(header).build()))
        .concat(
            FileIO.fromPath(file.path(), settings.chunkSize())
                .map(
                    b -> {
                      metrics.bytesSent(dc, toDc, b.size());
                      metrics.wireBytes("full", dc, toDc, b.size());
                      return b;
                    }))
        .watchTermination(
            (m, done) -> {
              done.whenComplete((d, e) -> file.close());
              return NotUsed.getInstance();
            });
  }

  /** Unbinds and aborts every transfer in progress (their staged bytes are deleted). */
  @Override
  public void close() {
    Tcp.ServerBinding b = binding;
    if (b != null) {
      b.unbind();
    }
    killSwitch.abort(new IOException("node " + nodeId + " closing"));
  }
}
