package dev.mosaic.searcher;

import dev.mosaic.format.io.DurableFiles;
import dev.mosaic.partition.PartitionFileId;
import dev.mosaic.partition.PartitionLayout;
import dev.mosaic.partition.ReceivingStore;
import dev.mosaic.partition.RejectedFileException;
import java.io.Closeable;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.IntPredicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The searcher's local store of partition files.
 *
 * <p>Layout: {@code root/v{schemaVersion}/{partition}/{version}.mosaic}, schema version first so a
 * schema change can be rolled out and rolled back side by side. A file being received lives under a
 * temporary name {@code {version}.mosaic.{nonce}.tmp} in its final directory and becomes visible
 * only by an atomic rename after it was fsynced and verified (structure and checksum) with the
 * format's reader; the directory is fsynced after the rename. A pin (rollback to an older version)
 * is the file {@code root/v{schemaVersion}/{partition}/pinned} holding the version, so it survives
 * restarts. Files that fail verification on start are renamed to {@code *.corrupt} and never
 * served.
 *
 * <p>Retention: the newest {@link Builder#keepVersions(int) K} versions of each partition are kept
 * (default 2), plus a pinned version, plus any version still {@link #retain retained} by a reader
 * (the generations retain every file they map until it is unmapped). Everything else is deleted.
 *
 * <p>Lifecycle: LATENT → {@link #start()} (scan, verify, clean up) → STARTED → {@link #close()} →
 * CLOSED.
 *
 * <p>Parts: {@link StoreScan} reads the disk (start and {@link #rescan}), {@link
 * StagedPartitionFile} is a file being received, {@link PublishedFiles} holds the bookkeeping and
 * {@link Snapshots} the maps derived from it; this class keeps the lifecycle, retention, pins and
 * listeners.
 *
 * <p>Thread safety: safe for concurrent use. Verification, fsync and checksums run outside the
 * store's lock; only the bookkeeping is serialized. NOTE: listeners run on the publishing thread.
 */
public final class PartitionStore implements ReceivingStore, Closeable {
  /** Extension of published partition files. */
  public static final String EXTENSION = PartitionLayout.EXTENSION;

  private static final Logger LOG = LoggerFactory.getLogger(PartitionStore.class);
  // the name of a partition's pin file, in its directory
  static final String PIN_FILE = "pinned";

  /** Default largest file accepted: 4 GiB. */
  public static final long DEFAULT_MAX_FILE_BYTES = 4L << 30;

  /** Default free space kept on the store's file system: 512 MiB. */
  public static final long DEFAULT_FREE_SPACE_RESERVE = 512L << 20;

  private enum State {
    LATENT,
    STARTED,
    CLOSED
  }

  private final Path root;
  private final PartitionLayout layout;
  private final int keepVersions;
  private final IntPredicate acceptedSchemaVersions;
  private final StoreScan diskScan;
  private final long maxFileBytes;
  private final long freeSpaceReserve;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final List<StoreListener> listeners = new CopyOnWriteArrayList<>();
  // the root's file system, set on start
  private volatile FileStore fileStore;

  // Guarded by "this".
  private final PublishedFiles published = new PublishedFiles();
  private final Map<PartitionFileId, Integer> retained = new HashMap<>();
  // files being received, with their announced sizes
  private final Map<PartitionFileId, Long> receivingBytes = new HashMap<>();

  private PartitionStore(Builder b) {
    this.maxFileBytes = b.maxFileBytes;
    this.freeSpaceReserve = b.freeSpaceReserve;
    this.root = b.root;
    this.layout = new PartitionLayout(b.root);
    this.keepVersions = b.keepVersions;
    this.acceptedSchemaVersions = b.acceptedSchemaVersions;
    this.diskScan = new StoreScan(b.root, b.verifyOnStart, this, published);
  }

  /** A builder of a store rooted at {@code root} (created on start when missing). */
  public static Builder builder(Path root) {
    return new Builder(root);
  }

  /** The root directory. */
  public Path root() {
    return root;
  }

  /** How many newest versions of each partition are kept. */
  public int keepVersions() {
    return keepVersions;
  }

  /**
   * Scans the root: deletes leftover temporary files, verifies every published file (unless
   * disabled), quarantines the ones that fail, reads pins, and deletes versions beyond retention.
   *
   * @throws IllegalStateException when not LATENT
   */
  public void start() throws IOException {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("partition store is " + state.get() + ", cannot start");
    }
    Files.createDirectories(root);
    // looked up once: finding a path's file store reads the mount table
    fileStore = Files.getFileStore(root);
    scan(true);
    synchronized (this) {
      LOG.info(
          "partition store {} started: {} files over schema versions {}",
          root,
          published.fileCount(),
          published.bySchemaVersion().keySet());
    }
  }

  /**
   * Looks at the disk again for published files that appeared or vanished without going through
   * {@link #stage} (a safety net, and a way to drop files in by hand with a temporary name and a
   * rename). New files are verified before they are taken; listeners hear of every change.
   *
   * @return true when something changed
   */
  public boolean rescan() throws IOException {
    requireStarted();
    return scan(false);
  }

  /** Adds a listener told of every change; see {@link StoreListener}. */
  public void addListener(StoreListener listener) {
    listeners.add(Objects.requireNonNull(listener, "listener"));
  }

  /** Removes a listener added earlier. */
  public void removeListener(StoreListener listener) {
    listeners.remove(listener);
  }

  // ---------------------------------------------------------------------------------------------
  // ReceivingStore

  @Override
  public StagedFile stage(PartitionFileId id, long size) throws IOException {
    requireStarted();
    if (!acceptedSchemaVersions.test(id.schemaVersion())) {
      throw new RejectedFileException(
          id + ": schema version " + id.schemaVersion() + " is not accepted by this store");
    }
    if (size > maxFileBytes) {
      throw new RejectedFileException(
          id
              + ": announced size of "
              + size
              + " bytes is over this store's largest file of "
              + maxFileBytes
              + " bytes (maxFileBytes)");
    }
    synchronized (this) {
      rejectUnlessNewer(id);
      rejectUnlessRoomFor(id, size);
      if (receivingBytes.putIfAbsent(id, Math.max(0, size)) != null) {
        throw new RejectedFileException(id + ": already being received");
      }
    }
    try {
      layout.createPartitionDir(id.schemaVersion(), id.partition());
      Path temp = PartitionLayout.tempFileFor(layout.file(id));
      Files.createFile(temp);
      return new StagedPartitionFile(this, id, size, temp);
    } catch (IOException | RuntimeException e) {
      synchronized (this) {
        receivingBytes.remove(id);
      }
      throw e;
    }
  }

  /**
   * Refuses a file whose bytes, with those of every file being received, would leave less than the
   * free-space reserve on the store's file system. Caller holds the lock.
   */
  private void rejectUnlessRoomFor(PartitionFileId id, long size) throws IOException {
    if (freeSpaceReserve <= 0) {
      return;
    }
    long usable = fileStore.getUsableSpace();
    long inFlight = receivingBytes.values().stream().mapToLong(Long::longValue).sum();
    long after = usable - inFlight - Math.max(0, size);
    if (after < freeSpaceReserve) {
      throw new RejectedFileException(
          id
              + ": not enough disk space: "
              + usable
              + " bytes usable, "
              + inFlight
              + " being received, this file "
              + size
              + " bytes would leave "
              + after
              + ", under the free-space reserve of "
              + freeSpaceReserve
              + " bytes (freeSpaceReserve)");
    }
  }

  /**
   * Publishes a staged file that passed verification ({@link StagedPartitionFile}): renames it into
   * place under the lock, unless a newer version or another schema got there first, makes the
   * rename durable, then prunes its partition and tells the listeners.
   */
  void publishVerified(PartitionFileId id, Path temp, VerifiedFile v) throws IOException {
    Path dir = temp.getParent();
    Path target = layout.file(id);
    synchronized (this) {
      requireStarted();
      rejectUnlessNewer(id);
      SchemaFiles s = published.schemaOrCreate(id.schemaVersion());
      if (s.schema != null && s.hasFiles() && !s.schema.equals(v.schema())) {
        throw new RejectedFileException(
            id
                + ": its schema differs from the held files of schema version "
                + id.schemaVersion()
                + " (file: "
                + v.schema()
                + ", held: "
                + s.schema
                + "); a new schema needs a new schema version");
      }
      DurableFiles.moveAtomically(temp, target);
      s.schema = v.schema();
      PartitionFiles p = partitionFiles(id.schemaVersion(), id.partition(), true);
      p.versions.put(
          id.version(),
          new StoredFile(
              id, target, v.digest().size(), v.digest().crc32c(), Instant.now(), v.schema()));
      published.modified(p);
    }
    // durable before anyone is told (and before the transport acknowledges), but outside the lock
    // so publishes of other partitions do not queue behind this fsync
    DurableFiles.forceDirectory(dir);
    LOG.debug("published {} ({})", id, v.digest());
    prune(id);
    notifyListeners(id.schemaVersion(), id.partition());
  }

  /** Ends a staged file's reservation of disk space (published or abandoned). */
  synchronized void stagingEnded(PartitionFileId id) {
    receivingBytes.remove(id);
  }

  @Override
  public Optional<Path> file(PartitionFileId id) {
    return storedFile(id).map(StoredFile::path);
  }

  /** The file, {@link #retain retained} until the handle is closed (a relay or fetch reads it). */
  @Override
  public synchronized Optional<HeldFile> hold(PartitionFileId id) {
    Optional<StoredFile> f = storedFile(id);
    if (f.isEmpty()) {
      return Optional.empty();
    }
    retain(id);
    return Optional.of(new HeldFile(f.get().path(), () -> release(id)));
  }

  @Override
  public synchronized Map<Integer, Long> latestVersions(int schemaVersion) {
    return published
        .snapshots()
        .latest
        .computeIfAbsent(
            schemaVersion,
            sv -> {
              SchemaFiles s = published.schema(sv);
              return s == null ? Map.of() : new LatestVersions(s.latest.clone());
            });
  }

  @Override
  public synchronized OptionalLong latestVersion(int schemaVersion, int partition) {
    PartitionFiles p = partitionFiles(schemaVersion, partition, false);
    return p == null || p.versions.isEmpty()
        ? OptionalLong.empty()
        : OptionalLong.of(p.versions.lastKey());
  }

  // ---------------------------------------------------------------------------------------------
  // Reading the store

  /** The stored file of that id, if held. */
  public synchronized Optional<StoredFile> storedFile(PartitionFileId id) {
    return published.storedFile(id);
  }

  /** Schema versions with at least one file, ascending. */
  public synchronized List<Integer> schemaVersions() {
    List<Integer> out = new ArrayList<>();
    published
        .bySchemaVersion()
        .forEach(
            (v, s) -> {
              if (s.hasFiles()) {
                out.add(v);
              }
            });
    out.sort(null);
    return out;
  }

  /**
   * The file each partition of a schema version should serve: its pinned version when pinned, its
   * newest version otherwise. Sorted by partition; unmodifiable, and the same map until the held
   * files change (derived once per change).
   */
  public synchronized NavigableMap<Integer, StoredFile> servingFiles(int schemaVersion) {
    return published
        .snapshots()
        .serving
        .computeIfAbsent(
            schemaVersion,
            sv -> {
              NavigableMap<Integer, StoredFile> out = new TreeMap<>();
              StoredFile[] serving = servingArray(sv);
              for (int p = 0; p < serving.length; p++) {
                if (serving[p] != null) {
                  out.put(p, serving[p]);
                }
              }
              return Collections.unmodifiableNavigableMap(out);
            });
  }

  /**
   * The file each partition of a schema version should serve ({@link #servingFiles}) as an array
   * indexed by partition, null where a partition serves nothing. Unmodifiable by contract (never
   * write to it), and the same array until the held files change: a reopen that gets the array its
   * generation was built from knows nothing changed. Deriving it copies one array.
   */
  public synchronized StoredFile[] servingArray(int schemaVersion) {
    return published
        .snapshots()
        .arrays
        .computeIfAbsent(
            schemaVersion,
            sv -> {
              SchemaFiles s = published.schema(sv);
              return s == null ? new StoredFile[0] : s.serving.clone();
            });
  }

  /** Everything held about each partition of a schema version, sorted by partition. */
  public synchronized List<PartitionState> partitionStates(int schemaVersion) {
    List<PartitionState> out = new ArrayList<>();
    SchemaFiles s = published.schema(schemaVersion);
    if (s != null) {
      new TreeMap<>(s.partitions)
          .forEach(
              (p, files) -> {
                if (!files.versions.isEmpty()) {
                  out.add(
                      new PartitionState(
                          p,
                          files.serving(),
                          List.copyOf(files.versions.keySet()),
                          files.pinned != null));
                }
              });
    }
    return out;
  }

  /** Number of published files held, over all schema versions. */
  public synchronized int fileCount() {
    return published.fileCount();
  }

  /**
   * What the store holds about one partition.
   *
   * @param partition the partition id
   * @param serving the file it serves (pinned or newest)
   * @param versions every version held, ascending
   * @param pinned whether the partition is pinned to {@code serving}
   */
  public record PartitionState(
      int partition, StoredFile serving, List<Long> versions, boolean pinned) {}

  // ---------------------------------------------------------------------------------------------
  // Pins

  /**
   * Pins a partition to a held version: it serves that version (even when newer ones arrive) until
   * unpinned, and the version is never deleted while pinned. Persisted across restarts.
   *
   * @throws IllegalArgumentException when that version is not held, naming the versions that are
   */
  public void pin(int schemaVersion, int partition, long version) throws IOException {
    requireStarted();
    Path dir = partitionDir(schemaVersion, partition);
    synchronized (this) {
      PartitionFiles p = partitionFiles(schemaVersion, partition, false);
      if (p == null || !p.versions.containsKey(version)) {
        throw new IllegalArgumentException(
            "partition "
                + partition
                + " of schema version "
                + schemaVersion
                + " has no version "
                + version
                + "; held versions: "
                + (p == null ? List.of() : List.copyOf(p.versions.keySet())));
      }
      DurableFiles.write(
          dir.resolve(PIN_FILE), Long.toString(version).getBytes(StandardCharsets.US_ASCII));
      p.pinned = version;
      published.modified(p);
    }
    LOG.info(
        "pinned partition {} of schema version {} to version {}",
        partition,
        schemaVersion,
        version);
    notifyListeners(schemaVersion, partition);
  }

  /**
   * Unpins a partition: it serves its newest version again, and versions beyond retention are
   * deleted once unused.
   *
   * @return true when it was pinned
   */
  public boolean unpin(int schemaVersion, int partition) throws IOException {
    requireStarted();
    boolean was;
    synchronized (this) {
      PartitionFiles p = partitionFiles(schemaVersion, partition, false);
      was = p != null && p.pinned != null;
      if (was) {
        Path dir = partitionDir(schemaVersion, partition);
        Files.deleteIfExists(dir.resolve(PIN_FILE));
        DurableFiles.forceDirectory(dir);
        p.pinned = null;
        published.modified(p);
      }
    }
    if (was) {
      LOG.info("unpinned partition {} of schema version {}", partition, schemaVersion);
      prune();
      notifyListeners(schemaVersion, partition);
    }
    return was;
  }

  // ---------------------------------------------------------------------------------------------
  // Retention

  /**
   * Marks a file as in use (mapped by a reader): it is not deleted until every retain is matched by
   * a {@link #release}.
   *
   * @throws IllegalArgumentException when the file is not held
   */
  public synchronized void retain(PartitionFileId id) {
    if (storedFile(id).isEmpty()) {
      throw new IllegalArgumentException(id + " is not held by the store");
    }
    retained.merge(id, 1, Integer::sum);
  }

  /** Matches one {@link #retain}; files beyond retention are deleted once nobody retains them. */
  public void release(PartitionFileId id) {
    synchronized (this) {
      Integer n = retained.get(id);
      if (n == null) {
        throw new IllegalStateException(id + " released more often than retained");
      }
      if (n == 1) {
        retained.remove(id);
      } else {
        retained.put(id, n - 1);
      }
    }
    prune(id);
  }

  /** Deletes every file beyond retention that nobody retains. */
  public void prune() {
    List<StoredFile> doomed = new ArrayList<>();
    synchronized (this) {
      for (SchemaFiles s : published.bySchemaVersion().values()) {
        for (PartitionFiles p : s.partitions.values()) {
          collectDoomed(p, doomed);
        }
      }
    }
    delete(doomed);
  }

  /**
   * Deletes the files of one partition beyond retention that nobody retains: what a publish or a
   * release of that partition's file can free, without a pass over every partition of the store.
   */
  private void prune(PartitionFileId id) {
    List<StoredFile> doomed = new ArrayList<>();
    synchronized (this) {
      PartitionFiles p = partitionFiles(id.schemaVersion(), id.partition(), false);
      if (p != null) {
        collectDoomed(p, doomed);
      }
    }
    delete(doomed);
  }

  /** Moves the files of {@code p} beyond retention that nobody retains to {@code doomed}. */
  private void collectDoomed(PartitionFiles p, List<StoredFile> doomed) {
    if (p.versions.size() <= keepVersions) {
      return;
    }
    int kept = 0;
    for (StoredFile f : List.copyOf(p.versions.descendingMap().values())) {
      long v = f.id().version();
      if (kept < keepVersions) {
        kept++;
      } else if ((p.pinned == null || p.pinned != v) && !retained.containsKey(f.id())) {
        p.versions.remove(v);
        published.modified(p);
        doomed.add(f);
      }
    }
  }

  private static void delete(List<StoredFile> doomed) {
    for (StoredFile f : doomed) {
      try {
        Files.deleteIfExists(f.path());
        LOG.debug("deleted {} ({})", f.id(), f.path());
      } catch (IOException e) {
        LOG.warn("could not delete {} ({}): {}", f.id(), f.path(), e.toString());
      }
    }
  }

  @Override
  public void close() {
    State previous = state.getAndSet(State.CLOSED);
    if (previous == State.STARTED) {
      LOG.info("partition store {} closed", root);
    }
  }

  // ---------------------------------------------------------------------------------------------
  // internals

  private void requireStarted() {
    State s = state.get();
    if (s != State.STARTED) {
      throw new IllegalStateException("partition store is " + s + ", not STARTED");
    }
  }

  private Path partitionDir(int schemaVersion, int partition) {
    return layout.partitionDir(schemaVersion, partition);
  }

  private PartitionFiles partitionFiles(int schemaVersion, int partition, boolean create) {
    return published.partitionFiles(schemaVersion, partition, create);
  }

  private void rejectUnlessNewer(PartitionFileId id) throws RejectedFileException {
    PartitionFiles p = partitionFiles(id.schemaVersion(), id.partition(), false);
    if (p != null && !p.versions.isEmpty() && p.versions.lastKey() >= id.version()) {
      long newest = p.versions.lastKey();
      throw new RejectedFileException(
          id
              + ": version "
              + id.version()
              + (newest == id.version()
                  ? " is already held"
                  : " is older than the held version " + newest));
    }
  }

  private void notifyListeners(int schemaVersion, int partition) {
    for (StoreListener l : listeners) {
      try {
        l.storeChanged(schemaVersion, partition);
      } catch (RuntimeException e) {
        LOG.error("store listener {} failed", l, e);
      }
    }
  }

  /** Scans the disk; on start also deletes temporary files and quarantines corrupt ones. */
  private boolean scan(boolean starting) throws IOException {
    Map<Integer, Set<Integer>> changed = diskScan.scan(starting);
    prune();
    if (!starting) {
      changed.forEach((s, ps) -> ps.forEach(p -> notifyListeners(s, p)));
    }
    return !changed.isEmpty();
  }

  /** Configures a {@link PartitionStore}. Not thread safe. */
  public static final class Builder {
    private final Path root;
    private int keepVersions = 2;
    private IntPredicate acceptedSchemaVersions = v -> true;
    private boolean verifyOnStart = true;
    private long maxFileBytes = DEFAULT_MAX_FILE_BYTES;
    private long freeSpaceReserve = DEFAULT_FREE_SPACE_RESERVE;

    private Builder(Path root) {
      this.root = Objects.requireNonNull(root, "root");
    }

    /** How many newest versions of each partition to keep (default 2, at least 1). */
    public Builder keepVersions(int keepVersions) {
      if (keepVersions < 1) {
        throw new IllegalArgumentException("keepVersions must be >= 1, got " + keepVersions);
      }
      this.keepVersions = keepVersions;
      return this;
    }

    /** Which schema versions {@link #stage} accepts (default: all). */
    public Builder acceptedSchemaVersions(IntPredicate accepted) {
      this.acceptedSchemaVersions = Objects.requireNonNull(accepted, "accepted");
      return this;
    }

    /**
     * Whether {@link #start()} verifies the checksum of every file (default true). Turning it off
     * trusts files already on disk (they were verified when they arrived) and only checks their
     * structure; checksums shown for such files are then 0.
     */
    public Builder verifyOnStart(boolean verifyOnStart) {
      this.verifyOnStart = verifyOnStart;
      return this;
    }

    /**
     * Largest file {@link #stage} accepts, by its announced size (default 4 GiB); a larger one is
     * refused with a {@link RejectedFileException} naming this setting, before a byte is written.
     */
    public Builder maxFileBytes(long maxFileBytes) {
      if (maxFileBytes < 1) {
        throw new IllegalArgumentException("maxFileBytes must be >= 1, got " + maxFileBytes);
      }
      this.maxFileBytes = maxFileBytes;
      return this;
    }

    /**
     * Bytes that must stay free on the store's file system (default 512 MiB; 0 turns the check
     * off): {@link #stage} refuses a file whose announced size, with the files being received,
     * would leave less. The previous version keeps serving; the transport retries later.
     */
    public Builder freeSpaceReserve(long freeSpaceReserve) {
      if (freeSpaceReserve < 0) {
        throw new IllegalArgumentException(
            "freeSpaceReserve must be >= 0, got " + freeSpaceReserve);
      }
      this.freeSpaceReserve = freeSpaceReserve;
      return this;
    }

    /** The store, LATENT until {@link PartitionStore#start()}. */
    public PartitionStore build() {
      return new PartitionStore(this);
    }
  }
}
