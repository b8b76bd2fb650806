package dev.mosaic.bench.chart;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.regex.Pattern;

/**
 * One {@code RESULT <name> key=value ...} line of a benchmark's output: the name of the result and
 * its figures in the order printed. Values are kept as text ({@code tls=on}, {@code
 * searchers_ready=4/4}); {@link #number} reads the numeric ones.
 *
 * <p>Thread safety: immutable.
 *
 * @param name the result's name, e.g. {@code table1_count}
 * @param figures key to value, in the order printed
 */
public record ResultLine(String name, Map<String, String> figures) {
  private static final Pattern NAME = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]*");
  private static final Pattern KEY = Pattern.compile("[A-Za-z][A-Za-z0-9_.-]*");

  /** The prefix every result line starts with. */
  public static final String PREFIX = "RESULT";

  /** A result line; the figures are copied. */
  public ResultLine {
    Objects.requireNonNull(name, "name");
    figures = Collections.unmodifiableMap(new LinkedHashMap<>(figures));
  }

  /** True when the line is meant as a result line (starts with {@code RESULT} and a space). */
  public static boolean isResultLine(String line) {
    return line.startsWith(PREFIX + " ") || line.strip().equals(PREFIX);
  }

  /**
   * Parses one result line.
   *
   * @param line the text, starting with {@code RESULT}
   * @param where names the line in error messages, e.g. {@code format.txt line 12}
   * @throws IllegalArgumentException naming the line and what is wrong with it: no name, a token
   *     that is not {@code key=value}, an empty value, a key given twice
   */
  public static ResultLine parse(String line, String where) {
    String[] tokens = line.strip().split("\\s+");
    if (tokens.length == 0 || !tokens[0].equals(PREFIX)) {
      throw new IllegalArgumentException(where + ": not a RESULT line: '" + line + "'");
    }
    if (tokens.length < 2) {
      throw new IllegalArgumentException(where + ": RESULT line has no name: '" + line + "'");
    }
    String name = tokens[1];
    if (!NAME.matcher(name).matches()) {
      throw new IllegalArgumentException(
          where + ": RESULT name '" + name + "' is not a word (letters, digits, _ . -)");
    }
    if (tokens.length < 3) {
      throw new IllegalArgumentException(
          where + ": RESULT " + name + " has no key=value figures: '" + line + "'");
    }
    Map<String, String> figures = new LinkedHashMap<>();
    for (int i = 2; i < tokens.length; i++) {
      String t = tokens[i];
      int eq = t.indexOf('=');
      if (eq <= 0) {
        throw new IllegalArgumentException(
            where + ": RESULT " + name + ": '" + t + "' is not key=value");
      }
      String key = t.substring(0, eq);
      String value = t.substring(eq + 1);
      if (!KEY.matcher(key).matches()) {
        throw new IllegalArgumentException(
            where + ": RESULT " + name + ": key '" + key + "' is not a word");
      }
      if (value.isEmpty()) {
        throw new IllegalArgumentException(
            where + ": RESULT " + name + ": '" + key + "' has an empty value");
      }
      if (figures.putIfAbsent(key, value) != null) {
        throw new IllegalArgumentException(
            where + ": RESULT " + name + ": '" + key + "' is given twice");
      }
    }
    return new ResultLine(name, figures);
  }

  /** The figure as a number, or empty when absent or not numeric ({@code on}, {@code 4/4}). */
  public OptionalDouble number(String key) {
    String v = figures.get(key);
    if (v == null) {
      return OptionalDouble.empty();
    }
    try {
      double d = Double.parseDouble(v);
      return Double.isFinite(d) ? OptionalDouble.of(d) : OptionalDouble.empty();
    } catch (NumberFormatException e) {
      return OptionalDouble.empty();
    }
  }

  /** The line as printed. */
  @Override
  public String toString() {
    StringBuilder b = new StringBuilder(PREFIX).append(' ').append(name);
    figures.forEach((k, v) -> b.append(' ').append(k).append('=').append(v));
    return b.toString();
  }
}
