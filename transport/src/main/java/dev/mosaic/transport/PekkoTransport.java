package dev.mosaic.transport;

import com.typesafe.config.Config;
import com.typesafe.config.ConfigFactory;
import java.util.concurrent.Executor;
import org.apache.pekko.actor.typed.ActorSystem;
import org.apache.pekko.actor.typed.DispatcherSelector;
import org.apache.pekko.actor.typed.Extension;
import org.apache.pekko.actor.typed.ExtensionId;
import org.apache.pekko.actor.typed.javadsl.Behaviors;
import org.apache.pekko.stream.ActorAttributes;
import org.apache.pekko.stream.Attributes;
import org.apache.pekko.stream.Materializer;
import org.apache.pekko.stream.javadsl.Keep;
import org.apache.pekko.stream.javadsl.RunnableGraph;
import org.apache.pekko.stream.javadsl.Sink;
import org.apache.pekko.stream.javadsl.Source;

/**
 * The transport as a Pekko extension: one per actor system, holding what every {@link
 * TransportNode} and {@link TransportSender} of that system shares — where transfer streams run,
 * the dispatcher for blocking file work (staging, fsync, verification) and the settings read from
 * the system's {@code mosaic.transport} config section.
 *
 * <p>Transfer streams run on their own dispatcher, {@value #STREAM_DISPATCHER} (see {@link
 * #run(RunnableGraph)}): a file crosses several stages that are actors of their own (the TLS stage,
 * the TCP connection, the framing), and with Pekko's default of five messages per turn a chunk is
 * handed from thread to thread several times on its way, each hand-over a thread wake-up. The
 * transport's dispatcher lets an actor work through many chunks per turn. The TCP connections'
 * actors run on Pekko's internal dispatcher, which an actor system takes from its own config: build
 * systems that carry transport connections from {@link #systemConfig(Config)}.
 *
 * <p>Thread safety: immutable after creation.
 */
public final class PekkoTransport implements Extension {
  /** The config path of the dispatcher transfer streams run on (defined in reference.conf). */
  public static final String STREAM_DISPATCHER = "mosaic.transport.stream-dispatcher";

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
  private final Attributes streamAttributes;

  private PekkoTransport(ActorSystem<?> system) {
    this.system = system;
    this.materializer = Materializer.matFromSystem(system);
    this.blockingExecutor = system.dispatchers().lookup(DispatcherSelector.blocking());
    this.settings = TransportSettings.fromConfig(system.settings().config());
    this.streamAttributes = ActorAttributes.dispatcher(STREAM_DISPATCHER);
  }

  /**
   * {@code config} with what an actor system that carries transport connections should run with:
   * the TCP connections' actors (on Pekko's internal dispatcher) work through many messages per
   * turn, as the transfer streams do on {@value #STREAM_DISPATCHER} (fewer thread wake-ups per
   * byte; see {@code bench/README.md} for the measured effect).
   */
  public static Config systemConfig(Config config) {
    return ConfigFactory.parseString("pekko.actor.internal-dispatcher.throughput = 256")
        .withFallback(config);
  }

  /**
   * A new actor system for transport connections, from the default config ({@code
   * ConfigFactory.load()}) with {@link #systemConfig(Config)}.
   */
  public static ActorSystem<Void> newActorSystem(String name) {
    return ActorSystem.create(Behaviors.empty(), name, systemConfig(ConfigFactory.load()));
  }

  /** The extension of {@code system}, created on first use. */
  public static PekkoTransport get(ActorSystem<?> system) {
    return system.registerExtension(ID);
  }

  /** The actor system this extension belongs to. */
  public ActorSystem<?> system() {
    return system;
  }

  /** Runs {@code graph} on the transport's stream dispatcher. */
  public <M> M run(RunnableGraph<M> graph) {
    return graph.addAttributes(streamAttributes).run(materializer);
  }

  /** Runs {@code source} into {@code sink} on the transport's stream dispatcher. */
  public <T, M> M runWith(Source<T, ?> source, Sink<T, M> sink) {
    return run(source.toMat(sink, Keep.right()));
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
