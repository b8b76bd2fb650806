# Sourced by scripts that run Java: exports JAVA_HOME pointing at a JDK 25 or newer.
# Keeps JAVA_HOME when it already is one; else looks under /usr/lib/jvm (or $JDK_SEARCH_DIR);
# else fails with one line saying what is missing.
_java_major() { "$1/bin/java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -n 1; }
_mosaic_jdk=""
if [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/javac" ] && [ "$(_java_major "$JAVA_HOME")" -ge 25 ] 2>/dev/null; then
  _mosaic_jdk="$JAVA_HOME"
else
  for d in "${JDK_SEARCH_DIR:-/usr/lib/jvm}"/*; do
    if [ -x "$d/bin/javac" ] && [ "$(_java_major "$d")" -ge 25 ] 2>/dev/null; then
      _mosaic_jdk="$d"
      break
    fi
  done
fi
if [ -z "$_mosaic_jdk" ]; then
  echo "ERROR: no JDK 25 or newer found (JAVA_HOME='${JAVA_HOME:-}' is not one, and none under ${JDK_SEARCH_DIR:-/usr/lib/jvm}); install a JDK 25 (e.g. Temurin 25) and set JAVA_HOME to it." >&2
  exit 1
fi
export JAVA_HOME="$_mosaic_jdk"
export PATH="$JAVA_HOME/bin:$PATH"
unset _mosaic_jdk
