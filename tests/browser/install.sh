#!/usr/bin/env bash
# The headless browser the HTML report test drives: Debian's chromium and its
# matching chromedriver (/usr/bin/chromium, /usr/bin/chromedriver). Installs
# them when either is missing (root on Debian: apt-get works as it is);
# does nothing when both are there. README's test command runs this first.
set -euo pipefail
if command -v chromium >/dev/null && command -v chromedriver >/dev/null; then
    exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "error: Debian's chromium and chromium-driver are missing; install them as root:" \
        "apt-get update && apt-get install -y chromium chromium-driver" >&2
    exit 2
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q --no-install-recommends chromium chromium-driver fonts-dejavu-core
