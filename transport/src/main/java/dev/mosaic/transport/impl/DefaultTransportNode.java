package dev.mosaic.transport.impl;

import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionManifest;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.transport.NodeIdentity;
import dev.mosaic.transport.PekkoTransport;
import dev.mosaic.transport.SearcherDiscovery;
import dev.mosaic.transport.SearcherEndpoint;
import dev.mosaic.transport.TransportHealth;
import dev.mosaic.transport.TransportNode;
import dev.mosaic.transport.TransportSecurity;
import dev.mosaic.transport.TransportSettings;
import dev.mosaic.transport.ZooKeeperSecurity;
import dev.mosaic.transport.wire.FileHeader;
import dev.mosaic.transport.wire.SearcherRecord;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.InetSocketAddress;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.curator.utils.ZKPaths;
import org.apache.pekko.actor.typed.ActorRef;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.Props;
import org.apache.zookeeper.CreateMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The {@link TransportNode} implementation. Thread safety: as documented on the interface. */
public final class DefaultTransportNode implements TransportNode {
  private static final Logger LOG = LoggerFactory.getLogger(DefaultTransportNode.class);

  private final String nodeId;
  private final String dc;
  private final String bindHost;
  private final int bindPort;
  private final String advertisedHost;
  private final int advertisedPort;
  private final String httpAddress;
  private final CuratorFramework curator;
  private final ReceivingStore store;
  private final TransportSettings overrides;
  private final ActorSystem<?> givenSystem;
  private final MeterRegistry registry;
  private final TransportMetrics metrics;
  private final Supplier<Optional<String>> refusal;
  private final TransportSecurity givenSecurity;
  private final Lifecycle lifecycle;
  private final Set<PartitionFileId> receiving = ConcurrentHashMap.newKeySet();
  private final ConnectionStateListener reconnect =
      (c, s) -> {
        if (s == ConnectionState.RECONNECTED) {
          LOG.info("{}: ZooKeeper reconnected; checking the manifest", nodeId());
          catchUpNow();
        }
      };
  private ActorSystem<?> system;
  private TransportSettings settings;
  private NodeHealth health;
  private SearcherDiscovery discovery;
  private PartitionManifest manifest;
  private TransferClient client;
  private TransferServer server;
  private PersistentNode registration;

  /** Longest wait for ZooKeeper to confirm the deregistration on close. */
  private static final java.time.Duration DEREGISTER_TIMEOUT = java.time.Duration.ofSeconds(2);

  private SearcherEndpoint endpoint;
  private ActorRef<DeliveryCoordinator.Command> relays;
  private ActorRef<CatchUpActor.Command> catchUp;

  public DefaultTransportNode(
      String nodeId,
      String dc,
      String bindHost,
      int bindPort,
      String advertisedHost,
      int advertisedPort,
      String httpAddress,
      CuratorFramework curator,
      ReceivingStore store,
      TransportSettings settings,
      ActorSystem<?> system,
      MeterRegistry registry,
      Supplier<Optional<String>> refusal,
      TransportSecurity security) {
    this.nodeId = nodeId;
    this.dc = dc;
    this.bindHost = bindHost;
    this.bindPort = bindPort;
    this.advertisedHost = advertisedHost;
    this.advertisedPort = advertisedPort;
    this.httpAddress = httpAddress;
    this.curator = curator;
    this.store = store;
    this.overrides = settings;
    this.givenSystem = system;
    this.registry = registry;
    this.metrics = new TransportMetrics(registry);
    this.refusal = refusal;
    this.givenSecurity = security;
    this.lifecycle = new Lifecycle("transport node " + nodeId);
  }

  private String nodeId() {
    return nodeId;
  }

