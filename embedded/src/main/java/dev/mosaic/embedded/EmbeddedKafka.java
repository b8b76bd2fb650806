package dev.mosaic.embedded;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Stream;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import kafka.tools.StorageTool;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Apache Kafka broker in KRaft combined mode (broker and controller in one node) running in
 * this JVM on 127.0.0.1, for tests and the local cluster. Only Kafka's public entry points are
 * used: the storage tool formats the log directory, {@code KafkaRaftServer} runs the node, and the
 * Admin client decides readiness.
 *
 * <pre>{@code
 * try (EmbeddedKafka kafka = EmbeddedKafka.builder().build().start()) {
 *   kafka.createTopic("offers", 8, Map.of("cleanup.policy", "compact"));
 *   producerProps.put("bootstrap.servers", kafka.bootstrapServers());
 * }
 * }</pre>
 *
 * <p>Lifecycle: LATENT → STARTED → CLOSED; {@link #start()} and {@link #close()} move it by CAS, so
 * starting twice or after close fails with a clear message, and closing twice is a no-op.
 *
 * <p>Thread safety: safe for concurrent use. NOTE: one broker means replication factor 1; topics
 * are lost on close unless the builder was given a {@link Builder#logDir(Path) log directory}.
 */
public final class EmbeddedKafka implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafka.class);
  private static final String HOST = "127.0.0.1";

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final Map<String, String> overrides;
  private final Path givenLogDir;
  private final int requestedPort;
  private final Duration startupTimeout;
  private volatile Path workDir;
  private volatile boolean deleteWorkDir;
  private volatile KafkaRaftServer server;
  private volatile String bootstrapServers;

  private EmbeddedKafka(Builder builder) {
    this.overrides = Map.copyOf(builder.overrides);
    this.givenLogDir = builder.logDir;
    this.requestedPort = builder.port;
    this.startupTimeout = builder.startupTimeout;
  }

  /**
   * A builder with defaults: ephemeral ports, a temporary log directory deleted on close, a 60 s
   * startup timeout.
   */
  public static Builder builder() {
    return new Builder();
  }

  /**
   * Formats the log directory (unless already formatted), starts the node and waits until the Admin
   * client's {@code describeCluster} answers.
   *
   * @return this
   * @throws IllegalStateException if already started or closed
   * @throws IOException if the node does not start or get ready within the startup timeout
   */
  public EmbeddedKafka start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("EmbeddedKafka cannot start: it is " + state.get());
    }
    long began = System.nanoTime();
    try {
      if (givenLogDir != null) {
        workDir = givenLogDir;
        deleteWorkDir = false;
      } else {
        workDir = Files.createTempDirectory("mosaic-kafka-");
        deleteWorkDir = true;
      }
      Path logDir = workDir.resolve("log");
      Files.createDirectories(logDir);
      int[] ports = ports(workDir);
      int brokerPort = ports[0];
      int controllerPort = ports[1];
      Properties props = serverProperties(logDir, brokerPort, controllerPort);
      if (!Files.exists(logDir.resolve("meta.properties"))) {
        format(props);
      }
      KafkaRaftServer node = new KafkaRaftServer(KafkaConfig.fromProps(props, false), Time.SYSTEM);
      server = node;
      node.startup();
      bootstrapServers = HOST + ":" + brokerPort;
      awaitReady(began);
      LOG.info(
          "Kafka (KRaft) ready at {} in {} ms, log dir {}",
          bootstrapServers,
          TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began),
          logDir);
      return this;
    } catch (IOException | RuntimeException e) {
      closeQuietly(e);
      throw e instanceof IOException io ? io : new IOException("Kafka did not start", e);
    }
  }

  /**
   * The bootstrap servers, {@code 127.0.0.1:<port>}.
   *
   * @throws IllegalStateException unless started
   */
  public String bootstrapServers() {
    checkStarted();
    return bootstrapServers;
  }

  /** Client properties with {@code bootstrap.servers} set, to add to. */
  public Properties clientProperties() {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    return p;
  }

  /** A new Admin client on this broker; the caller closes it. */
  public Admin admin() {
    return Admin.create(clientProperties());
  }

  /**
   * Creates a topic (replication factor 1) and waits until the broker confirms it. Creating a topic
   * that already exists is a no-op, whatever its configuration.
   *
   * @param configs topic configs, e.g. {@code cleanup.policy=compact}
   */
  public void createTopic(String name, int partitions, Map<String, String> configs) {
    NewTopic topic = new NewTopic(name, partitions, (short) 1).configs(configs);
    try (Admin admin = admin()) {
      try {
        admin.createTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
      } catch (ExecutionException e) {
        if (!(e.getCause() instanceof TopicExistsException)) {
          throw new IllegalStateException("could not create topic '" + name + "'", e.getCause());
        }
      }
      awaitLeaders(admin, name);
    } catch (ExecutionException e) {
      throw new IllegalStateException("could not describe topic '" + name + "'", e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted creating topic '" + name + "'", e);
    } catch (TimeoutException e) {
      throw new IllegalStateException("topic '" + name + "' not created within 30 s", e);
    }
  }

  /**
   * Waits until every partition of a new topic has a leader: producing to a partition the broker
   * has not taken the lead of yet can wedge an idempotent producer.
   */
  private static void awaitLeaders(Admin admin, String name)
      throws ExecutionException, InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    while (true) {
      if (hasLeaders(admin, name)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("partitions of '" + name + "' have no leader after 30 s");
      }
      Thread.sleep(50); // polling interval of a bounded wait, not synchronization
    }
  }

  /**
   * Whether every partition of the topic has a leader; false while the broker's metadata does not
   * know the topic yet (it may lag the create's answer).
   */
  private static boolean hasLeaders(Admin admin, String name)
      throws ExecutionException, InterruptedException, TimeoutException {
    TopicDescription d;
    try {
      d = admin.describeTopics(List.of(name)).allTopicNames().get(10, TimeUnit.SECONDS).get(name);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof UnknownTopicOrPartitionException) {
        return false;
      }
      throw e;
    }
    return d.partitions().stream().allMatch(p -> p.leader() != null && !p.leader().isEmpty());
  }

  /** Creates a topic with the broker's default configuration. */
  public void createTopic(String name, int partitions) {
    createTopic(name, partitions, Map.of());
  }

  /** Creates a log-compacted topic ({@code cleanup.policy=compact}). */
  public void createCompactedTopic(String name, int partitions) {
    createTopic(
        name,
        partitions,
        Map.of(TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT));
  }

  /**
   * Shuts the node down and deletes its temporary directory (not a caller-given log directory);
   * idempotent.
   */
  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) == State.STARTED) {
      closeQuietly(null);
      LOG.info("Kafka stopped");
    }
  }

  private void closeQuietly(Exception cause) {
    state.set(State.CLOSED);
    KafkaRaftServer node = server;
    server = null;
    if (node != null) {
      try {
        node.shutdown();
        node.awaitShutdown();
      } catch (RuntimeException e) {
        if (cause != null) {
          cause.addSuppressed(e);
        } else {
          LOG.warn("Kafka shutdown failed", e);
        }
      }
    }
    if (deleteWorkDir && workDir != null) {
      try {
        deleteRecursively(workDir);
      } catch (UncheckedIOException | IOException e) {
        LOG.warn("could not delete Kafka directory {}", workDir, e);
      }
    }
  }

  private void checkStarted() {
    if (state.get() != State.STARTED) {
      throw new IllegalStateException("EmbeddedKafka is " + state.get() + ", not STARTED");
    }
  }

  private Properties serverProperties(Path logDir, int brokerPort, int controllerPort) {
    Map<String, String> p = new LinkedHashMap<>();
    p.put("process.roles", "broker,controller");
    p.put("node.id", "1");
    p.put("controller.quorum.bootstrap.servers", HOST + ":" + controllerPort);
    p.put(
        "listeners",
        "PLAINTEXT://" + HOST + ":" + brokerPort + ",CONTROLLER://" + HOST + ":" + controllerPort);
    p.put("advertised.listeners", "PLAINTEXT://" + HOST + ":" + brokerPort);
    p.put("controller.listener.names", "CONTROLLER");
    p.put("inter.broker.listener.name", "PLAINTEXT");
    p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    p.put("log.dirs", logDir.toAbsolutePath().toString());
    p.put("offsets.topic.replication.factor", "1");
    p.put("offsets.topic.num.partitions", "4");
    p.put("transaction.state.log.replication.factor", "1");
    p.put("transaction.state.log.min.isr", "1");
    p.put("transaction.state.log.num.partitions", "4");
    p.put("share.coordinator.state.topic.replication.factor", "1");
    p.put("share.coordinator.state.topic.min.isr", "1");
    p.put("group.initial.rebalance.delay.ms", "0");
    p.put("num.partitions", "1");
    p.put("log.cleaner.backoff.ms", "1000");
    p.putAll(overrides);
    Properties props = new Properties();
    props.putAll(p);
    return props;
  }

  private static void format(Properties props) throws IOException {
    Path config = Files.createTempFile("mosaic-kafka-", ".properties");
    try {
      try (OutputStream out = Files.newOutputStream(config)) {
        props.store(out, "Mosaic embedded Kafka");
      }
      ByteArrayOutputStream captured = new ByteArrayOutputStream();
      int rc;
      try (PrintStream ps = new PrintStream(captured, true, StandardCharsets.UTF_8)) {
        rc =
            StorageTool.execute(
                new String[] {
                  "format",
                  "--cluster-id",
                  Uuid.randomUuid().toString(),
                  "--config",
                  config.toString(),
                  "--standalone",
                  "--ignore-formatted"
                },
                ps);
      }
      String output = captured.toString(StandardCharsets.UTF_8).strip();
      if (rc != 0) {
        throw new IOException("formatting the Kafka log directory failed (" + rc + "): " + output);
      }
      LOG.debug("storage tool: {}", output);
    } finally {
      Files.deleteIfExists(config);
    }
  }

  private void awaitReady(long beganNanos) throws IOException {
    long deadline = beganNanos + startupTimeout.toNanos();
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
    p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "5000");
    Exception last = null;
    try (Admin admin = Admin.create(p)) {
      while (System.nanoTime() < deadline) {
        try {
          if (!admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).isEmpty()) {
            return;
          }
        } catch (ExecutionException | TimeoutException e) {
          last = e;
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new IOException("interrupted while waiting for Kafka", e);
        }
      }
    }
    throw new IOException(
        "Kafka at " + bootstrapServers + " not ready within " + startupTimeout, last);
  }

  /**
   * The broker and controller ports: the ones recorded in a kept directory (the controller's
   * address is part of the formatted quorum, so it must not change across restarts), else fresh.
   */
  private int[] ports(Path dir) throws IOException {
    Path file = dir.resolve("ports.properties");
    Properties recorded = new Properties();
    if (Files.exists(file)) {
      try (var in = Files.newInputStream(file)) {
        recorded.load(in);
      }
      int broker = Integer.parseInt(recorded.getProperty("broker"));
      int controller = Integer.parseInt(recorded.getProperty("controller"));
      if (requestedPort > 0 && requestedPort != broker) {
        throw new IOException(
            "log directory "
                + dir
                + " was formatted for broker port "
                + broker
                + ", not "
                + requestedPort);
      }
      return new int[] {broker, controller};
    }
    int broker = requestedPort > 0 ? requestedPort : freePort();
    int controller = freePort();
    while (controller == broker) {
      controller = freePort();
    }
    recorded.setProperty("broker", Integer.toString(broker));
    recorded.setProperty("controller", Integer.toString(controller));
    try (OutputStream out = Files.newOutputStream(file)) {
      recorded.store(out, "ports of this embedded Kafka node");
    }
    return new int[] {broker, controller};
  }

  private static int freePort() throws IOException {
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(HOST))) {
      socket.setReuseAddress(true);
      return socket.getLocalPort();
    }
  }

  private static void deleteRecursively(Path root) throws IOException {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }

  /** Configures an {@link EmbeddedKafka}. Not thread safe. */
  public static final class Builder {
    private final Map<String, String> overrides = new LinkedHashMap<>();
    private Path logDir;
    private int port;
    private Duration startupTimeout = Duration.ofSeconds(60);

    private Builder() {}

    /** A fixed client (PLAINTEXT) port; 0 (the default) picks a free one. */
    public Builder port(int port) {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("port must be in [0, 65535], got " + port);
      }
      this.port = port;
      return this;
    }

    /**
     * A directory kept after close, so topics survive a restart of the local cluster; by default a
     * temporary directory deleted on close.
     */
    public Builder logDir(Path logDir) {
      this.logDir = logDir;
      return this;
    }

    /** Overrides or adds one broker property (e.g. {@code log.cleaner.min.compaction.lag.ms}). */
    public Builder brokerProperty(String key, String value) {
      overrides.put(key, value);
      return this;
    }

    /** How long {@link EmbeddedKafka#start()} waits for the broker (default 60 s). */
    public Builder startupTimeout(Duration timeout) {
      if (timeout.isNegative() || timeout.isZero()) {
        throw new IllegalArgumentException("startup timeout must be positive, got " + timeout);
      }
      this.startupTimeout = timeout;
      return this;
    }

    /** A LATENT broker; call {@link EmbeddedKafka#start()}. */
    public EmbeddedKafka build() {
      return new EmbeddedKafka(this);
    }
  }
}
