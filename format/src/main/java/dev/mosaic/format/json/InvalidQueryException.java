package dev.mosaic.format.json;

/**
 * A JSON query that cannot be decoded: malformed JSON, an unknown key, operator or field, a value
 * of the wrong type, a structural limit exceeded. The message starts with the JSON path at fault
 * (such as {@code filter.and[1].gt.price}) and says what was wrong; {@link #path()} gives the path
 * alone. Servers answer it with 400.
 */
public class InvalidQueryException extends IllegalArgumentException {
  private final String path;

  /**
   * @param path the JSON path at fault, or the empty string for the whole body
   * @param problem what was wrong there
   */
  public InvalidQueryException(String path, String problem) {
    this(path, problem, null);
  }

  /**
   * @param path the JSON path at fault, or the empty string for the whole body
   * @param problem what was wrong there
   * @param cause the underlying failure, or null
   */
  public InvalidQueryException(String path, String problem, Throwable cause) {
    super(path.isEmpty() ? problem : path + ": " + problem, cause);
    this.path = path;
  }

  /** The JSON path at fault ({@code ""} for the whole body). */
  public String path() {
    return path;
  }
}