  @Override
  public void start() throws Exception {
    lifecycle.start();
    system =
        givenSystem != null
            ? givenSystem
            : PekkoTransport.newActorSystem("mosaic-node-" + DefaultTransportSender.safe(nodeId));
    PekkoTransport ext = PekkoTransport.get(system);
    settings = overrides != null ? overrides : ext.settings();
    NodeIdentity self = NodeIdentity.searcher(nodeId, dc);
    TransportSecurity security =
        givenSecurity != null
            ? givenSecurity
            : TransportSecurity.fromConfig(system.settings().config(), self);
    security.requireIdentity(self);
    DefaultTransportSender.logSecurity(nodeId, security);
    ZooKeeperSecurity.warnIfUnauthenticated(curator, nodeId);
    health = new NodeHealth(settings.staleAfter());
    Gauge.builder("mosaic.transport.partitions.behind", health, h -> h.partitionsBehind())
        .description("partitions whose held version is older than the manifest's")
        .tag("node", nodeId)
        .register(registry);
    Gauge.builder("mosaic.transport.stale", health, h -> h.stale() ? 1 : 0)
        .description("1 when behind the manifest for longer than stale-after")
        .tag("node", nodeId)
        .register(registry);
    discovery = SearcherDiscovery.watching(curator, settings.zkRoot());
    discovery.start();
    manifest = PartitionManifest.inZooKeeper(curator, settings.zkRoot());
    ManifestGate gate = new ManifestGate(manifest, settings.manifestWait());
    manifest.addListener(gate::manifestChanged);
    manifest.start();
    client = new TransferClient(ext, settings, metrics, nodeId, dc, security);
    String unique = DefaultTransportSender.safe(nodeId) + "-" + System.nanoTime();
    relays =
        system.systemActorOf(
            DeliveryCoordinator.create(settings.relayParallelism(), metrics),
            "mosaic-relay-" + unique,
            Props.empty());
    server =
        new TransferServer(
            ext,
            settings,
            metrics,
            nodeId,
            dc,
            store,
            refusal,
            receiving,
            this::published,
            new CutThroughRelay(client, this::peers, metrics, ext),
            security,
            new PeerPolicy(nodeId, dc, discovery, security.encrypted()),
            gate);
    InetSocketAddress bound =
        server.bind(bindHost, bindPort).toCompletableFuture().get(10, TimeUnit.SECONDS);
    endpoint =
        new SearcherEndpoint(
            nodeId,
            dc,
            advertisedHost != null ? advertisedHost : bindHost,
            advertisedPort >= 0 ? advertisedPort : bound.getPort(),
            httpAddress);
    catchUp =
        system.systemActorOf(
            CatchUpActor.create(
                new CatchUpActor.Context(
                    nodeId, dc, store, manifest, discovery, client, settings, receiving, health,
                    metrics)),
            "mosaic-catch-up-" + unique,
            Props.empty());
    manifest.addListener(this::catchUpNow);
    curator.getConnectionStateListenable().addListener(reconnect);
    registration =
        new PersistentNode(
            curator,
            CreateMode.EPHEMERAL,
            false,
            ZKPaths.makePath(settings.zkRoot(), "searchers", dc, nodeId),
            SearcherRecord.newBuilder()
                .setNodeId(nodeId)
                .setDc(dc)
                .setTransportHost(endpoint.transportHost())
                .setTransportPort(endpoint.transportPort())
                .setHttpAddress(httpAddress)
                .build()
                .toByteArray());
    registration.start();
    if (!registration.waitForInitialCreate(5, TimeUnit.SECONDS)) {
      LOG.warn(
          "{}: not yet registered in ZooKeeper after 5 s; will register when it is back", nodeId);
    }
    LOG.info(
        "transport node {} listening on {} ({}), registered as {}",
        nodeId,
        bound,
        security.encrypted() ? "mutual TLS" : "PLAINTEXT",
        endpoint);
  }

  /** After a push was published: relay files that came from outside the DC, refresh catch-up. */
  private void published(
      FileHeader h, Optional<DeltaOffer> delta, CompletionStage<Set<String>> reached) {
    if (h.getHopCount() == 0) {
      reached.whenComplete(
          (done, e) -> {
            try {
              relay(h, delta, done == null ? Set.of() : done);
            } catch (RuntimeException ex) {
              LOG.warn("{}: could not relay v{}/{}", nodeId, h.getPartition(), h.getVersion(), ex);
            }
          });
    }
    catchUpNow();
  }

  /** The other live searchers of this node's datacenter. */
  private List<SearcherEndpoint> peers() {
    return discovery.inDc(dc).stream().filter(e -> !e.nodeId().equals(nodeId)).toList();
  }

