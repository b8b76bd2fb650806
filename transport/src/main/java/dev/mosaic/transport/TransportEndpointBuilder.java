package dev.mosaic.transport;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;
import org.apache.pekko.actor.typed.ActorSystem;

/**
 * The settings every end of the transport shares, sending or receiving: who it is, where it runs,
 * how it finds the others, what it runs on and how its connections are secured. {@link
 * TransportNode.Builder} and {@link TransportSender.Builder} extend it.
 *
 * <p>Thread safety: not thread safe, like every builder.
 *
 * @param <B> the concrete builder, returned by every setter for chaining
 */
public abstract class TransportEndpointBuilder<B extends TransportEndpointBuilder<B>> {
  String nodeId;
  String dc;
  CuratorFramework curator;
  TransportSettings settings;
  ActorSystem<?> system;
  MeterRegistry registry;
  TransportSecurity security;

  TransportEndpointBuilder() {}

  abstract B self();

  /**
   * How connections are secured. Default: {@link TransportSecurity#fromConfig} of the actor
   * system's config for this node id — mutual TLS with the configured keystores, or with the JVM's
   * development CA when none are configured.
   */
  public B security(TransportSecurity security) {
    this.security = Objects.requireNonNull(security, "security");
    return self();
  }

  /**
   * Unique name (no '/'), e.g. {@code searcher-a1} or {@code indexer-1}: in logs, headers,
   * discovery and the manifest.
   */
  public B nodeId(String nodeId) {
    this.nodeId = nodeId;
    return self();
  }

  /** The datacenter this end runs in (no '/'); also labels the per-link byte counters. */
  public B dc(String dc) {
    this.dc = dc;
    return self();
  }

  /**
   * A started Curator client; not closed by the transport. NOTE: use one client per node, so a
   * node's session (and its ephemeral registration) ends with it alone.
   */
  public B curator(CuratorFramework curator) {
    this.curator = curator;
    return self();
  }

  /** Overrides the settings of the actor system's {@code mosaic.transport} config. */
  public B settings(TransportSettings settings) {
    this.settings = settings;
    return self();
  }

  /** Runs on this actor system (not closed by the transport); by default it makes one. */
  public B actorSystem(ActorSystem<?> system) {
    this.system = system;
    return self();
  }

  /** Where the meters go; a {@link SimpleMeterRegistry} by default. */
  public B meterRegistry(MeterRegistry registry) {
    this.registry = registry;
    return self();
  }

  /** Checks the settings both ends need. */
  void requireCommon() {
    Objects.requireNonNull(nodeId, "nodeId is required");
    Objects.requireNonNull(dc, "dc is required");
    Objects.requireNonNull(curator, "curator is required");
  }

  MeterRegistry registryOrDefault() {
    return registry == null ? new SimpleMeterRegistry() : registry;
  }
}
