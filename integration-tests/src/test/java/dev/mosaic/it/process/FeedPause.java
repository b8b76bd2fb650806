package dev.mosaic.it.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;

/**
 * The feed loader's simulated partners paused between two snapshots, through the loader's pause
 * file ({@code <data-dir>/feed-loader/pause}): the loader finishes the snapshot it is publishing,
 * prints {@code feed paused}, and its status lines from then on are exactly what the offers topic
 * holds. ({@code SIGSTOP} instead would freeze it in the middle of a snapshot, with part of the
 * snapshot's changes on the topic and a status line that does not count them.) Closing resumes the
 * feed and waits until the loader says so.
 *
 * <p>Confined to the test thread.
 */
final class FeedPause implements AutoCloseable {
  private static final Pattern MARK = Pattern.compile("^feed (paused|resumed)$");
  private static final Duration WAIT = Duration.ofSeconds(60);

  private final ChildProcess loader;
  private final Path file;
  private final FeedStatus status;

  private FeedPause(ChildProcess loader, Path file, FeedStatus status) {
    this.loader = loader;
    this.file = file;
    this.status = status;
  }

  /** Pauses the feed and waits until the loader printed a status line while paused. */
  static FeedPause start(ChildProcess loader, Path pauseFile) {
    long pausedBefore = count(loader, "feed paused");
    try {
      Files.createDirectories(pauseFile.getParent());
      Files.writeString(pauseFile, "");
    } catch (IOException e) {
      throw new UncheckedIOException("cannot create the feed's pause file " + pauseFile, e);
    }
    try {
      Awaitility.await("the feed loader pauses between two snapshots")
          .atMost(WAIT)
          .pollInterval(Duration.ofMillis(100))
          .until(
              () ->
                  count(loader, "feed paused") > pausedBefore
                      && FeedStatus.last(loader).index() > statusLinesBeforeLastMark(loader));
    } catch (RuntimeException e) {
      delete(pauseFile);
      throw e;
    }
    return new FeedPause(loader, pauseFile, FeedStatus.last(loader));
  }

  /** The loader's status while paused: the offers the partners hold, all of them on the topic. */
  FeedStatus status() {
    return status;
  }

  @Override
  public void close() {
    delete(file);
    Awaitility.await("the feed loader resumes")
        .atMost(WAIT)
        .pollInterval(Duration.ofMillis(100))
        .until(() -> count(loader, "feed resumed") == count(loader, "feed paused"));
  }

  private static long count(ChildProcess loader, String mark) {
    return loader.linesMatching(MARK).stream().filter(mark::equals).count();
  }

  /** Index of the first status line printed after the last pause or resume mark. */
  private static int statusLinesBeforeLastMark(ChildProcess loader) {
    Pattern both = Pattern.compile("^feed (paused|resumed)$|^feed: \\d+ partners");
    List<String> lines = loader.linesMatching(both);
    int statusLines = 0;
    int before = -1;
    for (String l : lines) {
      if (MARK.matcher(l).find()) {
        before = statusLines - 1;
      } else {
        statusLines++;
      }
    }
    return before;
  }

  private static void delete(Path file) {
    try {
      Files.deleteIfExists(file);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot delete the feed's pause file " + file, e);
    }
  }
}
