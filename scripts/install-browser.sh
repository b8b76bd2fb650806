#!/usr/bin/env bash
# Installs Debian's chromium and chromium-driver when absent: the status-page tests drive them
# through Selenium. Without root or apt the page tests report themselves skipped.
set -uo pipefail
if [ -x /usr/bin/chromedriver ] && [ -x /usr/bin/chromium ]; then
  exit 0
fi
if [ "$(id -u)" != 0 ] || ! command -v apt-get > /dev/null; then
  echo "WARNING: chromium/chromedriver missing and cannot be installed here (need root and apt-get); browser tests will be skipped." >&2
  exit 0
fi
echo "Installing chromium and chromium-driver for the browser tests..."
export DEBIAN_FRONTEND=noninteractive
if ! { apt-get update -qq && apt-get install -y -qq chromium chromium-driver > /dev/null; }; then
  echo "WARNING: installing chromium/chromium-driver failed; browser tests will be skipped." >&2
fi
exit 0
