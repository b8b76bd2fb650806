package dev.mosaic.transport;

import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.stream.Materializer;

/**
 * The transport as a Pekko extension: one per actor system, holding what every {@link
 * TransportNode} and {@link TransportSender} of that system shares — the stream materializer, the
 * dispatcher for blocking file work (staging, fsync, verification) and the settings read from the
 * system's {@code mosaic.transport} config section.
 *
 * <p>Thread safety: immutable after creation.
 */
public final class PekkoTransport implements Extension {

  /** The extension id; {@code PekkoTransport.get(system)} is the usual way in. */
  public static final ExtensionId<PekkoTransport> ID =
      new ExtensionId<>() {
        @Override
        public PekkoTransport createExtension(ActorSystem<?> system) {
          return new PekkoTransport(system);
        }
      };

  private final ActorSystem<?> system;
  private final Materializer materializer;
  private final Executor blockingExecutor;
  private final TransportSettings settings;

  private PekkoTransport(ActorSystem<?> system) {
    this.system = system;
    this.materializer = Materializer.matFromSystem(system);
    this.blockingExecutor = system.dispatchers().lookup(DispatcherSelector.blocking());
    this.settings = TransportSettings.fromConfig(system.settings().config());
  }

  /** The extension of {@code system}, created on first use. */
  public static PekkoTransport get(ActorSystem<?> system) {
    return system.registerExtension(ID);
  }

  /** The actor system this extension belongs to. */
  public ActorSystem<?> system() {
    return system;
  }

  /** The system's materializer, shared by every transfer stream. */
  public Materializer materializer() {
    return materializer;
  }

  /** Pekko's blocking-IO dispatcher, for staging, fsync and verification. */
  public Executor blockingExecutor() {
    return blockingExecutor;
  }

  /** Settings from the system's config ({@code mosaic.transport}); builders may override them. */
  public TransportSettings settings() {
    return settings;
  }
}
