package dev.mosaic.it.process;

import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One status line of the {@code feed-loader} process ({@code feed: 8 partners, 2400 offers, 12
 * snapshots, 300 changes, 0 failed}) and its position among this life's status lines. Immutable.
 *
 * @param index position among the status lines of the loader's current life, from 0
 * @param offers offers the simulated partners hold
 * @param snapshots snapshots published so far
 * @param failed snapshots that failed to publish so far
 */
record FeedStatus(int index, long offers, long snapshots, long failed) {
  private static final Pattern LINE =
      Pattern.compile(
          "feed: \\d+ partners, (\\d+) offers, (\\d+) snapshots, \\d+ changes, (\\d+) failed");

  /** The loader's latest status line. */
  static FeedStatus last(ChildProcess loader) {
    List<String> lines = loader.linesMatching(LINE);
    if (lines.isEmpty()) {
      throw new IllegalStateException("the feed loader printed no status yet" + loader.tail());
    }
    return parse(lines.size() - 1, lines.get(lines.size() - 1));
  }

  private static FeedStatus parse(int index, String line) {
    Matcher m = LINE.matcher(line);
    if (!m.find()) {
      throw new IllegalArgumentException("not a feed status line: " + line);
    }
    return new FeedStatus(
        index, Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3)));
  }
}
