package dev.mosaic.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.function.UnaryOperator;

/**
 * The searcher's operator token as the launcher finds it: from {@code
 * mosaic.searcher.admin-token-file} (its first line, trimmed) when set, else from the environment
 * variable named by {@code mosaic.searcher.admin-token-env}; never from the command line or the
 * config itself, so it shows in neither {@code ps} nor a rendered config. Errors name the source,
 * never the token.
 *
 * <p>Thread safety: stateless.
 */
final class AdminToken {
  /** Shortest token accepted (as {@code SearcherNode.Builder.adminToken}). */
  static final int MIN_LENGTH = 16;

  private AdminToken() {}

  /**
   * Reads the token.
   *
   * @param file the token file, or null
   * @param envName the environment variable to read when there is no file (blank: none)
   * @param env the environment ({@code System::getenv})
   * @return the token, or empty when neither source gives one (admin endpoints disabled)
   * @throws IllegalArgumentException naming the source when the file cannot be read, is empty, or
   *     the token is shorter than {@link #MIN_LENGTH}
   */
  static Optional<String> read(Path file, String envName, UnaryOperator<String> env) {
    if (file != null) {
      String text;
      try {
        text = Files.readString(file, StandardCharsets.UTF_8);
      } catch (IOException e) {
        throw new IllegalArgumentException(
            "configuration key mosaic.searcher.admin-token-file: cannot read " + file + ": " + e,
            e);
      }
      String token = text.lines().findFirst().orElse("").strip();
      return Optional.of(
          checked(token, "the file " + file + " (mosaic.searcher.admin-token-file)"));
    }
    if (envName == null || envName.isBlank()) {
      return Optional.empty();
    }
    String value = env.apply(envName.strip());
    if (value == null || value.isBlank()) {
      return Optional.empty();
    }
    return Optional.of(
        checked(
            value.strip(),
            "the environment variable " + envName.strip() + " (mosaic.searcher.admin-token-env)"));
  }

  private static String checked(String token, String source) {
    if (token.length() < MIN_LENGTH) {
      throw new IllegalArgumentException(
          "the operator token from "
              + source
              + " has "
              + token.length()
              + " characters; at least "
              + MIN_LENGTH
              + " are required (generate one with: openssl rand -base64 32)");
    }
    return token;
  }
}
