package dev.mosaic.it.process;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.awaitility.Awaitility;
import org.awaitility.core.ConditionTimeoutException;

/**
 * One JVM started by the fault tests: its console (stdout and stderr) goes to {@code
 * <logDir>/<name>.out} and its log to {@code <logDir>/<name>.log}, both appended across restarts so
 * a failure shows every life of the process. {@link #kill9()} is {@code SIGKILL} on Linux.
 *
 * <p>Thread safety: confined to the test thread, except {@link #isAlive()}.
 */
final class ChildProcess {
  private final String name;
  private final List<String> command;
  private final Path console;
  private final Path log;
  private volatile Process process;
  private long consoleStart;

  /**
   * @param name file name stem of the console and log files
   * @param jvmArgs JVM options (the log file option is added)
   * @param classPath the child's class path
   * @param mainAndArgs main class and its arguments
   */
  ChildProcess(
      String name, Path logDir, List<String> jvmArgs, String classPath, List<String> mainAndArgs) {
    this(name, logDir, List.of(), jvmArgs, classPath, mainAndArgs);
  }

  /**
   * As above, the JVM started by a launcher: {@code launcher} followed by the java command line as
   * its arguments (the launcher must {@code exec} it, so the process is the JVM).
   */
  ChildProcess(
      String name,
      Path logDir,
      List<String> launcher,
      List<String> jvmArgs,
      String classPath,
      List<String> mainAndArgs) {
    this.name = name;
    this.console = logDir.resolve(name + ".out");
    this.log = logDir.resolve(name + ".log");
    List<String> c = new ArrayList<>(launcher);
    c.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    c.addAll(jvmArgs);
    c.add("-Dmosaic.log.file=" + log);
    c.add("-cp");
    c.add(classPath);
    c.addAll(mainAndArgs);
    this.command = List.copyOf(c);
  }

  String name() {
    return name;
  }

  /** Starts a new life of the process; the console is appended to. */
  ChildProcess start() {
    if (process != null && process.isAlive()) {
      throw new IllegalStateException(name + " is already running");
    }
    try {
      Files.createDirectories(console.getParent());
      consoleStart = Files.exists(console) ? Files.size(console) : 0;
      Files.writeString(
          console,
          "==== start " + String.join(" ", command) + System.lineSeparator(),
          StandardCharsets.UTF_8,
          java.nio.file.StandardOpenOption.CREATE,
          java.nio.file.StandardOpenOption.APPEND);
      consoleStart = Files.size(console);
      process =
          new ProcessBuilder(command)
              .redirectErrorStream(true)
              .redirectOutput(ProcessBuilder.Redirect.appendTo(console.toFile()))
              .start();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start " + name, e);
    }
    return this;
  }

  /**
   * Waits until this life's console shows a line matching {@code pattern} and returns the match;
   * fails with the console's tail when the process dies first or the deadline passes.
   */
  Matcher awaitLine(Pattern pattern, Duration atMost) {
    Matcher[] found = new Matcher[1];
    try {
      Awaitility.await(name + " prints " + pattern)
          .atMost(atMost)
          .pollInterval(Duration.ofMillis(200))
          .until(
              () -> {
                String text = thisLife();
                Matcher m = pattern.matcher(text);
                if (m.find()) {
                  found[0] = m;
                  return true;
                }
                if (!process.isAlive()) {
                  throw new IllegalStateException(
                      name + " exited with " + process.exitValue() + " before " + pattern + tail());
                }
                return false;
              });
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(
          name + " is alive but did not print " + pattern + " within " + atMost + mainThread(), e);
    }
    return found[0];
  }

  /**
   * The stack of the process's main thread (where a start that hangs waits), from {@code jcmd
   * Thread.print}; the whole dump is kept in {@code <logDir>/<name>.threads}.
   */
  private String mainThread() {
    Process p = process;
    Path jcmd = Path.of(System.getProperty("java.home"), "bin", "jcmd");
    Path dump = console.resolveSibling(name + ".threads");
    try {
      Process j =
          new ProcessBuilder(jcmd.toString(), Long.toString(p.pid()), "Thread.print")
              .redirectErrorStream(true)
              .redirectOutput(dump.toFile())
              .start();
      if (!j.waitFor(30, TimeUnit.SECONDS)) {
        j.destroyForcibly();
        return "\n(no thread dump: jcmd did not answer within 30 s)";
      }
      String all = Files.readString(dump, StandardCharsets.UTF_8);
      int from = all.indexOf("\"main\"");
      if (from < 0) {
        return "\n(no main thread in the dump " + dump + ")";
      }
      int to = all.indexOf("\n\n", from);
      return "\n---- main thread (whole dump in "
          + dump
          + ") ----\n"
          + all.substring(from, to < 0 ? all.length() : to);
    } catch (IOException e) {
      return "\n(no thread dump: " + e + ")";
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "\n(no thread dump: interrupted)";
    }
  }

  /** Sends a POSIX signal by name ({@code STOP}, {@code CONT}) to the running process. */
  void signal(String signal) {
    Process p = process;
    try {
      Process kill = new ProcessBuilder("kill", "-" + signal, String.valueOf(p.pid())).start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + signal + " " + name + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** The lines of this life's console that match {@code pattern}, oldest first. */
  List<String> linesMatching(Pattern pattern) {
    try {
      return thisLife().lines().filter(l -> pattern.matcher(l).find()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The lines of the log (every life) that match {@code pattern}, oldest first. */
  List<String> logLinesMatching(Pattern pattern) {
    if (!Files.exists(log)) {
      return List.of();
    }
    try (var lines = Files.lines(log, StandardCharsets.UTF_8)) {
      return lines.filter(l -> pattern.matcher(l).find()).toList();
    } catch (IOException | UncheckedIOException e) {
      throw new IllegalStateException("cannot read " + log, e);
    }
  }

  /** The running process's id. */
  long pid() {
    return process.pid();
  }

  boolean isAlive() {
    Process p = process;
    return p != null && p.isAlive();
  }

  /** {@code kill -9}: no shutdown hook, no flush, no goodbye to ZooKeeper or Kafka. */
  void kill9() {
    Process p = process;
    p.destroyForcibly();
    waitFor(p, "SIGKILL");
  }

  /** {@code SIGTERM}: the process's shutdown hooks run. */
  void terminate() {
    Process p = process;
    if (p == null || !p.isAlive()) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly();
        waitFor(p, "SIGKILL after SIGTERM");
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      p.destroyForcibly();
    }
  }

  private void waitFor(Process p, String what) {
    try {
      if (!p.waitFor(30, TimeUnit.SECONDS)) {
        throw new IllegalStateException(name + " still alive 30 s after " + what);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted waiting for " + name, e);
    }
  }

  /** The last 40 lines of the console, for failure messages. */
  String tail() {
    try {
      List<String> lines = Files.readAllLines(console, StandardCharsets.UTF_8);
      int from = Math.max(0, lines.size() - 40);
      return "\n---- last lines of "
          + console
          + " ----\n"
          + String.join("\n", lines.subList(from, lines.size()));
    } catch (IOException e) {
      return "\n(cannot read " + console + ": " + e + ")";
    }
  }

  private String thisLife() throws IOException {
    byte[] all = Files.readAllBytes(console);
    int from = (int) Math.min(consoleStart, all.length);
    return new String(all, from, all.length - from, StandardCharsets.UTF_8);
  }
}
