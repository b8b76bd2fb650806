package dev.mosaic.indexer;

import dev.mosaic.api.feed.FeedSnapshot;
import dev.mosaic.api.feedfile.MalformedRecord;
import dev.mosaic.api.feedfile.MalformedSnapshotFileException;
import dev.mosaic.api.feedfile.SnapshotFile;
import dev.mosaic.api.feedfile.SnapshotFileFormat;
import dev.mosaic.api.feedfile.SnapshotFileReader;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.FileTime;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Loads partner snapshot files dropped into a directory: each ready file ({@link ReadySignal}) is
 * read ({@link SnapshotFileReader}: JSON lines or delimited Protobuf), its snapshot handed to the
 * {@link SnapshotSink} (a batch of the feed loader: one batch per scan), its malformed records to
 * the {@link DeadLetterSink} with the reason (file and line or record number), and the file moved
 * to {@code done/}. A file that cannot be read as a whole, or whose snapshot the sink refuses as
 * invalid, is moved to {@code failed/} with a {@code <name>.reason} text file beside it; nothing of
 * it is published. When the sink fails with an {@link IOException} (Kafka unreachable) the file
 * stays where it is and is tried again after {@code retryDelay} (its malformed records are then
 * reported again: at least once).
 *
 * <p>Files are taken oldest first (modification time, then name): read all at once, then published
 * {@link Config#publishThreads()} partners at a time ({@link PartnerLanes}), a partner's files one
 * at a time, so the snapshots of one partner are published in the order they were dropped: a file
 * left for a retry holds back the newer files of its partner (a file that cannot be read holds back
 * none, its partner being unknown). The files of one scan form one batch ({@link SnapshotSink}),
 * ended after the scan's last file. Names starting with {@code '.'} and names without a {@code
 * .jsonl} or {@code .pb} extension are never taken.
 *
 * <p>Thread safety: {@link #start()} runs one watcher thread; {@link #scanOnce()} may be called
 * instead of starting it (a tool, a test); both are serialized, and publish on the lanes' threads.
 * The counters are safe to read from any thread. Lifecycle: {@link #close()} stops the threads,
 * also of a watcher that was never started.
 */
public final class FeedDirectoryWatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(FeedDirectoryWatcher.class);

  /** Suffix of the marker file of {@link ReadySignal#MARKER}. */
  public static final String READY_SUFFIX = ".ready";

  /** Sub-directory of the files loaded. */
  public static final String DONE = "done";

  /** Sub-directory of the files refused. */
  public static final String FAILED = "failed";

  /** When a file in the directory is complete, so safe to take. */
  public enum ReadySignal {
    /**
     * A file is complete once it has its final name: writers write under a name starting with
     * {@code '.'} or without a {@code .jsonl}/{@code .pb} extension (e.g. {@code .feed.jsonl.tmp}
     * or {@code feed.jsonl.part}) in the same directory, then rename it atomically.
     */
    RENAME,
    /**
     * A file {@code X} is complete once {@code X.ready} exists beside it (for writers that cannot
     * rename, such as some uploads); the marker is deleted when {@code X} is taken.
     */
    MARKER
  }

  /**
   * Settings of a watcher.
   *
   * @param directory the watched directory (created if missing, with {@code done/} and {@code
   *     failed/} in it)
   * @param readySignal how a file says it is complete
   * @param pollInterval the longest wait between two scans (file system events wake it earlier)
   * @param retryDelay how long a file the sink failed on waits before it is tried again
   * @param publishThreads how many partners' files are read and published at once (a partner's own
   *     files one at a time, oldest first)
   */
  public record Config(
      Path directory,
      ReadySignal readySignal,
      Duration pollInterval,
      Duration retryDelay,
      int publishThreads) {
    public Config {
      Objects.requireNonNull(directory, "directory");
      Objects.requireNonNull(readySignal, "readySignal");
      if (publishThreads < 1) {
        throw new IllegalArgumentException("publishThreads must be >= 1, got " + publishThreads);
      }
      if (pollInterval.isNegative() || pollInterval.isZero()) {
        throw new IllegalArgumentException("pollInterval must be > 0, got " + pollInterval);
      }
      if (retryDelay.isNegative()) {
        throw new IllegalArgumentException("retryDelay must be >= 0, got " + retryDelay);
      }
    }

    /** Settings publishing {@link FeedLoader#DEFAULT_PUBLISH_THREADS} partners at once. */
    public Config(
        Path directory, ReadySignal readySignal, Duration pollInterval, Duration retryDelay) {
      this(directory, readySignal, pollInterval, retryDelay, FeedLoader.DEFAULT_PUBLISH_THREADS);
    }

    /** Renamed-into-place files, a scan at least every second, a retry after 5 seconds. */
    public static Config of(Path directory) {
      return new Config(
          directory, ReadySignal.RENAME, Duration.ofSeconds(1), Duration.ofSeconds(5));
    }
  }

  /**
   * Where snapshots go: batches of the feed loader ({@link #into(FeedLoader)}). The files one scan
   * takes are published in one batch (at most {@link #MAX_BATCH_FILES} files), so that the indexers
   * rebuild each partition they changed once, when the batch ends, not once per file.
   */
  @FunctionalInterface
  public interface SnapshotSink {
    /** Starts a batch; the watcher ends it once the scan's files are published. */
    SnapshotBatch batch();

    /** Publishes into {@code loader}'s batches ({@link FeedLoader#batch()}). */
    static SnapshotSink into(FeedLoader loader) {
      Objects.requireNonNull(loader, "loader");
      return () -> {
        FeedBatch batch = loader.batch();
        return new SnapshotBatch() {
          @Override
          public void publish(FeedSnapshot snapshot) throws IOException, InterruptedException {
            batch.publish(snapshot);
          }

          @Override
          public void end() throws IOException, InterruptedException {
            batch.end();
          }
        };
      };
    }

    /** A sink without batches: every snapshot stands alone and {@code end} does nothing. */
    static SnapshotSink unbatched(SnapshotPublisher publisher) {
      Objects.requireNonNull(publisher, "publisher");
      return () ->
          new SnapshotBatch() {
            @Override
            public void publish(FeedSnapshot snapshot) throws IOException, InterruptedException {
              publisher.publish(snapshot);
            }

            @Override
            public void end() {}
          };
    }
  }

  /**
   * Publishes one snapshot. NOTE: called from several threads at once, for different partners (see
   * {@link Config#publishThreads()}).
   */
  @FunctionalInterface
  public interface SnapshotPublisher {
    /**
     * Publishes a full snapshot.
     *
     * @throws IOException if it could not be published now (the file is tried again)
     * @throws IllegalArgumentException if the snapshot is invalid (the file is refused)
     */
    void publish(FeedSnapshot snapshot) throws IOException, InterruptedException;
  }

  /**
   * The snapshots of one scan. The watcher publishes different partners' files at once (from up to
   * {@link Config#publishThreads()} threads; one partner's one at a time, in order), then ends the
   * batch once, after every publish returned.
   */
  public interface SnapshotBatch extends SnapshotPublisher {
    /**
     * Marks the batch complete.
     *
     * @throws IOException if that failed: what was published stays published, and the indexers
     *     rebuild its partitions after their debounce
     */
    void end() throws IOException, InterruptedException;
  }

  /**
   * The most files one batch takes: a backlog (a watcher that was down, a burst of uploads) is
   * published in batches of this many, so the indexers start rebuilding before the whole backlog is
   * read.
   */
  public static final int MAX_BATCH_FILES = 100;

  /** Where malformed records go: a dead-letter topic. */
  @FunctionalInterface
  public interface DeadLetterSink {
    /** Reports one malformed record; must not throw. */
    void deadLetter(MalformedRecord record);
  }

  private final Config config;
  private final SnapshotFileReader reader;
  private final SnapshotSink sink;
  private final DeadLetterSink deadLetters;
  private final Path done;
  private final Path failed;
  private final Object scanLock = new Object();
  private final Map<Path, Waiting> waiting = new ConcurrentHashMap<>();
  private final PartnerLanes lanes;
  private final AtomicLong filesDone = new AtomicLong();
  private final AtomicLong filesFailed = new AtomicLong();
  private final AtomicLong recordsMalformed = new AtomicLong();
  private volatile boolean running;
  private WatchService watchService;
  private Thread thread;

  /**
   * A watcher; creates the directory and its {@code done/} and {@code failed/} sub-directories.
   * Meters, tagged {@code directory}: {@code mosaic.feedfiles.done}, {@code
   * mosaic.feedfiles.failed}, {@code mosaic.feedfiles.malformed.records}.
   *
   * @throws IOException if a directory cannot be created
   */
  public FeedDirectoryWatcher(
      Config config,
      SnapshotFileReader reader,
      SnapshotSink sink,
      DeadLetterSink deadLetters,
      MeterRegistry registry)
      throws IOException {
    this.config = Objects.requireNonNull(config, "config");
    this.reader = Objects.requireNonNull(reader, "reader");
    this.sink = Objects.requireNonNull(sink, "sink");
    this.deadLetters = Objects.requireNonNull(deadLetters, "deadLetters");
    this.done = Files.createDirectories(config.directory().resolve(DONE));
    this.failed = Files.createDirectories(config.directory().resolve(FAILED));
    this.lanes = new PartnerLanes(config.publishThreads(), "feed-directory-publish-");
    String directory = config.directory().toString();
    FunctionCounter.builder("mosaic.feedfiles.done", filesDone, AtomicLong::get)
        .description("snapshot files loaded and moved to done/")
        .tag("directory", directory)
        .register(registry);
    FunctionCounter.builder("mosaic.feedfiles.failed", filesFailed, AtomicLong::get)
        .description("snapshot files refused and moved to failed/")
        .tag("directory", directory)
        .register(registry);
    FunctionCounter.builder("mosaic.feedfiles.malformed.records", recordsMalformed, AtomicLong::get)
        .description("malformed records of snapshot files sent to the dead-letter sink")
        .tag("directory", directory)
        .register(registry);
  }

  /**
   * Starts the watcher thread: it scans at once, then on every file system event in the directory
   * and at least every {@code pollInterval}.
   *
   * @throws IOException if the directory cannot be watched
   */
  public synchronized FeedDirectoryWatcher start() throws IOException {
    if (thread != null) {
      throw new IllegalStateException("already started");
    }
    watchService = FileSystems.getDefault().newWatchService();
    config
        .directory()
        .register(
            watchService,
            StandardWatchEventKinds.ENTRY_CREATE,
            StandardWatchEventKinds.ENTRY_MODIFY);
    running = true;
    thread = Thread.ofPlatform().name("feed-directory-watcher").daemon().start(this::run);
    return this;
  }

  private void run() {
    try {
      while (running) {
        try {
          scanOnce();
        } catch (RuntimeException e) {
          LOG.error("scanning {} failed; trying again", config.directory(), e);
        }
        WatchKey key = watchService.poll(config.pollInterval().toMillis(), TimeUnit.MILLISECONDS);
        if (key != null) {
          key.pollEvents();
          key.reset();
        }
      }
    } catch (InterruptedException | ClosedWatchServiceException e) {
      // Closing.
    }
  }

  /**
   * Takes every file ready now, oldest first, and returns how many were moved to {@code done/} or
   * {@code failed/}.
   *
   * @throws InterruptedException if interrupted while the sink publishes (the file stays)
   */
  public int scanOnce() throws InterruptedException {
    synchronized (scanLock) {
      List<Path> files = readyFiles();
      waiting.keySet().retainAll(files);
      // partners with an older file waiting for its retry: their newer files wait behind it, so a
      // snapshot never overtakes an older one of its partner
      Set<String> held = ConcurrentHashMap.newKeySet();
      List<Path> due = new ArrayList<>();
      for (Path file : files) {
        Waiting w = waiting.get(file);
        if (w != null && System.nanoTime() - w.retryAfterNanos() < 0) {
          if (w.partner() != null) {
            held.add(w.partner());
          }
          continue;
        }
        due.add(file);
      }
      int handled = 0;
      for (int from = 0; from < due.size(); from += MAX_BATCH_FILES) {
        SnapshotBatch batch = sink.batch();
        // a scan cut short (interrupted, an unexpected error) leaves its batch open: the indexers
        // close it by its expiry and rebuild by their debounce
        handled +=
            takeAll(due.subList(from, Math.min(due.size(), from + MAX_BATCH_FILES)), batch, held);
        end(batch);
      }
      return handled;
    }
  }

  /** A file as read: its snapshot, or why it cannot be read now ({@code retry}) or ever. */
  private record Read(Path file, SnapshotFile snapshot, String refused, IOException retry) {}

  /**
   * Takes {@code files} (oldest first) into {@code batch}: reads them all at once, then publishes
   * partners in parallel, each partner's files in order ({@link PartnerLanes}); a partner's file
   * left for a retry holds its later files back. Returns how many were moved away.
   */
  private int takeAll(List<Path> files, SnapshotBatch batch, Set<String> held)
      throws InterruptedException {
    Read[] reads = new Read[files.size()];
    lanes.each(files.size(), i -> reads[i] = read(files.get(i)));
    int handled = 0;
    List<Read> readable = new ArrayList<>(reads.length);
    for (Read r : reads) {
      if (r.refused() != null) {
        refuse(r.file(), r.refused());
        handled++;
      } else if (r.retry() != null) {
        // its partner is unknown, so it holds no other file back
        LOG.warn(
            "cannot read snapshot file {} ({}); trying again later",
            r.file(),
            r.retry().toString());
        retryLater(r.file(), null, held);
      } else {
        readable.add(r);
      }
    }
    boolean[] taken =
        lanes.run(readable, r -> r.snapshot().snapshot().getPartnerId(), r -> take(r, batch, held));
    for (boolean t : taken) {
      if (t) {
        handled++;
      }
    }
    return handled;
  }

  private Read read(Path file) {
    try {
      return new Read(file, reader.read(file), null, null);
    } catch (MalformedSnapshotFileException e) {
      return new Read(file, null, e.getMessage(), null);
    } catch (IOException e) {
      return new Read(file, null, null, e);
    }
  }

  private void end(SnapshotBatch batch) throws InterruptedException {
    try {
      batch.end();
    } catch (IOException | RuntimeException e) {
      LOG.warn(
          "the snapshots of {} are published, but their batch could not be ended; the indexers"
              + " rebuild their partitions after their debounce: {}",
          config.directory(),
          e.toString());
    }
  }

  /** Files loaded and moved to {@code done/}. */
  public long filesDone() {
    return filesDone.get();
  }

  /** Files refused and moved to {@code failed/}. */
  public long filesFailed() {
    return filesFailed.get();
  }

  /** Malformed records reported to the dead-letter sink. */
  public long recordsMalformed() {
    return recordsMalformed.get();
  }

  /** A file waiting for its retry, and its partner when it was read (null when it was not). */
  private record Waiting(long retryAfterNanos, String partner) {}

  /**
   * Publishes a file and moves it away (true); or leaves it (false): for a retry ({@link
   * #retryLater}), or because an older file of its partner waits for its retry ({@code held}). Runs
   * on a lane's thread; false stops the partner's lane, so its later files wait too.
   */
  private boolean take(Read r, SnapshotBatch batch, Set<String> held) throws InterruptedException {
    Path file = r.file();
    String name = file.getFileName().toString();
    SnapshotFile read = r.snapshot();
    String partner = read.snapshot().getPartnerId();
    if (held.contains(partner)) {
      LOG.debug("{}: an older snapshot file of partner {} waits for its retry", name, partner);
      return false;
    }
    try {
      batch.publish(read.snapshot());
    } catch (IOException e) {
      LOG.warn("publishing snapshot file {} failed ({}); trying again later", file, e.toString());
      return retryLater(file, partner, held);
    } catch (IllegalArgumentException e) {
      refuse(file, name + ": " + e.getMessage());
      return true;
    }
    for (MalformedRecord record : read.malformed()) {
      recordsMalformed.incrementAndGet();
      deadLetters.deadLetter(record);
    }
    try {
      move(file, done);
      filesDone.incrementAndGet();
      LOG.info(
          "loaded snapshot file {}: partner {}, snapshot {}, {} offers, {} malformed records",
          name,
          read.snapshot().getPartnerId(),
          read.snapshot().getSnapshotId(),
          read.snapshot().getOffersCount(),
          read.malformed().size());
    } catch (IOException e) {
      // published: a second publish of the same snapshot changes nothing, so a retry is harmless,
      // as long as the partner's newer files wait behind it
      LOG.error("cannot move loaded snapshot file {} to {}", file, done, e);
      return retryLater(file, partner, held);
    }
    return true;
  }

  /**
   * Leaves {@code file} for a retry after the retry delay; the newer files of its partner, when
   * known, wait behind it. Returns false (the file stays).
   */
  private boolean retryLater(Path file, String partner, Set<String> held) {
    waiting.put(file, new Waiting(System.nanoTime() + config.retryDelay().toNanos(), partner));
    if (partner != null) {
      held.add(partner);
    }
    return false;
  }

  private void refuse(Path file, String reason) {
    LOG.warn("refusing snapshot file {}: {}", file, reason);
    String name = file.getFileName().toString();
    try {
      Files.writeString(failed.resolve(name + ".reason"), reason + "\n", StandardCharsets.UTF_8);
      move(file, failed);
      filesFailed.incrementAndGet();
    } catch (IOException e) {
      LOG.error("cannot move refused snapshot file {} to {}", file, failed, e);
    }
  }

  private void move(Path file, Path into) throws IOException {
    Files.move(
        file,
        into.resolve(file.getFileName()),
        StandardCopyOption.ATOMIC_MOVE,
        StandardCopyOption.REPLACE_EXISTING);
    if (config.readySignal() == ReadySignal.MARKER) {
      Files.deleteIfExists(marker(file));
    }
  }

  private List<Path> readyFiles() {
    List<Path> ready = new ArrayList<>();
    try (Stream<Path> files = Files.list(config.directory())) {
      files
          .filter(f -> !f.getFileName().toString().startsWith("."))
          .filter(f -> SnapshotFileFormat.of(f).isPresent())
          .filter(Files::isRegularFile)
          .filter(f -> config.readySignal() == ReadySignal.RENAME || Files.exists(marker(f)))
          .forEach(ready::add);
    } catch (IOException e) {
      LOG.error("cannot list {}", config.directory(), e);
      return List.of();
    }
    Map<Path, FileTime> modified = new HashMap<>();
    for (Path f : ready) {
      try {
        modified.put(f, Files.getLastModifiedTime(f));
      } catch (IOException e) {
        modified.put(f, FileTime.fromMillis(Long.MAX_VALUE)); // gone meanwhile: last
      }
    }
    ready.sort(Comparator.comparing((Path f) -> modified.get(f)).thenComparing(Path::getFileName));
    return ready;
  }

  private static Path marker(Path file) {
    return file.resolveSibling(file.getFileName() + READY_SUFFIX);
  }

  /** Stops the watcher thread (within seconds; a publish under way is interrupted). */
  @Override
  public void close() {
    Thread t;
    synchronized (this) {
      running = false;
      t = thread;
      if (watchService != null) {
        try {
          watchService.close();
        } catch (IOException e) {
          LOG.warn("closing the watch service of {}", config.directory(), e);
        }
      }
    }
    if (t != null) {
      t.interrupt();
      try {
        t.join(10_000);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    lanes.close();
  }
}
