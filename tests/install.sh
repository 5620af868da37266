#!/usr/bin/env bash
# What the tests need besides the `test` extra, installed when missing (README's
# test command runs this first; a second run does nothing):
# * Debian's chromium and chromedriver, which the HTML report test drives;
# * Soda Core and dbt-core, each in its own isolated venv under .tools/ (their
#   pins conflict with the package's own dependencies): the export tests run
#   the exported checks with them.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "error: Debian's chromium and chromium-driver are missing; as root:" \
            "apt-get update && apt-get install -y chromium chromium-driver" >&2
        exit 2
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends chromium chromium-driver fonts-dejavu-core
fi

tool() {  # tool NAME MODULE: a venv .tools/NAME with tests/tools/NAME.txt, unless it imports
    local venv=".tools/$1"
    if [ -x "$venv/bin/python" ] && "$venv/bin/python" -c "import $2" 2>/dev/null; then
        return
    fi
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "tests/tools/$1.txt"
}
tool soda soda.scan
tool dbt dbt.cli.main
