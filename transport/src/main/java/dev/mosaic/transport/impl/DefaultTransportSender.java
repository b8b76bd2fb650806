package dev.mosaic.transport.impl;

import dev.mosaic.partition.ChangeSetFile;
import dev.mosaic.partition.FileDigest;
import dev.mosaic.partition.ManifestRecord;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.transport.NodeIdentity;
import dev.mosaic.transport.PekkoTransport;
import dev.mosaic.transport.SearcherDiscovery;
import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.TransportSecurity;
import dev.mosaic.transport.TransportSender;
import dev.mosaic.transport.TransportSettings;
import dev.mosaic.transport.ZooKeeperSecurity;
import dev.mosaic.transport.wire.FileHeader;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link TransportSender} implementation. Thread safety: as documented on the interface. */
public final class DefaultTransportSender implements TransportSender {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultTransportSender.class);

  private final String nodeId;
  private final String dc;
  private final CuratorFramework curator;
  private final TransportSettings overrides;
  private final ActorSystem<?> givenSystem;
  private final TransportMetrics metrics;
  private final TransportSecurity givenSecurity;
  private final Lifecycle lifecycle;
  private ActorSystem<?> system;
  private PekkoTransport ext;
  private TransportSettings settings;
  private SearcherDiscovery discovery;
  private PartitionManifest manifest;
  private TransferClient client;
  private ActorRef<DeliveryCoordinator.Command> coordinator;

  public DefaultTransportSender(
      String nodeId,
      String dc,
      CuratorFramework curator,
      TransportSettings settings,
      ActorSystem<?> system,
      MeterRegistry registry,
      TransportSecurity security) {
    this.nodeId = nodeId;
    this.dc = dc;
    this.curator = curator;
    this.overrides = settings;
    this.givenSystem = system;
    this.metrics = new TransportMetrics(registry);
    this.givenSecurity = security;
    this.lifecycle = new Lifecycle("transport sender " + nodeId);
  }

  @Override
  public void start() throws Exception {
    lifecycle.start();
    system =
        givenSystem != null
            ? givenSystem
            : PekkoTransport.newActorSystem("mosaic-sender-" + safe(nodeId));
    ext = PekkoTransport.get(system);
    settings = overrides != null ? overrides : ext.settings();
    NodeIdentity self = NodeIdentity.indexer(nodeId, dc);
    TransportSecurity security =
        givenSecurity != null
            ? givenSecurity
            : TransportSecurity.fromConfig(system.settings().config(), self);
    security.requireIdentity(self);
    logSecurity(nodeId, security);
    ZooKeeperSecurity.warnIfUnauthenticated(curator, nodeId);
    discovery = SearcherDiscovery.watching(curator, settings.zkRoot());
    discovery.start();
    manifest = PartitionManifest.inZooKeeper(curator, settings.zkRoot());
    manifest.start();
    client = new TransferClient(ext, settings, metrics, nodeId, dc, security);
    coordinator =
        system.systemActorOf(
            DeliveryCoordinator.create(settings.maxConcurrentDeliveries(), metrics),
            "mosaic-sender-" + safe(nodeId) + "-" + System.nanoTime(),
            Props.empty());
    LOG.info("transport sender {} in {} started; searchers: {}", nodeId, dc, discovery.byDc());
  }

  static void logSecurity(String nodeId, TransportSecurity security) {
    if (security.encrypted()) {
      LOG.info("{}: transport security: {}", nodeId, security);
    } else {
      LOG.warn(
          "{}: transport security is OFF ({}): any host that reaches the transport port can push"
              + " partition files; set mosaic.transport.tls.enabled = true",
          nodeId,
          security);
    }
  }

  static String safe(String name) {
    return name.replaceAll("[^A-Za-z0-9_-]", "_");
  }

  @Override
  public SearcherDiscovery discovery() {
    lifecycle.checkStarted();
    return discovery;
  }

  @Override
  public PartitionManifest manifest() {
    lifecycle.checkStarted();
    return manifest;
  }

  /**
   * Size and content CRC32C of a file, from its trailer (O(1): receivers check the content against
   * it while the bytes stream in, so a damaged file is refused there, not shipped silently).
   */
  static FileDigest digest(Path file) {
    try {
      return FileDigest.ofTrailer(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
  }

  @Override
  public CompletionStage<DeliveryReport> send(PartitionFileId id, Path file) {
    lifecycle.checkStarted();
    return CompletableFuture.supplyAsync(() -> digestOf(id, file), ext.blockingExecutor())
        .thenCompose(d -> deliver(id, file, d.size(), d.crc32c(), changeSet(id, file, d.size())));
  }

  /**
   * Size and CRC32C of the file: from the manifest's record of exactly this version when the sizes
   * agree (the indexer recorded it while writing the file: no pass over the file here), else read
   * once. A wrong record cannot slip a wrong file in: receivers check the bytes they get.
   */
  private FileDigest digestOf(PartitionFileId id, Path file) {
    try {
      long size = Files.size(file);
      Optional<ManifestRecord> recorded =
          manifest
              .latest(id.schemaVersion(), id.partition())
              .filter(r -> r.id().equals(id) && r.size() == size);
      if (recorded.isPresent()) {
        return new FileDigest(size, recorded.get().crc32c());
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot read " + file, e);
    }
    return digest(file);
  }

  /** The change set kept beside the file, when shipping it instead of the file is worth it. */
  private static Optional<DeltaOffer> changeSet(PartitionFileId id, Path file, long size) {
    try {
      Optional<ChangeSetFile> kept = ChangeSetFile.read(file);
      if (kept.isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(DeltaOffer.of(kept.get(), FileDigest.ofTrailer(file).crc32c()))
          .filter(o -> o.worthIt(id.version(), size));
    } catch (IOException e) {
      LOG.warn("cannot read the change set of {}; sending the file", id, e);
      return Optional.empty();
    }
  }

  /**
   * Delivers a file to every DC. With {@code write-manifest}, the version is recorded in the
   * manifest once its delivery starts (it got one of the {@code max-concurrent-deliveries} slots)
   * and before the first push: receivers accept only recorded versions, and versions still queued
   * behind others are not in the manifest yet, so catch-up does not look for them anywhere.
   */
  private CompletionStage<DeliveryReport> deliver(
      PartitionFileId id, Path file, long size, long crc, Optional<DeltaOffer> delta) {
    FileHeader header =
        FileHeader.newBuilder()
            .setSchemaVersion(id.schemaVersion())
            .setPartition(id.partition())
            .setVersion(id.version())
            .setSize(size)
            .setCrc32C(crc)
            .setOrigin(nodeId)
            .setHopCount(0)
            .build();
    // set when the delivery's outcome is in: the delayed acceptance mark is then not needed
    AtomicBoolean done = new AtomicBoolean();
    Supplier<CompletionStage<Void>> recorded =
        settings.writeManifest()
            ? once(
                () ->
                    record(
                        ManifestRecord.built(id, size, crc, 0, -1, System.currentTimeMillis(), 0),
                        1))
            : () -> CompletableFuture.completedFuture(null);
    ChangeSetChain chain =
        delta.map(d -> new ChangeSetChain(file, id.version(), size, d)).orElse(null);
    Set<String> dcs = new TreeSet<>(discovery.byDc().keySet());
    DeliveryPlan plan =
        new DeliveryPlan(
            id,
            "entry",
            dcs,
            discovery::inDc,
            (SearcherEndpoint target) ->
                recorded
                    .get()
                    .thenCompose(
                        v ->
                            DeltaFirstTransfer.attempt(
                                client,
                                metrics,
                                target,
                                header,
                                delta,
                                chain,
                                ext.blockingExecutor(),
                                file)),
            settings.maxAttemptsPerDc(),
            settings.retryBackoffMin(),
            settings.retryBackoffMax(),
            (group, target) -> {
              // not only when every DC is done: a DC cut off keeps the delivery going until the
              // version is superseded, and a version never marked could not be caught up, nor
              // make the cut-off DC's searchers stale; but not at once either: usually every DC
              // is done soon after, and one write then states acceptance and delivery
              if (settings.writeManifest()) {
                CompletableFuture.delayedExecutor(
                        ACCEPTANCE_MARK_DELAY.toMillis(),
                        TimeUnit.MILLISECONDS,
                        ext.blockingExecutor())
                    .execute(
                        () -> {
                          if (!done.get()) {
                            markAccepted(id, size, crc, Map.of());
                          }
                        });
              }
            },
            () ->
                manifest
                    .latest(id.schemaVersion(), id.partition())
                    .map(r -> r.id().version() > id.version())
                    .orElse(false));
    CompletableFuture<DeliveryPlan.Outcome> outcome = new CompletableFuture<>();
    coordinator.tell(new DeliveryCoordinator.Submit(plan, outcome));
    return outcome.thenCompose(
        o -> {
          done.set(true);
          if (!settings.writeManifest() || o.acceptedBy().isEmpty()) {
            return CompletableFuture.completedFuture(
                new DeliveryReport(id, o.acceptedBy(), o.failed()));
          }
          // acceptance (if the delayed mark did not write it yet) and the datacenters that hold
          // the version, in one write, before the report: its reader finds the note made
          Map<String, Long> delivered = new HashMap<>();
          o.acceptedBy().keySet().forEach(d -> delivered.put(d, id.version()));
          return markAccepted(id, size, crc, delivered)
              .thenApply(v -> new DeliveryReport(id, o.acceptedBy(), o.failed()));
        });
  }

  /**
   * How long after a first datacenter accepted a version the sender marks it accepted when the
   * delivery is not done by then; a delivery done sooner marks it with its outcome, in one write.
   */
  static final Duration ACCEPTANCE_MARK_DELAY = Duration.ofMillis(500);

  /**
   * Marks a recorded version accepted (catch-up looks for accepted versions) and notes the
   * datacenters that hold it. A failed write is logged: the indexer's delivery notes the
   * datacenters again, and the next version is marked anew.
   */
  private CompletableFuture<Void> markAccepted(
      PartitionFileId id, long size, long crc, Map<String, Long> delivered) {
    return CompletableFuture.runAsync(
        () -> {
          try {
            manifest.advance(
                new ManifestRecord(id, size, crc, System.currentTimeMillis(), nodeId + "@" + dc)
                    .withDelivered(delivered));
          } catch (Exception e) {
            LOG.warn("could not mark {} accepted in the manifest", id, e);
          }
        },
        ext.blockingExecutor());
  }

  /** Starts {@code action} on the first call; every call returns its one result. */
  private static <T> Supplier<CompletionStage<T>> once(Supplier<CompletionStage<T>> action) {
    AtomicReference<CompletableFuture<T>> result = new AtomicReference<>();
    return () -> {
      CompletableFuture<T> mine = new CompletableFuture<>();
      if (result.compareAndSet(null, mine)) {
        action
            .get()
            .whenComplete(
                (v, e) -> {
                  if (e != null) {
                    mine.completeExceptionally(e);
                  } else {
                    mine.complete(v);
                  }
                });
      }
      return result.get();
    };
  }

  /**
   * Records {@code rec} in the manifest before any searcher is asked to take it (receivers accept
   * only versions the manifest records). While ZooKeeper is unreachable it retries with backoff for
   * as long as the sender is open.
   */
  private CompletionStage<Void> record(ManifestRecord rec, int attempt) {
    PartitionFileId id = rec.id();
    if (manifest
        .latest(id.schemaVersion(), id.partition())
        .map(r -> r.id().version() >= id.version())
        .orElse(false)) {
      // recorded already (by the indexer, through this manifest), or superseded: nothing to write
      return CompletableFuture.completedFuture(null);
    }
    return CompletableFuture.runAsync(
            () -> {
              try {
                manifest.advance(rec);
              } catch (Exception e) {
                throw new CompletionException(e);
              }
            },
            ext.blockingExecutor())
        .handle(
            (v, e) -> {
              if (e == null) {
                return CompletableFuture.<Void>completedFuture(null);
              }
              if (lifecycle.get() != Lifecycle.State.STARTED) {
                return CompletableFuture.<Void>failedFuture(e);
              }
              long delay =
                  Math.min(
                      settings.retryBackoffMax().toMillis(),
                      settings.retryBackoffMin().toMillis() << Math.min(20, attempt - 1));
              LOG.warn(
                  "could not record {} in the manifest ({}); retrying in {} ms before delivering"
                      + " it",
                  rec.id(),
                  StoreWriter.rootMessage(e),
                  delay);
              Executor later =
                  CompletableFuture.delayedExecutor(
                      delay, TimeUnit.MILLISECONDS, ext.blockingExecutor());
              return CompletableFuture.supplyAsync(() -> null, later)
                  .thenCompose(x -> record(rec, attempt + 1));
            })
        .thenCompose(f -> f);
  }

  @Override
  public void close() {
    if (!lifecycle.close() || system == null) {
      return;
    }
    if (coordinator != null) {
      coordinator.tell(new DeliveryCoordinator.Stop());
    }
    if (client != null) {
      client.close();
    }
    if (discovery != null) {
      discovery.close();
    }
    if (manifest != null) {
      manifest.close();
    }
    if (givenSystem == null) {
      system.terminate();
    }
  }
}
