package dev.mosaic.searcher;

/**
 * A query the searcher cannot run because of the query itself: malformed JSON, an unknown key or
 * field, a value of the wrong type, ordering on a non-sortable field, a limit over the maximum. The
 * message names the problem and where it is (a JSON path such as {@code filter.and[1].eq.price}).
 * The HTTP API answers it with 400.
 */
public class BadQueryException extends IllegalArgumentException {
  public BadQueryException(String message) {
    super(message);
  }

  public BadQueryException(String message, Throwable cause) {
    super(message, cause);
  }
}