  /**
   * Relays a published file to the other searchers of this DC, but those that {@code reached} (they
   * got it while it arrived here). The file is held on disk until the relay ends; once this node
   * holds a newer version of the partition, the relay stops trying. A version that came as a change
   * set is relayed as the same change set (each peer rebuilds it; a peer lacking the base gets the
   * file).
   */
  private void relay(FileHeader h, Optional<DeltaOffer> delta, Set<String> reached) {
    if (lifecycle.get() != Lifecycle.State.STARTED) {
      return;
    }
    PartitionFileId id =
        new PartitionFileId(h.getSchemaVersion(), h.getPartition(), h.getVersion());
    Optional<ReceivingStore.HeldFile> held = store.hold(id);
    if (held.isEmpty()) {
      LOG.debug("{}: {} is no longer in the store (superseded); not relaying it", nodeId, id);
      return;
    }
    ReceivingStore.HeldFile file = held.get();
    Set<String> peers = new LinkedHashSet<>();
    for (SearcherEndpoint e : peers()) {
      if (!reached.contains(e.nodeId())) {
        peers.add(e.nodeId());
      }
    }
    if (peers.isEmpty()) {
      file.close();
      return;
    }
    FileHeader relayed = h.toBuilder().setHopCount(1).build();
    CompletableFuture<DeliveryPlan.Outcome> outcome = new CompletableFuture<>();
    relays.tell(
        new DeliveryCoordinator.Submit(
            new DeliveryPlan(
                id,
                "relay",
                peers,
                peer -> discovery.inDc(dc).stream().filter(e -> e.nodeId().equals(peer)).toList(),
                target ->
                    DeltaFirstTransfer.attempt(
                        client, metrics, target, relayed, delta, file.path()),
                settings.relayAttempts(),
                settings.retryBackoffMin(),
                settings.retryBackoffMax(),
                (g, t) -> {},
                () -> superseded(id)),
            outcome));
    outcome.whenComplete(
        (o, e) -> {
          file.close();
          if (e != null) {
            LOG.debug("{}: relay of {} stopped: {}", nodeId, id, e.toString());
          } else if (!o.failed().isEmpty()) {
            LOG.warn(
                "{}: relay of {} did not reach {} (catch-up will): {}",
                nodeId,
                id,
                o.failed().keySet(),
                o.failed());
          }
        });
  }

  /** Whether this node holds a newer version of the partition than {@code id}. */
  private boolean superseded(PartitionFileId id) {
    return store.latestVersion(id.schemaVersion(), id.partition()).orElse(Long.MIN_VALUE)
        > id.version();
  }

  @Override
  public SearcherEndpoint endpoint() {
    lifecycle.checkStarted();
    return endpoint;
  }

  @Override
  public TransportHealth health() {
    lifecycle.checkStarted();
    return health;
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

  @Override
  public void catchUpNow() {
    ActorRef<CatchUpActor.Command> c = catchUp;
    if (c != null && lifecycle.get() == Lifecycle.State.STARTED) {
      c.tell(new CatchUpActor.Tick());
    }
  }

  /**
   * Deletes the registration, waiting at most {@link #DEREGISTER_TIMEOUT}: with ZooKeeper
   * unreachable, Curator retries the delete for as long as the client's retry policy allows (over
   * 50 s with the launcher's), and shutdown must not wait for that. The ephemeral node then goes
   * with the session; the delete keeps trying until the Curator client is closed.
   */
  private void deregister() {
    Thread t =
        Thread.ofPlatform()
            .daemon()
            .name("mosaic-deregister-" + nodeId)
            .start(
                () -> {
                  try {
                    registration.close();
                  } catch (Exception e) {
                    LOG.warn("{}: could not deregister: {}", nodeId, e.toString());
                  }
                });
    try {
      if (!t.join(DEREGISTER_TIMEOUT)) {
        LOG.warn(
            "{}: ZooKeeper did not confirm the deregistration within {} s; closing anyway (the"
                + " registration ends with the session)",
            nodeId,
            DEREGISTER_TIMEOUT.toSeconds());
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Override
  public void close() {
    if (!lifecycle.close() || system == null) {
      return;
    }
    LOG.info("transport node {} closing", nodeId);
    curator.getConnectionStateListenable().removeListener(reconnect);
    if (registration != null) {
      deregister();
    }
    if (catchUp != null) {
      ActorSystemStop.stop(system, catchUp);
    }
    if (relays != null) {
      relays.tell(new DeliveryCoordinator.Stop());
    }
    if (server != null) {
      server.close();
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
    for (String name : List.of("mosaic.transport.partitions.behind", "mosaic.transport.stale")) {
      var g = registry.find(name).tag("node", nodeId).gauge();
      if (g != null) {
        registry.remove(g);
      }
    }
    if (givenSystem == null) {
      system.terminate();
    }
  }
}
