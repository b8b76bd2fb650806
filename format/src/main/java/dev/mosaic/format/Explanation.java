package dev.mosaic.format;

import java.util.List;

/**
 * The trace of a query: one step per plan node (and per partition for a composite), with the number
 * of documents the step matches and the time it took. Produced by {@link Searchable#explain}.
 *
 * <p>Thread safety: immutable. NOTE: a step's {@code nanos} includes the work of its children, each
 * measured by evaluating that step on its own, so an explained query does its work more than once
 * and costs more than running it; use it to understand a query, not to time one.
 *
 * @param step what was evaluated, e.g. {@code eq(mark = "bmw")} or {@code partition 3 (file)}
 * @param matches documents matching this step
 * @param nanos wall time of this step, children included
 * @param children the steps this one is made of
 */
public record Explanation(String step, long matches, long nanos, List<Explanation> children) {
  public Explanation {
    children = List.copyOf(children);
  }

  /** The tree as indented text, one step a line: {@code step matches=N time=T us}. */
  public String toText() {
    StringBuilder out = new StringBuilder();
    append(out, 0);
    return out.toString();
  }

  private void append(StringBuilder out, int depth) {
    out.append("  ".repeat(depth))
        .append(step)
        .append("  matches=")
        .append(matches)
        .append("  time=")
        .append(String.format("%.1f us", nanos / 1000.0))
        .append('\n');
    for (Explanation c : children) {
      c.append(out, depth + 1);
    }
  }
}
